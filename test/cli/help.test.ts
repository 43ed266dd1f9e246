// Every command and sub-command answers --help (exit 0, its usage, options and an example); a bad flag, a missing
// argument or an unknown command is a usage error (exit 3), before anything is sent.
import { COMMANDS } from '../../src/cli/main';
import path from 'node:path';
import { ROOT, runCli } from './helpers';

const DEMO_CREDENTIALS = path.join(ROOT, 'fixtures/demo-connector/credentials.json');

interface Named {
  name: string;
  commands?: readonly Named[];
}

/** `clients create`, `clock advance`, `token`...: every runnable command line. */
function commandLines(): string[][] {
  return COMMANDS.flatMap((one) => {
    const group = (one as Named).commands;
    return group ? group.map((sub) => [one.name, sub.name]) : [[one.name]];
  });
}

const LINES = commandLines();

describe('sandbox-bank --help', () => {
  it('lists every command, with the exit codes', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const one of COMMANDS) expect(run.stdout).toContain(`  ${one.name} `);
    expect(run.stdout).toContain('Exit codes: 0 done, 1 refused or failed, 2 the Bank unreachable or unusable, 3 usage error.');
  });

  it('sign --help names every member of --format json', async () => {
    const run = await runCli(['sign', '--help']);
    expect(run.stdout).toContain('json: {flow, method, target, headers, signature_base}');
  });

  it('help <command> is <command> --help', async () => {
    const run = await runCli(['help', 'clock', 'advance']);
    expect([run.code, run.stdout]).toEqual([0, expect.stringMatching(/^Usage: sandbox-bank clock advance <CLIENT_ID> \[options\]/)]);
  });

  it('covers every command the issue names', () => {
    const names = LINES.map((line) => line.join(' '));
    for (const expected of ['start', 'pki', 'clients create', 'clients list', 'clients show', 'clients update', 'clients pause', 'clients resume', 'clients poll', 'clients delete', 'token', 'request', 'sign', 'verify', 'orders list', 'orders show', 'outcome', 'redeliver', 'clock advance', 'reset', 'journal list', 'journal show', 'events', 'wait', 'conformance']) {
      expect(names).toContain(expected);
    }
  });

  it.each(LINES.map((line) => [line.join(' '), line]))('%s --help: usage, options, exit codes and an example', async (_name, line) => {
    const run = await runCli([...line, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: sandbox-bank ${line.join(' ')}\\b`));
    expect(run.stdout).toContain('Options:');
    expect(run.stdout).toContain('-h, --help');
    expect(run.stdout).toContain('Exit codes:');
    expect(run.stdout).toMatch(/Examples?:\n {2}sandbox-bank /);
    expect(run.stderr).toBe('');
  });

  it.each(COMMANDS.filter((one) => (one as Named).commands).map((one) => [one.name]))('%s (a group) lists its commands with --help, and is a usage error alone', async (name) => {
    const help = await runCli([name, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Usage: sandbox-bank ${name} <`);
    const bare = await runCli([name]);
    expect(bare.code).toBe(3);
    const unknown = await runCli([name, 'frobnicate']);
    expect([unknown.code, unknown.stderr]).toEqual([3, expect.stringContaining(`unknown command "${name} frobnicate"`)]);
  });
});

describe('usage errors: exit 3, and nothing is sent', () => {
  // An unreachable Bank would be exit 2: a 3 proves the line was refused before any request.
  const env = { SANDBOX_BANK_URL: 'http://127.0.0.1:9' };

  it.each(LINES.map((line) => [line.join(' '), line]))('%s --no-such-flag', async (_name, line) => {
    const run = await runCli([...line, '--no-such-flag'], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("Unknown option '--no-such-flag'");
    // The sub-command's own help (it lists the flags), not the group's.
    expect(run.stderr).toContain(`sandbox-bank ${line.join(' ')}: Unknown option`);
    expect(run.stderr).toContain(`Run "sandbox-bank ${line.join(' ')} --help" for usage.`);
  });

  it('a usage error the command finds itself (a bad value) names the sub-command too', async () => {
    const run = await runCli(['clients', 'create', '--auth-methods', 'password'], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^sandbox-bank clients create: --auth-methods takes /);
    expect(run.stderr).toContain('Run "sandbox-bank clients create --help" for usage.');
  });

  it('no command, an unknown command', async () => {
    expect((await runCli([])).code).toBe(3);
    const unknown = await runCli(['frobnicate']);
    expect([unknown.code, unknown.stderr]).toEqual([3, expect.stringContaining('unknown command "frobnicate"')]);
  });

  it.each([
    ['a missing argument', ['orders', 'show', 'acme'], 'missing <REFERENCE>'],
    ['an extra argument', ['reset', 'everything'], 'unexpected argument "everything"'],
    ['a flag without its value', ['orders', 'list', '--client'], "Option '--client <value>' argument missing"],
    ['a value that starts with a dash (it is the value)', ['clients', 'list', '--bank', '-x'], 'got "-x"'],
    ['a short flag whose value starts with a dash', ['verify', 'GET', '/payment-orders/R/status', '-H', '-x'], '-H: "-x" is not a "name: value" header'],
    ['a bad enum value', ['orders', 'list', '--status', 'DONE'], '--status must be one of PENDING, SUCCESS, FAILED'],
    ['a bad number', ['wait', 'acme', 'R', '--timeout-s', 'soon'], '--timeout-s must be an integer from 0 to 300'],
    ['a bad Bank URL', ['clients', 'list', '--bank', 'localhost:8080'], '--bank must be an http:// or https:// URL'],
    ['outcome without --status', ['outcome', 'acme', 'R'], '--status is required'],
    ['clock advance without an amount', ['clock', 'advance', 'acme'], 'give either --seconds or --to'],
    ['redeliver with neither an id nor --dead', ['redeliver'], 'give either a MESSAGE_ID or --dead'],
    ['request with a method the exchange does not use', ['request', 'PUT', '/payment-orders'], 'METHOD must be GET or POST'],
    ['request without a client', ['request', 'POST', '/payment-orders'], '--client-id is required'],
    ['request without a key', ['request', 'POST', '/payment-orders', '--client-id', 'acme'], 'a signing key is required'],
    ['a key file that does not exist', ['sign', 'GET', '/payment-orders/R/status', '--client-id', 'acme', '--key', '/nonexistent.jwk'], 'cannot read key file /nonexistent.jwk'],
    ['a GET with a body', ['sign', 'GET', '/payment-orders/R/status', '--credentials', DEMO_CREDENTIALS, '--data', '{}'], 'a GET has no body'],
    ['a flow that cannot be told', ['sign', 'GET', '/health', '--credentials', DEMO_CREDENTIALS], 'cannot tell the flow of GET /health'],
    ['verify without a request', ['verify'], 'give the request'],
    ['token without a secret', ['token', '--client-id', 'acme'], '--client-secret is required'],
    ['conformance without --client', ['conformance'], '--client is required'],
    ['pki with a bad client id', ['pki', '--client', 'a b'], '--client must be 1 to 64'],
    ['start with a bad port', ['start', '--port', 'eighty'], '--port must be an integer'],
    // Values only the Bank checked before (a refusal, exit 1): checked here, before any request.
    ['orders list --since yesterday', ['orders', 'list', '--since', 'yesterday'], '--since must be an RFC 3339 UTC instant ending in Z'],
    ['orders list --until without a Z', ['orders', 'list', '--until', '2026-11-22T10:00:00+01:00'], '--until must be an RFC 3339 UTC instant ending in Z'],
    ['journal list --since x', ['journal', 'list', '--since', 'x'], '--since must be an RFC 3339 UTC instant ending in Z'],
    ['clock attach --frozen-at garbage', ['clock', 'attach', 'acme', '--frozen-at', 'garbage'], '--frozen-at must be an RFC 3339 UTC instant ending in Z'],
    ['clock advance --to an impossible day', ['clock', 'advance', 'acme', '--to', '2026-02-30T00:00:00Z'], '--to must be an RFC 3339 UTC instant ending in Z'],
    ["clients create --client-id 'bad id!'", ['clients', 'create', '--client-id', 'bad id!'], '--client-id must be 1 to 64 of [A-Za-z0-9._-], got "bad id!"'],
    ['clients create with a client id too long', ['clients', 'create', '--client-id', 'x'.repeat(65)], '--client-id must be 1 to 64 of [A-Za-z0-9._-]'],
  ])('%s', async (_what, argv, message) => {
    const run = await runCli(argv, env);
    expect(run.stderr).toContain(message);
    expect(run.code).toBe(3);
  });
});
