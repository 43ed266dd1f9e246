// The control-plane commands against a Bank on a real port, with a fake Connector for the callbacks: each one's
// success, its refusal (exit 1), and the Bank unusable (exit 2): clients, orders, outcome, redeliver, clock,
// reset, journal, events, wait; and pki.
import fs from 'node:fs';
import path from 'node:path';
import { ensureDevPki } from '../../src/bank/security/pki';
import { sampleOrder, tempDir } from '../helpers/bank';
import type { FakeConnector } from '../helpers/fake-connector';
import { deadUrl, ROOT, runCli, tempFile } from './helpers';
import { ADMIN, listeningBankWithFakeConnector } from './listening-bank';

const DEMO_CREDENTIALS = path.join(ROOT, 'fixtures/demo-connector/credentials.json');
const DEMO = 'demo-connector';

let target: Awaited<ReturnType<typeof listeningBankWithFakeConnector>>;
let fake: FakeConnector;

beforeAll(async () => {
  // The Bank's own clock is the wall clock (the CLI signs with it); the demo client gets a test clock below.
  target = await listeningBankWithFakeConnector({ callbackMode: 'unit', reportPending: false, retryScheduleS: [60], retryHorizonS: 3600 });
  fake = target.fake;
});
afterAll(() => target.stop());

const cli = (argv: string[]) => runCli(argv, target.env);

/** A create through the CLI itself; answers the reference. */
async function create(scenario: string): Promise<string> {
  const order = sampleOrder({ metadata: { sandbox_scenario: scenario } });
  const run = await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(order), '--credentials', DEMO_CREDENTIALS]);
  expect(run.code).toBe(0);
  return order.reference as string;
}

describe('a session through the CLI: clock, wait, orders, redeliver, outcome, journal, events, reset', () => {
  it('runs end to end, each command answering 0 on success and 1 on a refusal', async () => {
    const attached = await cli(['clock', 'attach', DEMO, '--frozen-at', '2026-11-22T12:00:00Z']);
    expect([attached.code, attached.stdout]).toEqual([0, 'test clock of demo-connector: 2026-11-22T12:00:00.000Z\n']);
    const reference = await create('PENDING:3600:SUCCESS');

    const early = await cli(['wait', DEMO, reference, '--timeout-s', '0']);
    expect([early.code, early.stderr]).toEqual([1, expect.stringContaining('408 wait_timeout')]);

    const advanced = await cli(['clock', 'advance', DEMO, '--seconds', '3600']);
    expect(advanced.code).toBe(0);
    expect(advanced.stdout).toContain('demo-connector: 2026-11-22T12:00:00.000Z -> 2026-11-22T13:00:00.000Z; 2 fired');
    expect(advanced.stdout).toContain(`2026-11-22T13:00:00.000Z  settlement  reference=${reference}  status=SUCCESS`);
    expect(fake.callbacks).toHaveLength(1);

    const waited = await cli(['wait', DEMO, reference]);
    expect([waited.code, waited.stdout]).toEqual([0, `${reference} SUCCESS\n`]);

    const listed = await cli(['orders', 'list', '--client', DEMO, '--status', 'SUCCESS']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^CLIENT +REFERENCE +STATUS +REASON +SCENARIO +SOURCE +CREATED$/);
    expect(listed.stdout).toMatch(new RegExp(`demo-connector +${reference} +SUCCESS +- +PENDING:3600:SUCCESS +push`));

    const shown = await cli(['orders', 'show', DEMO, reference]);
    const detail = JSON.parse(shown.stdout) as { order: { status: string }; messages: { message_id: number; idempotency_key: string }[] };
    expect([shown.code, detail.order.status]).toEqual([0, 'SUCCESS']);
    expect((await cli(['orders', 'show', DEMO, 'NO-SUCH-ORDER'])).code).toBe(1);

    const [message] = detail.messages;
    const redelivered = await cli(['redeliver', String(message.message_id)]);
    expect([redelivered.code, redelivered.stdout]).toEqual([0, `message ${message.message_id} (key ${message.idempotency_key}) is pending again: sent on the next dispatch\n`]);
    await cli(['clock', 'advance', DEMO, '--seconds', '0']);
    expect(fake.callbacks).toHaveLength(2);
    expect(fake.callbacks[1].body).toBe(fake.callbacks[0].body);
    expect((await cli(['redeliver', '999999'])).code).toBe(1);
    expect(await cli(['redeliver', '--dead', '--client', DEMO])).toMatchObject({ code: 0, stdout: '0 dead message(s) sent again\n' });

    const final = await cli(['outcome', DEMO, reference, '--status', 'FAILED', '--reason-code', 'BUS_REGULATORY']);
    expect([final.code, final.stderr]).toEqual([1, expect.stringContaining('409 order_final')]);
    const pending = await create('PENDING:86400:SUCCESS');
    expect((await cli(['outcome', DEMO, pending, '--status', 'FAILED', '--reason-code', 'NOT_A_CODE'])).code).toBe(1);
    const forced = await cli(['outcome', DEMO, pending, '--status', 'FAILED', '--reason-code', 'BUS_REGULATORY', '--reason-message', 'sanctions hit']);
    expect([forced.code, forced.stdout]).toEqual([0, `${pending} is now FAILED (BUS_REGULATORY)\n`]);

    expect((await cli(['clock', 'advance', DEMO, '--to', '2026-11-22T11:00:00Z'])).code).toBe(1);
    expect((await cli(['clock', 'show', DEMO])).stdout).toBe('test clock of demo-connector: 2026-11-22T13:00:00.000Z\n');
    expect((await cli(['clock', 'detach', DEMO])).code).toBe(0);
    expect((await cli(['clock', 'show', DEMO])).code).toBe(1);

    const journal = await cli(['journal', 'list', '--client', DEMO, '--path', '/payment-orders', '--limit', '1']);
    expect(journal.code).toBe(0);
    expect(journal.stdout).toMatch(/^ID +AT +DIR +CLIENT +METHOD +STATUS +CODE +PATH\n\d+ .* in +demo-connector +POST +20\d +- +\/payment-orders\nmore: --cursor \S+\n$/);
    const id = journal.stdout.split('\n')[1].split(' ')[0];
    const entry = await cli(['journal', 'show', id]);
    expect(JSON.parse(entry.stdout)).toMatchObject({ id: Number(id), method: 'POST', path: '/payment-orders' });
    expect((await cli(['journal', 'show', id, '--curl'])).stdout).toMatch(/^curl /);
    expect((await cli(['journal', 'show', '999999999'])).code).toBe(1);

    const events = await cli(['events', '--client', DEMO, '--last-event-id', '0', '--count', '2']);
    expect(events.code).toBe(0);
    expect(events.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^\\S+  order\\.created  demo-connector  reference=${reference}  .*status=PENDING`)),
      expect.stringMatching(new RegExp(`^\\S+  order\\.status_changed  demo-connector  reference=${reference}  .*status=SUCCESS  from=PENDING$`)),
    ]);

    const reset = await cli(['reset', '--client', DEMO]);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/^reset demo-connector: deleted .*orders 2/);
    expect((await cli(['orders', 'show', DEMO, reference])).code).toBe(1);
  });

  it('events tails the live stream: a line for an event that happens after it started', async () => {
    const tailing = cli(['events', '--client', DEMO, '--count', '1', '--json']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const reference = await create('SUCCESS');
    const run = await tailing;
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'order.created', client_id: DEMO, data: { reference } });
  });
});

describe('sandbox-bank clients', () => {
  it('create, list, show, delete; 409 for an id taken (exit 1); an unknown client is exit 2', async () => {
    const created = await cli(['clients', 'create', '--client-id', 'cli-acme', '--auth-methods', 'bearer,api_key', '--connector-url', 'http://localhost:3999', '--callback-mode', 'batch', '--no-poll']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ client_id: 'cli-acme', client_secret: expect.any(String), private_jwk: expect.objectContaining({ d: expect.any(String) }), api_key: expect.any(String) });
    expect(created.stderr).toContain('shown only once');
    expect((await cli(['clients', 'create', '--client-id', 'cli-acme'])).code).toBe(1);

    const listed = await cli(['clients', 'list']);
    expect(listed.stdout).toMatch(/cli-acme +runtime +bearer,api_key +http:\/\/localhost:3999/);
    const shown = JSON.parse((await cli(['clients', 'show', 'cli-acme'])).stdout);
    expect(shown).toMatchObject({ client_id: 'cli-acme', connector: { url: 'http://localhost:3999', callback_mode: 'batch', poll: false } });
    expect(JSON.stringify(shown)).not.toContain(JSON.parse(created.stdout).client_secret);

    const deleted = await cli(['clients', 'delete', 'cli-acme']);
    expect([deleted.code, JSON.parse(deleted.stdout).client_id]).toEqual([0, 'cli-acme']);
    expect((await cli(['clients', 'show', 'cli-acme'])).code).toBe(2);
    expect((await cli(['clients', 'delete', 'cli-acme'])).code).toBe(2);
  });

  it('--data gives the whole body (a bad one is the Bank\'s 400, exit 1); --save writes the answer as files', async () => {
    const refused = await cli(['clients', 'create', '--data', '{"client_id":"cli-x","colour":"blue"}']);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('400 body_invalid')]);
    const dir = path.join(tempDir(), 'saved');
    const saved = await cli(['clients', 'create', '--data', `@${tempFile('client.json', { client_id: 'cli-saved', name: 'Saved' })}`, '--save', dir]);
    expect(saved.code).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual(['cli-saved.credentials.json', 'cli-saved.env', 'cli-saved.key', 'cli-saved.crt', 'sandbox-ca.crt'].sort());
    expect(fs.statSync(path.join(dir, 'cli-saved.credentials.json')).mode & 0o077).toBe(0);
    const token = await cli(['token', '--credentials', path.join(dir, 'cli-saved.credentials.json')]);
    expect(token.code).toBe(0);
  });
});

describe('sandbox-bank clients create --save: nothing given once is lost', () => {
  it('a directory that cannot be made or written: exit 3 before anything is registered', async () => {
    const file = tempFile('not-a-directory', 'x');
    const run = await cli(['clients', 'create', '--client-id', 'cli-unsaved', '--save', path.join(file, 'acme')]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`--save: cannot write into ${path.join(file, 'acme')} (ENOTDIR); nothing was registered`);
    expect(run.stdout).toBe('');
    expect((await cli(['clients', 'show', 'cli-unsaved'])).code).toBe(2);
  });

  it('a write that fails after the registration: the whole answer on stdout, a message on stderr, exit 1', async () => {
    const dir = tempDir();
    // The directory takes files, but not this one: a directory stands where the CA certificate goes.
    fs.mkdirSync(path.join(dir, 'sandbox-ca.crt'));
    const run = await cli(['clients', 'create', '--client-id', 'cli-half-saved', '--save', dir]);
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout) as { client_id: string; client_secret: string; private_jwk: { d: string } };
    expect(answer).toMatchObject({ client_id: 'cli-half-saved', client_secret: expect.any(String), private_jwk: { d: expect.any(String) } });
    expect(run.stderr).toContain(`registered cli-half-saved, but cannot save into ${dir}: EISDIR`);
    expect(run.stderr).toContain('The whole answer is on stdout instead');
    // The printed secret is the one in force.
    const token = await cli(['token', '--client-id', 'cli-half-saved', '--client-secret', answer.client_secret]);
    expect(token.code).toBe(0);
  });

  it('every secret file is owner-only, the .env (PULL_TOKEN) included, also over an existing file', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'cli-modes.env'), 'old\n', { mode: 0o644 });
    const run = await cli(['clients', 'create', '--client-id', 'cli-modes', '--connector-url', 'http://localhost:3999', '--connector-token', 'pull-secret-1', '--save', dir]);
    expect(run.code).toBe(0);
    const mode = (name: string) => fs.statSync(path.join(dir, name)).mode & 0o777;
    expect(fs.readFileSync(path.join(dir, 'cli-modes.env'), 'utf8')).toContain('PULL_TOKEN=pull-secret-1');
    expect([mode('cli-modes.env'), mode('cli-modes.credentials.json'), mode('cli-modes.key')]).toEqual([0o600, 0o600, 0o600]);
    expect([mode('cli-modes.crt'), mode('sandbox-ca.crt')]).toEqual([0o644, 0o644]);
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});

describe('the Bank unusable: exit 2', () => {
  it.each([
    ['a wrong admin token', ['clients', 'list'], { ADMIN_TOKEN: 'wrong' }, '401 auth_invalid'],
    ['no admin token', ['orders', 'list'], { ADMIN_TOKEN: undefined }, '401 auth_missing'],
  ])('%s', async (_what, argv, env, message) => {
    const run = await runCli(argv, { ...target.env, ...env });
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(message)]);
    expect(run.stderr).toContain('--admin-token or $ADMIN_TOKEN');
  });

  it.each([['clients', 'list'], ['orders', 'list'], ['journal', 'list'], ['reset'], ['events'], ['wait', 'acme', 'R'], ['clock', 'show', 'acme']].map((argv) => [argv.join(' '), argv]))('an unreachable Bank: %s', async (_name, argv) => {
    const run = await runCli(argv, { SANDBOX_BANK_URL: await deadUrl(), ADMIN_TOKEN: ADMIN });
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining('cannot reach the Bank')]);
  });
});

describe('sandbox-bank pki', () => {
  it('issues a client certificate from an existing CA; leaves an existing one; without a CA: exit 1', async () => {
    const dir = tempDir();
    const none = await runCli(['pki', '--client', 'acme', '--dir', dir]);
    expect([none.code, none.stderr]).toEqual([1, expect.stringContaining('no sandbox CA')]);
    await ensureDevPki({ dir, bankClientId: 'sandbox-bank', clientIds: [], serverNames: [] });
    const issued = await runCli(['pki', '--client', 'acme'], { PKI_DIR: dir });
    expect([issued.code, issued.stdout]).toEqual([0, `issued ${path.join(dir, 'clients', 'acme.crt')} and ${path.join(dir, 'clients', 'acme.key')}\n`]);
    expect(fs.existsSync(path.join(dir, 'clients', 'acme.crt'))).toBe(true);
    const again = await runCli(['pki', '--client', 'acme', '--dir', dir]);
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining('already exists; left as it is')]);
  });
});
