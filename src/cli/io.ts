// What every command gets: where to write, the environment, and how a run ends. Commands return an exit code or
// throw a CliError that carries one; main() turns either into the process's exit status.

/** The exit codes of every command (docs/cli.md, conformance.md section 1). */
export const EXIT = {
  /** Done as asked. */
  ok: 0,
  /** The thing asked for failed: a request refused, a signature that does not verify, a conformance failure. */
  failed: 1,
  /** The Bank could not be reached or used: unreachable, unknown client, 5xx, a run that could not finish. */
  unavailable: 2,
  /** Usage or configuration: a bad flag, a missing argument, an unreadable file. */
  usage: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** Calls `handler` on the user's interrupt (SIGINT); answers a function that stops listening. */
  onInterrupt(handler: () => void): () => void;
}

/** The real process: its streams, its environment, its SIGINT. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
  };
}

/** A failure with the exit code it stands for; its message goes to stderr. */
export class CliError extends Error {
  /** The command line's words that failed (`clients create`), set by the command that threw; main() names it. */
  command?: string;

  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);
export const unavailable = (message: string) => new CliError(EXIT.unavailable, message);
export const failed = (message: string) => new CliError(EXIT.failed, message);

/** Pretty JSON with a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
