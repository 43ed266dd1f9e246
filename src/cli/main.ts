// The `sandbox-bank` command (bin/sandbox-bank.js runs it): one word per command, --help everywhere, and the
// same exit codes for all (0 done, 1 refused or failed, 2 the Bank unreachable or unusable, 3 usage).
import { packageVersion } from '../wire/project-root';
import { Command, listText } from './command';
import { clientsCommand } from './commands/clients';
import { clockCommand } from './commands/clock';
import { conformanceCommand } from './commands/conformance';
import { eventsCommand } from './commands/events';
import { journalCommand } from './commands/journal';
import { ordersCommand } from './commands/orders';
import { outcomeCommand } from './commands/outcome';
import { pkiCommand } from './commands/pki';
import { redeliverCommand } from './commands/redeliver';
import { requestCommand } from './commands/request';
import { resetCommand } from './commands/reset';
import { signCommand } from './commands/sign';
import { startCommand } from './commands/start';
import { tokenCommand } from './commands/token';
import { verifyCommand } from './commands/verify';
import { waitCommand } from './commands/wait';
import { CliError, CliIo, EXIT, processIo } from './io';

export const COMMANDS: readonly Command[] = [
  startCommand,
  pkiCommand,
  clientsCommand,
  tokenCommand,
  requestCommand,
  signCommand,
  verifyCommand,
  ordersCommand,
  outcomeCommand,
  redeliverCommand,
  clockCommand,
  resetCommand,
  journalCommand,
  eventsCommand,
  waitCommand,
  conformanceCommand,
];

function version(): string {
  return packageVersion() ?? 'unknown';
}

function topHelp(): string {
  return [
    'Usage: sandbox-bank <command> [options]',
    '',
    'The Sandbox Bank from the command line: run it, register clients, send and sign requests as a Connector,',
    'explain signatures, steer the control plane, and judge a Connector (conformance).',
    '',
    listText('Commands:', COMMANDS, ''),
    '',
    'Common options: --bank <url> (default $SANDBOX_BANK_URL, else http://localhost:8080), --admin-token <token>',
    '(default $ADMIN_TOKEN), --json, --help. Run "sandbox-bank <command> --help" for the rest.',
    '',
    'Exit codes: 0 done, 1 refused or failed, 2 the Bank unreachable or unusable, 3 usage error.',
    'Documentation: docs/cli.md',
    '',
  ].join('\n');
}

/** Runs one command line; answers the exit code (never throws). */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [word, ...rest] = argv;
  if (word === undefined) {
    io.stderr(topHelp());
    return EXIT.usage;
  }
  if (word === 'help' && rest.length > 0) return main([...rest, '--help'], io);
  if (word === '--help' || word === '-h' || word === 'help') {
    io.stdout(topHelp());
    return EXIT.ok;
  }
  if (word === '--version' || word === '-v') {
    io.stdout(`${version()}\n`);
    return EXIT.ok;
  }
  const chosen = COMMANDS.find((one) => one.name === word);
  if (!chosen) {
    io.stderr(`sandbox-bank: unknown command "${word}"\n\n${topHelp()}`);
    return EXIT.usage;
  }
  try {
    return await chosen.run([...rest], io);
  } catch (error) {
    if (error instanceof CliError) {
      const name = error.command ?? word;
      io.stderr(`sandbox-bank ${name}: ${error.message}\n`);
      if (error.exitCode === EXIT.usage) io.stderr(`Run "sandbox-bank ${name} --help" for usage.\n`);
      return error.exitCode;
    }
    io.stderr(`sandbox-bank ${word}: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.failed;
  }
}
