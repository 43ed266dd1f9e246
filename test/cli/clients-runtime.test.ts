// sandbox-bank clients update|pause|resume|poll against a Bank on a real port with a fake Connector: each
// control-plane action on a client at run time (control-plane.md sections 1 and 7) as a command, with its exit
// codes: 0 done, 1 the Bank refused, 2 an unknown client, 3 usage.
import { generateKeyPairSync } from 'node:crypto';
import { tempDir } from '../helpers/bank';
import type { FakeConnector } from '../helpers/fake-connector';
import { connectorOrder } from '../helpers/outbound';
import { deadUrl, runCli, tempFile } from './helpers';
import { ADMIN, listeningBankWithFakeConnector } from './listening-bank';

const DEMO = 'demo-connector';

let target: Awaited<ReturnType<typeof listeningBankWithFakeConnector>>;
let fake: FakeConnector;

beforeAll(async () => {
  target = await listeningBankWithFakeConnector({ dataDir: tempDir() });
  fake = target.fake;
});
afterAll(() => target.stop());

const cli = (argv: string[]) => runCli(argv, target.env);

describe('sandbox-bank clients pause|resume', () => {
  it('pauses and resumes the Connector of a client; --json prints the answer', async () => {
    const paused = await cli(['clients', 'pause', DEMO]);
    expect([paused.code, paused.stdout]).toEqual([0, `paused ${DEMO}: no pulls or callbacks until "sandbox-bank clients resume ${DEMO}" (callbacks queue meanwhile)\n`]);
    expect(target.bank.outbound.connectors.isPaused(DEMO)).toBe(true);
    const resumed = await cli(['clients', 'resume', DEMO, '--json']);
    expect([resumed.code, JSON.parse(resumed.stdout)]).toEqual([0, { client_id: DEMO, paused: false }]);
    expect(target.bank.outbound.connectors.isPaused(DEMO)).toBe(false);
  });

  it('an unknown client is exit 2; a client without a Connector is the Bank refusing, exit 1', async () => {
    const unknown = await cli(['clients', 'pause', 'nobody']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('404 not_found')]);
    expect((await cli(['clients', 'create', '--client-id', 'cli-no-connector'])).code).toBe(0);
    const none = await cli(['clients', 'resume', 'cli-no-connector']);
    expect([none.code, none.stderr]).toEqual([1, expect.stringContaining('has no Connector the Bank calls: give it one with PATCH /sandbox/clients/cli-no-connector')]);
  });
});

describe('sandbox-bank clients poll', () => {
  afterEach(() => {
    fake.behaviour = () => null;
  });

  it('pulls the Connector now and prints what was pulled; --json the report', async () => {
    fake.orders = [connectorOrder('CLI-PULLED-1', new Date().toISOString())];
    const run = await cli(['clients', 'poll', DEMO]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^polled ${DEMO}: \\d+ page\\(s\\), 1 accepted, 0 duplicate\\(s\\), 0 rejected; cursor \\S+ \\(ok\\)\\n$`));
    expect(target.bank.db.prepare('SELECT status FROM orders WHERE client_id = ? AND reference = ?').get(DEMO, 'CLI-PULLED-1')).toBeDefined();
    const again = await cli(['clients', 'poll', DEMO, '--json']);
    expect([again.code, JSON.parse(again.stdout)]).toEqual([0, expect.objectContaining({ accepted: 0, duplicates: 1, outcome: 'ok' })]);
  });

  it('a pull that fails is exit 1 with the reason; an unknown client exit 2', async () => {
    fake.behaviour = (kind) => (kind === 'pull' ? 500 : null);
    const failed = await cli(['clients', 'poll', DEMO]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/\(error\)\n$/);
    expect(failed.stderr).toContain(`the pull of ${DEMO} failed: `);
    expect((await cli(['clients', 'poll', 'nobody'])).code).toBe(2);
  });
});

describe('sandbox-bank clients update', () => {
  beforeAll(async () => {
    expect((await cli(['clients', 'create', '--client-id', 'cli-upd', '--connector-url', 'http://localhost:3999', '--no-poll'])).code).toBe(0);
  });

  it('changes what the flags give, merging into the Connector it has, and prints the client as changed', async () => {
    const run = await cli(['clients', 'update', 'cli-upd', '--name', 'Updated', '--callback-mode', 'batch', '--connector-token', 'pull-token-2', '--poll']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ client_id: 'cli-upd', name: 'Updated', changed_at_runtime: true, connector: { url: 'http://localhost:3999', callback_mode: 'batch', poll: true, token_set: true } });
    expect(run.stdout).not.toContain('pull-token-2');
    const shown = JSON.parse((await cli(['clients', 'show', 'cli-upd'])).stdout);
    expect(shown).toMatchObject({ name: 'Updated', connector: { callback_mode: 'batch' } });
  });

  it('--jwks replaces the keys; --data gives the PATCH body (connector null removes the Connector); --json', async () => {
    const jwk = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'cli-upd-2', alg: 'ES256' };
    const keys = await cli(['clients', 'update', 'cli-upd', '--jwks', tempFile('jwks.json', { keys: [jwk] })]);
    expect([keys.code, JSON.parse(keys.stdout).jwks.keys.map((key: { kid: string }) => key.kid)]).toEqual([0, ['cli-upd-2']]);
    const removed = await cli(['clients', 'update', 'cli-upd', '--data', `@${tempFile('patch.json', { connector: null })}`, '--json']);
    expect([removed.code, JSON.parse(removed.stdout).connector]).toEqual([0, null]);
  });

  it('a change the Bank refuses is exit 1, an unknown client exit 2', async () => {
    const refused = await cli(['clients', 'update', 'cli-upd', '--auth-methods', 'bearer,api_key']);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('400 body_invalid')]);
    const unknown = await cli(['clients', 'update', 'nobody', '--name', 'x']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('404 not_found')]);
  });

  it('usage errors, before anything is sent: nothing to change, --poll with --no-poll, a bad auth method', async () => {
    const env = { SANDBOX_BANK_URL: await deadUrl(), ADMIN_TOKEN: ADMIN };
    for (const [argv, message] of [
      [['clients', 'update', 'acme'], 'nothing to change'],
      [['clients', 'update', 'acme', '--poll', '--no-poll'], '--poll and --no-poll exclude each other'],
      [['clients', 'update', 'acme', '--auth-methods', 'password'], '--auth-methods takes bearer, dpop, api_key'],
      [['clients', 'update', 'acme', '--data', '[1]'], '--data must be a JSON object'],
    ] as const) {
      const run = await runCli([...argv], env);
      expect([run.code, run.stderr]).toEqual([3, expect.stringContaining(message)]);
      expect(run.stderr).toContain('Run "sandbox-bank clients update --help" for usage.');
    }
  });
});
