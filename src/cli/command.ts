// A command of the CLI, and a group of them under one word (`clients create|list|show|delete`).
import { CommandSpec, helpText, Parsed, parseCommand } from './args';
import { CliError, CliIo, EXIT, usageError } from './io';

export interface Command {
  /** The word after `sandbox-bank` (or after the group's word). */
  name: string;
  summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** A command described by its spec: parses, answers --help, and hands the parsed line to `action`. */
export function command(spec: CommandSpec, action: (parsed: Parsed, io: CliIo) => Promise<number>): Command & { spec: CommandSpec } {
  return {
    name: spec.name.split(' ').pop() as string,
    summary: spec.summary,
    spec,
    async run(argv, io) {
      try {
        const parsed = parseCommand(spec, argv, io);
        return parsed === null ? EXIT.ok : await action(parsed, io);
      } catch (error) {
        // main() names this command (`clients create`), not only its group, in the message and the --help hint.
        if (error instanceof CliError && error.command === undefined) error.command = spec.name;
        throw error;
      }
    },
  };
}

export function listText(title: string, commands: readonly Command[], prefix: string): string {
  const width = Math.max(...commands.map((one) => one.name.length)) + 2;
  return [title, ...commands.map((one) => `  ${prefix}${one.name.padEnd(width)}${one.summary}`)].join('\n');
}

/** Words under one group; `sandbox-bank <group> --help` lists them. */
export function group(name: string, summary: string, commands: readonly Command[]): Command & { commands: readonly Command[] } {
  const help = () =>
    [`Usage: sandbox-bank ${name} <${commands.map((one) => one.name).join('|')}> [options]`, '', summary, '', listText('Commands:', commands, `${name} `), '', `Run "sandbox-bank ${name} <command> --help" for its options.`, ''].join('\n');
  return {
    name,
    summary,
    commands,
    async run(argv, io) {
      const [word, ...rest] = argv;
      if (word === undefined) {
        io.stderr(help());
        return EXIT.usage;
      }
      if (word === '--help' || word === '-h' || word === 'help') {
        io.stdout(help());
        return EXIT.ok;
      }
      const chosen = commands.find((one) => one.name === word);
      if (!chosen) throw usageError(`unknown command "${name} ${word}"; one of: ${commands.map((one) => one.name).join(', ')}`);
      return chosen.run(rest, io);
    },
  };
}

export { helpText };
