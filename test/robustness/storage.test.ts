// Storage faults (issue: robustness suite): a data directory the Bank cannot write at startup, a store that turns
// read-only or full mid-run, a disk that is full at startup (RLIMIT_FSIZE on a child Bank: no root tricks), and
// SIGKILL during concurrent creates. Each time: a clear error (a startup message naming the problem, or a 500
// `internal` problem without internals), nothing half-written, and after recovery a store that passes
// `PRAGMA integrity_check` and keeps working.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import Database from 'better-sqlite3';
import { Bank, createBank } from '../../src/bank/bank';
import { databasePath } from '../../src/wire/sqlite';
import { ManualClock } from '../../src/wire/clock';
import request from 'supertest';
import { ChildBank, kill, startChildBank as startChild } from '../helpers/child-bank';
import { demo, DemoClient, isoNow, newNonce, ROOT, sampleOrder, signRequest, startBank, tempDir, testConfig } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { capturingLogger } from '../helpers/logs';
import { bankWithFakeConnector, connectorOrder, waitFor } from '../helpers/outbound';

type Db = Database.Database;

/** Everything that must hold in any store, whatever failed before. Returns the violations. */
function storeViolations(db: Db): string[] {
  const problems: string[] = [];
  const integrity = db.pragma('integrity_check', { simple: true });
  if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
  const foreignKeys = db.pragma('foreign_key_check') as unknown[];
  if (foreignKeys.length > 0) problems.push(`foreign_key_check: ${JSON.stringify(foreignKeys.slice(0, 3))}`);
  const count = (sql: string) => db.prepare(sql).pluck().get() as number;
  // An order's history: its acceptance in its own row (migration 12), then its changes in order_status_history.
  const noHistory = count(
    'SELECT COUNT(*) FROM orders o WHERE o.accepted_status IS NULL AND NOT EXISTS (SELECT 1 FROM order_status_history h WHERE h.client_id = o.client_id AND h.reference = o.reference)',
  );
  if (noHistory > 0) problems.push(`${noHistory} orders without a status history`);
  const staleStatus = count(
    `SELECT COUNT(*) FROM orders o WHERE o.status IS NOT COALESCE(
       (SELECT h.to_status FROM order_status_history h WHERE h.client_id = o.client_id AND h.reference = o.reference ORDER BY h.id DESC LIMIT 1),
       o.accepted_status)`,
  );
  if (staleStatus > 0) problems.push(`${staleStatus} orders whose status is not the last of their history`);
  const orphanEvents = count('SELECT COUNT(*) FROM status_events e WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.client_id = e.client_id AND o.reference = e.reference)');
  if (orphanEvents > 0) problems.push(`${orphanEvents} status events without an order`);
  const inProgress = count("SELECT COUNT(*) FROM idempotency_records WHERE state = 'in_progress'");
  if (inProgress > 0) problems.push(`${inProgress} idempotency records left in progress`);
  return problems;
}

/** Push orders and done idempotency records pair up one to one when every create used a fresh key. */
function pushOrdersWithoutRecord(db: Db): number {
  const orders = db.prepare("SELECT COUNT(*) FROM orders WHERE source = 'push'").pluck().get() as number;
  const records = db.prepare("SELECT COUNT(*) FROM idempotency_records WHERE state = 'done'").pluck().get() as number;
  return orders - records;
}

function expectInternalProblem(response: { status: number; text: string; headers: Record<string, unknown> }): void {
  expect(response.status).toBe(500);
  expect(String(response.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  expect(body.code).toBe('internal');
  for (const member of ['type', 'title', 'status', 'detail', 'instance', 'code', 'request_id']) expect(body[member]).toBeDefined();
  // Never the SQLite message, a path or a stack.
  expect(response.text).not.toMatch(/sqlite|SQLITE|disk|readonly|\bat \w|\.ts:\d|\/tmp\//);
}

/** Whether chmod can take write access away here (it cannot for root). */
function chmodBlocksWrites(): boolean {
  const dir = tempDir('sandbox-bank-chmod-probe-');
  fs.chmodSync(dir, 0o555);
  try {
    fs.writeFileSync(path.join(dir, 'probe'), 'x');
    return false;
  } catch {
    return true;
  } finally {
    fs.chmodSync(dir, 0o755);
  }
}

describe('a data directory the Bank cannot write, at startup', () => {
  const unwritable: [string, () => string][] = [
    ['its parent is a regular file', () => {
      const file = path.join(tempDir('sandbox-bank-ro-'), 'not-a-dir');
      fs.writeFileSync(file, 'x');
      return path.join(file, 'data');
    }],
    ['it is a regular file', () => {
      const file = path.join(tempDir('sandbox-bank-ro-'), 'data');
      fs.writeFileSync(file, 'x');
      return file;
    }],
  ];
  if (chmodBlocksWrites()) {
    unwritable.push(['it is mode 0555', () => {
      const dir = tempDir('sandbox-bank-ro-');
      fs.chmodSync(dir, 0o555);
      return dir;
    }]);
  }

  it.each(unwritable)('createBank refuses a DATA_DIR when %s, naming DATA_DIR', async (_case, make) => {
    const dataDir = make();
    await expect(createBank(testConfig({ dataDir, logLevel: 'error' }))).rejects.toThrow(new RegExp(`DATA_DIR ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a writable directory`));
  });

  it('the built Bank exits 1 with a one-line message naming the directory, then starts once the directory is usable', async () => {
    const base = tempDir('sandbox-bank-ro-child-');
    const blocker = path.join(base, 'data');
    fs.writeFileSync(blocker, 'not a directory');
    // The data directory is checked before anything is written into it (the dev PKI included).
    const escaped = blocker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // (startLimitedChildBank without a limit: it clears its startup timer when the child exits early.)
    await expect(startLimitedChildBank({ DATA_DIR: blocker }, 'unlimited')).rejects.toThrow(new RegExp(`exited with 1 during startup:\\s*sandbox-bank: failed to start: DATA_DIR ${escaped} is not a writable directory`));
    fs.rmSync(blocker);
    const bank = await startChildBank({ DATA_DIR: blocker });
    try {
      expect((await fetch(`${bank.httpUrl}/readyz`)).status).toBe(200);
    } finally {
      await kill(bank, 'SIGTERM');
    }
    const db = new Database(databasePath(blocker), { readonly: true });
    expect(storeViolations(db)).toEqual([]);
    db.close();
  });
});

describe('a store that turns read-only mid-run (PRAGMA query_only)', () => {
  let bank: Bank;
  let client: DemoClient;
  beforeEach(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
    client = new DemoClient(bank);
  });
  afterEach(() => bank.close());

  it('answers creates with a 500 internal problem, writes nothing, still serves reads, and works again once writable', async () => {
    const settled = sampleOrder();
    expect((await client.create(settled)).status).toBe(200);
    const before = bank.db.prepare('SELECT (SELECT COUNT(*) FROM orders) || \'/\' || (SELECT COUNT(*) FROM order_status_history) || \'/\' || (SELECT COUNT(*) FROM idempotency_records)').pluck().get();
    bank.db.pragma('query_only = ON');
    const order = sampleOrder();
    const key = `idem-${randomUUID()}`;
    const refused = await client.create(order, { idempotencyKey: key });
    expectInternalProblem(refused);
    // Reverse polling spends a nonce, a write: refused the same way. What only reads still answers.
    expectInternalProblem(await client.status(String(settled.reference)));
    expect((await request(bank.app).get('/readyz')).status).toBe(200);
    expect((await request(bank.app).get('/.well-known/jwks.json')).status).toBe(200);
    expect((await client.create(order, { idempotencyKey: key })).status).toBe(500);
    bank.db.pragma('query_only = OFF');
    expect(bank.db.prepare('SELECT (SELECT COUNT(*) FROM orders) || \'/\' || (SELECT COUNT(*) FROM order_status_history) || \'/\' || (SELECT COUNT(*) FROM idempotency_records)').pluck().get()).toBe(before);
    // The same key and body now go through: nothing of the refused attempts was kept (no 409 in progress, no 422).
    const retried = await client.create(order, { idempotencyKey: key });
    expect(retried.status).toBe(200);
    expect(storeViolations(bank.db)).toEqual([]);
    expect(pushOrdersWithoutRecord(bank.db)).toBe(0);
  });
});

describe('a callback attempt the store refuses to record (a full disk)', () => {
  it('is sent again after the first retry delay, not at every pass: a full disk made ~1,300 sends a second', async () => {
    const clock = new ManualClock(Date.now());
    const { logger, lines } = capturingLogger();
    const { bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: [5] }, { clock, logger });
    try {
      fake.behaviour = (kind) => {
        if (kind !== 'pull') bank.db.pragma('query_only = ON'); // the write after this send fails
        return null;
      };
      expect((await new DemoClient(bank).create(sampleOrder({ metadata: { sandbox_scenario: 'PENDING:600:SUCCESS' } }))).status).toBe(200);
      for (let pass = 0; pass < 5; pass += 1) await bank.outbound.dispatcher.runOnce();
      expect(fake.callbacks).toHaveLength(1);
      fake.behaviour = () => null;
      bank.db.pragma('query_only = OFF');
      await bank.outbound.dispatcher.runOnce();
      expect(fake.callbacks).toHaveLength(1);
      clock.advance(5_000);
      await bank.outbound.dispatcher.runOnce();
      expect(fake.callbacks).toHaveLength(2);
      expect(bank.db.prepare('SELECT state, attempts FROM callbacks').all()).toEqual([{ state: 'delivered', attempts: 1 }]);
      // The attempt log lacks the first send; the log says so once, when writes work again.
      const said = lines.filter((line) => String(line.message).startsWith('callback attempts '));
      expect(said.map((line) => line.message)).toEqual(['callback attempts not recorded: they will be sent again', 'callback attempts recorded again: the store takes writes']);
      expect(said[1]).toMatchObject({ level: 'info', unrecorded_attempts: 1, unrecorded_since: expect.stringMatching(/^\d{4}-/) });
    } finally {
      await bank.outbound.stop(500);
      bank.close();
      await fake.stop();
    }
  });
});

describe('a full store mid-run (PRAGMA max_page_count)', () => {
  let bank: Bank;
  let fake: FakeConnector;
  beforeEach(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit' }));
  });
  afterEach(async () => {
    await bank.outbound.stop(500);
    bank.close();
    await fake.stop();
  });

  it('refuses creates with 500 internal, keeps every stored order whole, and recovers when there is room again', async () => {
    const client = new DemoClient(bank);
    for (let index = 0; index < 5; index += 1) expect((await client.create(sampleOrder())).status).toBe(200);
    const pages = bank.db.pragma('page_count', { simple: true }) as number;
    bank.db.pragma(`max_page_count = ${pages}`);
    // Fill what room is left in the existing pages.
    const accepted: string[] = [];
    let refused: { order: Record<string, unknown>; key: string; response: Awaited<ReturnType<DemoClient['create']>> } | null = null;
    for (let index = 0; index < 5000 && !refused; index += 1) {
      const order = sampleOrder();
      const key = `idem-${randomUUID()}`;
      const response = await client.create(order, { idempotencyKey: key });
      if (response.status === 200) accepted.push(String(order.reference));
      else refused = { order, key, response };
    }
    expect(refused).not.toBeNull();
    expectInternalProblem(refused!.response);
    // Nothing half-written: every order whole, none for the refused reference, no reservation left behind.
    expect(storeViolations(bank.db)).toEqual([]);
    expect(pushOrdersWithoutRecord(bank.db)).toBe(0);
    expect(bank.db.prepare('SELECT COUNT(*) FROM orders WHERE reference = ?').pluck().get(refused!.order.reference)).toBe(0);
    expect(bank.db.prepare('SELECT COUNT(*) FROM idempotency_records WHERE idem_key = ?').pluck().get(refused!.key)).toBe(0);

    // A pull while full stores nothing and does not move the cursor.
    fake.orders = [connectorOrder('FULL-PULL-1', '2026-11-20T00:00:00Z'), connectorOrder('FULL-PULL-2', '2026-11-20T00:00:01Z')];
    const pullWhileFull = await bank.outbound.poller.runCycle().then((reports) => reports[0].outcome, (error: Error) => `rejected: ${error.message}`);
    expect(pullWhileFull === 'error' || pullWhileFull.startsWith('rejected')).toBe(true);
    expect(bank.pulledOrders.cursor(demo.client_id) ?? null).toBeNull();
    expect(bank.db.prepare("SELECT COUNT(*) FROM orders WHERE reference LIKE 'FULL-PULL-%'").pluck().get()).toBe(0);

    // Room again: the same request goes through, the pull picks up both orders once, integrity holds.
    bank.db.pragma('max_page_count = 1073741823');
    expect((await client.create(refused!.order, { idempotencyKey: refused!.key })).status).toBe(200);
    const [pull] = await bank.outbound.poller.runCycle();
    expect([pull.outcome, pull.accepted]).toEqual(['ok', 2]);
    for (let index = 0; index < 20; index += 1) expect((await client.create(sampleOrder())).status).toBe(200);
    for (const reference of accepted) expect((await client.status(reference)).status).toBe(200);
    expect(storeViolations(bank.db)).toEqual([]);
    expect(pushOrdersWithoutRecord(bank.db)).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Child processes: a real file-size limit (a full disk as the Bank sees it) and SIGKILL.

/** The built Bank under `ulimit -f <blocks>` (512-byte blocks in dash; node ignores SIGXFSZ, so writes fail with EFBIG). */
function startLimitedChildBank(env: Record<string, string>, fileBlocks: number | 'unlimited', startupTimeoutMs = 15_000): Promise<ChildBank & { stderr: string[] }> {
  const child = spawn('/bin/sh', ['-c', `ulimit -f ${fileBlocks} && exec "$0" "$@"`, process.execPath, path.join(ROOT, 'dist/bank/main.js')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HTTPS_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  children.push({ process: child, httpUrl: '', logs, exited });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const lines = readline.createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bank did not start:\n${stderr.join('')}`)), startupTimeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`bank exited with ${code} during startup:\n${stderr.join('')}`), { code, stderr: stderr.join('') }));
    });
    lines.on('line', (line) => {
      logs.push(line);
      if (line.includes('"sandbox bank listening"')) {
        clearTimeout(timer);
        resolve({ process: child, httpUrl: (JSON.parse(line) as { http: string }).http, logs, exited, stderr });
      }
    });
  });
}

async function childToken(url: string): Promise<string> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`token: ${response.status}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

interface ChildAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

async function childCreate(url: string, token: string, order: Record<string, unknown>): Promise<ChildAnswer> {
  const body = JSON.stringify(order);
  const headers: Record<string, string> = {
    'x-client-id': demo.client_id,
    'x-request-id': randomUUID(),
    'x-timestamp': isoNow(),
    'x-nonce': newNonce(),
    'x-idempotency-key': `idem-${randomUUID()}`,
  };
  headers['x-signature'] = signRequest('create', 'POST', '/payment-orders', headers, body);
  headers.authorization = `Bearer ${token}`;
  headers['content-type'] = 'application/json';
  const response = await fetch(`${url}/payment-orders`, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text(), headers: Object.fromEntries(response.headers.entries()) };
}

/** Every child Bank this file starts, so a failing test leaves none running. */
const children: ChildBank[] = [];

async function startChildBank(env: Record<string, string>): Promise<ChildBank> {
  const child = await startChild(env);
  children.push(child);
  return child;
}

afterAll(async () => {
  for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) await kill(child);
});

function openStore(dataDir: string): Db {
  return new Database(databasePath(dataDir));
}

describe('a full disk (RLIMIT_FSIZE on the built Bank)', () => {
  let bank: ChildBank | null = null;
  const fake = new FakeConnector();
  beforeAll(() => fake.start());
  const learnKeys = async (url: string) => fake.setJwks((await (await fetch(`${url}/.well-known/jwks.json`)).json()) as Parameters<FakeConnector['setJwks']>[0]);
  afterEach(async () => {
    if (bank) await kill(bank);
    bank = null;
  });
  afterAll(() => fake.stop());

  it('at startup: exits 1 with a clear message, leaves nothing that stops the next start, which then works', async () => {
    const dataDir = tempDir('sandbox-bank-full-start-');
    const failure = await startLimitedChildBank({ DATA_DIR: dataDir, CONNECTOR_URL: fake.url, POLL_CRON: 'off' }, 4).then(
      () => null,
      (error: Error & { code?: number; stderr?: string }) => error,
    );
    expect(failure).not.toBeNull();
    expect(failure!.code).toBe(1);
    expect(failure!.stderr).toMatch(/^sandbox-bank: failed to start: cannot open the store \S+sandbox-bank\.sqlite \(DATA_DIR \S+\): (disk I\/O error|database or disk is full)/m);
    expect(failure!.stderr).not.toMatch(/\n\s+at /);

    bank = await startChildBank({ DATA_DIR: dataDir, CONNECTOR_URL: fake.url, POLL_CRON: 'off' });
    expect((await fetch(`${bank.httpUrl}/readyz`)).status).toBe(200);
    const token = await childToken(bank.httpUrl);
    expect((await childCreate(bank.httpUrl, token, sampleOrder())).status).toBe(200);
    await kill(bank, 'SIGTERM');
    bank = null;
    const db = openStore(dataDir);
    expect(storeViolations(db)).toEqual([]);
    db.close();
  });

  it('mid-run: creates get 500 internal, pulls fail, the process stays up; after a restart with room every acknowledged order is there, whole', async () => {
    const dataDir = tempDir('sandbox-bank-full-run-');
    fake.orders = [];
    const env = { DATA_DIR: dataDir, SANDBOX_MODE: 'relaxed', CONNECTOR_URL: fake.url, POLL_CRON: 'off' };
    // 512 KiB for every file the Bank writes: enough to start (the store is ~130 KiB then), not for many orders.
    // The scheduled pull runs every second, so it also meets the full disk.
    const limited = await startLimitedChildBank({ ...env, POLL_CRON: '* * * * * *' }, 1024);
    bank = limited;
    await learnKeys(limited.httpUrl);
    const token = await childToken(limited.httpUrl);
    const acknowledged: string[] = [];
    let failures: ChildAnswer[] = [];
    for (let round = 0; round < 200 && failures.length === 0; round += 1) {
      const orders = Array.from({ length: 8 }, () => sampleOrder());
      const answers = await Promise.all(orders.map((order) => childCreate(limited.httpUrl, token, order)));
      answers.forEach((answer, index) => {
        if (answer.status === 200) acknowledged.push(String(orders[index].reference));
      });
      failures = answers.filter((answer) => answer.status !== 200);
    }
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) expectInternalProblem(failure);
    expect(acknowledged.length).toBeGreaterThan(0);
    // Pulls now meet the full disk, from the cron and from POST /sandbox/poll: they fail, the process stays up.
    fake.orders = Array.from({ length: 30 }, (_, index) => connectorOrder(`FULLRUN-${index}`, new Date(Date.parse('2026-11-20T00:00:00Z') + index * 1000).toISOString().replace('.000Z', 'Z')));
    const pullsBefore = fake.pulls.length;
    const poll = await fetch(`${limited.httpUrl}/sandbox/poll`, { method: 'POST' });
    expect(poll.status === 200 || poll.status === 500).toBe(true);
    // The POST's pull and at least one of the cron's, each refused by the disk, with the process still up.
    await waitFor(() => fake.pulls.length >= pullsBefore + 2, 15_000, 'a scheduled pull after the manual one');
    expect((await fetch(`${limited.httpUrl}/healthz`)).status).toBe(200);
    expect(limited.process.exitCode).toBeNull();

    // Recovery: the disk has room again (kill, restart without the limit).
    await kill(limited);
    bank = await startChildBank(env);
    await learnKeys(bank.httpUrl);
    const again = await childToken(bank.httpUrl);
    expect((await childCreate(bank.httpUrl, again, sampleOrder())).status).toBe(200);
    expect((await (await fetch(`${bank.httpUrl}/sandbox/poll`, { method: 'POST' })).json()) as { reports: { accepted: number }[] }).toMatchObject({ reports: [{ accepted: 30 }] });
    await kill(bank, 'SIGTERM');
    bank = null;
    const db = openStore(dataDir);
    expect(storeViolations(db)).toEqual([]);
    expect(pushOrdersWithoutRecord(db)).toBe(0);
    const stored = new Set(db.prepare('SELECT reference FROM orders').pluck().all() as string[]);
    expect(acknowledged.filter((reference) => !stored.has(reference))).toEqual([]);
    expect(db.prepare("SELECT COUNT(*) FROM orders WHERE reference LIKE 'FULLRUN-%'").pluck().get()).toBe(30);
    db.close();
  });
});

describe('SIGTERM during a slow create (CREATE_LATENCY_MS)', () => {
  it('answers the create in flight before it stops, with Connection: close, and the order is stored', async () => {
    const dataDir = tempDir('sandbox-bank-term-create-');
    const bank = await startChildBank({ DATA_DIR: dataDir, SANDBOX_MODE: 'relaxed', POLL_CRON: 'off', CREATE_LATENCY_MS: '4000', SHUTDOWN_TIMEOUT_MS: '10000' });
    const order = sampleOrder();
    const answer = childCreate(bank.httpUrl, await childToken(bank.httpUrl), order);
    // The stop comes once the create holds its key (it is in its CREATE_LATENCY_MS wait), read from the child's store.
    const reader = new Database(databasePath(dataDir), { readonly: true });
    const reserved = () => reader.prepare("SELECT COUNT(*) FROM idempotency_records WHERE state = 'in_progress'").pluck().get() === 1;
    await waitFor(reserved, 15_000, 'the create to reserve its key').finally(() => reader.close());
    const code = await kill(bank, 'SIGTERM');
    const answered = await answer;
    expect(answered.status).toBe(200);
    // The stop is about to close this connection: a client must not send its next request on it.
    expect(answered.headers.connection).toBe('close');
    expect(code).toBe(0);
    const db = openStore(dataDir);
    expect(db.prepare('SELECT COUNT(*) FROM orders WHERE reference = ?').pluck().get(order.reference)).toBe(1);
    db.close();
  });

  it('ends live event streams and waits at once: they do not hold the stop for SHUTDOWN_TIMEOUT_MS', async () => {
    const bank = await startChildBank({ DATA_DIR: tempDir('sandbox-bank-term-streams-'), SANDBOX_MODE: 'relaxed', POLL_CRON: 'off', SHUTDOWN_TIMEOUT_MS: '600000' });
    const order = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
    expect((await childCreate(bank.httpUrl, await childToken(bank.httpUrl), order)).status).toBe(202);
    const stream = await fetch(`${bank.httpUrl}/sandbox/events`);
    const streamText = stream.text();
    const wait = fetch(`${bank.httpUrl}/sandbox/orders/${demo.client_id}/${String(order.reference)}/wait?status=final&timeout_s=120`);
    // Nothing outside shows a wait has begun; 1.5 s is room for the request to reach the child on a loaded machine.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await kill(bank, 'SIGTERM')).toBe(0);
    expect(await streamText).toContain(': sandbox-bank events');
    const waited = await wait;
    expect(waited.status).toBe(408);
    expect(((await waited.json()) as { order: { status: string } }).order.status).toBe('PENDING');
  }, 30_000);
});

describe('SIGKILL during concurrent creates', () => {
  it('reopens with integrity_check ok, every acknowledged order whole, nothing half-written', async () => {
    const dataDir = tempDir('sandbox-bank-kill-writes-');
    const acknowledged: string[] = [];
    for (let round = 0; round < 4; round += 1) {
      const bank = await startChildBank({ DATA_DIR: dataDir, SANDBOX_MODE: 'relaxed', POLL_CRON: 'off' });
      const token = await childToken(bank.httpUrl);
      let killed = false;
      const writer = async () => {
        while (!killed) {
          const order = sampleOrder({}, `${10 + Math.floor(Math.random() * 80)}.00`);
          try {
            const answer = await childCreate(bank.httpUrl, token, order);
            if (answer.status === 200) acknowledged.push(String(order.reference));
            else if (!killed) throw new Error(`create answered ${answer.status}: ${answer.text}`);
          } catch (error) {
            if (!killed) throw error;
          }
        }
      };
      const writers = Array.from({ length: 8 }, writer);
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 400));
      killed = true;
      await kill(bank);
      await Promise.all(writers);
    }
    expect(acknowledged.length).toBeGreaterThan(20);
    const db = openStore(dataDir);
    expect(storeViolations(db)).toEqual([]);
    expect(pushOrdersWithoutRecord(db)).toBe(0);
    const stored = new Set(db.prepare('SELECT reference FROM orders').pluck().all() as string[]);
    expect(acknowledged.filter((reference) => !stored.has(reference))).toEqual([]);
    db.close();
  });
});
