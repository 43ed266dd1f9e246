// Control plane section 3, safety: an advance asked for is an advance done. A crash in the middle of a test clock
// advance leaves its target stored; the next start finishes that advance (every due settlement once, in time order,
// the clock exactly at the target), an advance asked for before then finishes it first, and a detach waits for the
// advance under way, then forgets the clock.
// In process, a step that never ends stands for the SIGKILL; at the end, a real SIGKILL of a child Bank.
import path from 'node:path';
import Database from 'better-sqlite3';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { createLogger } from '../../src/wire/logger';
import { formatInstant } from '../../src/wire/rfc3339';
import { startBank, tempDir } from '../helpers/bank';
import { ChildBank, kill, startChildBankFor } from '../helpers/child-bank';
import { FakeConnector } from '../helpers/fake-connector';
import { connectorOrder, waitFor } from '../helpers/outbound';

const CLIENT = 'demo-connector';
const T0 = Date.parse('2026-11-22T10:00:00Z');
const RESUMING = 'resuming an interrupted clock advance';

/** What a Bank logged at info that says it resumes an advance. */
function resumeLines(info: jest.SpyInstance): [string, Record<string, unknown>][] {
  return (info.mock.calls as unknown as [string, Record<string, unknown>][]).filter(([message]) => message === RESUMING);
}

interface ClockRow {
  now_ms: number;
  advancing_to: number | null;
}

interface Settlement {
  reference: string;
  at: number;
}

/** Orders the fake Connector serves: order i (from 1) is `PENDING:<i>:SUCCESS`, so one settles each clocked second. */
function pendingOrders(prefix: string, count: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) =>
    connectorOrder(`${prefix}-${String(index + 1).padStart(4, '0')}`, '2026-11-20T00:00:00Z', { metadata: { sandbox_scenario: `PENDING:${index + 1}:SUCCESS` } }),
  );
}

/** The stored clock (`*`: a store without advancing_to still answers, so that a test says what went wrong). */
function clockRow(db: Database.Database): ClockRow | undefined {
  const row = db.prepare('SELECT * FROM test_clocks WHERE client_id = ?').get(CLIENT) as ClockRow | undefined;
  return row && { now_ms: row.now_ms, advancing_to: row.advancing_to };
}

/** Every transition to SUCCESS the store has, in the order they were written. */
function settlements(db: Database.Database): Settlement[] {
  return db.prepare("SELECT reference, at FROM order_status_history WHERE client_id = ? AND to_status = 'SUCCESS' ORDER BY id").all(CLIENT) as Settlement[];
}

/** Each order settled once, at its own due time (T0 + i s), and in time order. */
function expectSettledOnceInTimeOrder(db: Database.Database, orders: Record<string, unknown>[]): void {
  const due = orders.map((order, index) => ({ reference: order.reference as string, at: T0 + (index + 1) * 1000 }));
  expect(settlements(db)).toEqual(due);
  const statuses = db.prepare('SELECT DISTINCT status FROM orders WHERE client_id = ?').pluck().all(CLIENT);
  expect(statuses).toEqual(['SUCCESS']);
}

describe('a test clock advance cut short (in process)', () => {
  const ORDERS = 20;
  /** The step the "crash" happens at: its settlement is stored, its deliveries never go. */
  const CRASH_STEP = 8;
  const TARGET = T0 + 30_000;
  let fake: FakeConnector;
  const open: Bank[] = [];

  beforeEach(async () => {
    fake = new FakeConnector();
    await fake.start();
  });
  afterEach(async () => {
    for (const bank of open.splice(0)) {
      await bank.outbound.stop(1000);
      bank.close();
    }
    await fake.stop();
  });

  /** A Bank on `dataDir` calling back the fake Connector; opened again on the same dir, it is a restart. */
  async function openBank(dataDir: string, logger = createLogger('error', true)): Promise<Bank> {
    const bank = await startBank(
      { dataDir, sandboxMode: 'relaxed', connectorUrl: fake.url, pollCron: 'off', callbackMode: 'unit', reportPending: false, batchWindowMs: 0 },
      { logger },
    );
    open.push(bank);
    fake.setJwks((await request(bank.app).get('/.well-known/jwks.json')).body);
    return bank;
  }

  /**
   * A clocked client with ORDERS pending orders, and an advance to TARGET whose delivery step CRASH_STEP never ends:
   * the store is left as a SIGKILL at that step leaves it. Answers the dir, a release of that step, and the advance.
   */
  async function interruptedAdvance(
    prefix: string,
  ): Promise<{ dataDir: string; bank: Bank; orders: Record<string, unknown>[]; release(): void; advanced: Promise<unknown> }> {
    const dataDir = tempDir('clock-advance-crash-');
    const bank = await openBank(dataDir);
    await bank.testClocks.attach(CLIENT, T0);
    const orders = pendingOrders(prefix, ORDERS);
    fake.orders = orders;
    await bank.outbound.poller.runCycle();
    const dispatcher = bank.outbound.dispatcher;
    const deliverFor = dispatcher.deliverFor.bind(dispatcher);
    let steps = 0;
    let release = () => {};
    let stuck = () => {};
    const reachedCrashStep = new Promise<void>((resolve) => (stuck = resolve));
    jest.spyOn(dispatcher, 'deliverFor').mockImplementation((clientId) => {
      steps += 1;
      if (steps !== CRASH_STEP) return deliverFor(clientId);
      stuck();
      return new Promise<number>((resolve) => (release = () => resolve(0)));
    });
    const advanced = bank.testClocks.advance(CLIENT, TARGET).catch((error: Error) => error);
    await reachedCrashStep;
    return { dataDir, bank, orders, release: () => release(), advanced };
  }

  /** Closes the Bank whose advance hangs, as a crash would end it: nothing it has not stored survives. */
  function crash(bank: Bank): void {
    open.splice(open.indexOf(bank), 1);
    bank.close();
  }

  it('at the next start, runs on to its target: every due settlement fired once, in time order, and the target cleared', async () => {
    const { dataDir, bank, orders } = await interruptedAdvance('RESUME');
    const left = clockRow(bank.db);
    expect(left?.now_ms).toBe(T0 + CRASH_STEP * 1000);
    crash(bank);

    const logger = createLogger('error', true);
    const info = jest.spyOn(logger, 'info');
    const restarted = await openBank(dataDir, logger);
    restarted.outbound.start();
    await waitFor(() => restarted.testClocks.view(CLIENT)?.now === formatInstant(TARGET), 30_000, 'the resumed advance to reach its target');

    expect(left?.advancing_to).toBe(TARGET); // stored before anything fired
    expect(clockRow(restarted.db)).toEqual({ now_ms: TARGET, advancing_to: null });
    expectSettledOnceInTimeOrder(restarted.db, orders);
    expect(resumeLines(info)).toEqual([
      [RESUMING, { client_id: CLIENT, from: formatInstant(T0 + CRASH_STEP * 1000), to: formatInstant(TARGET) }],
    ]);
    // Deliveries went too: each order's final reached the Connector once.
    expect(fake.finals.size).toBe(ORDERS);
    expect([...fake.keysByReport().values()].every((keys) => keys.size === 1)).toBe(true);
  });

  it('an advance asked for before the resume finishes the stored one first, then counts its seconds from that target', async () => {
    const { dataDir, bank, orders } = await interruptedAdvance('RETRY');
    crash(bank);

    const restarted = await openBank(dataDir); // outbound not started: nothing resumes by itself
    const retried = await request(restarted.app).post(`/sandbox/clients/${CLIENT}/clock/advance`).send({ seconds: 60 });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ from: formatInstant(TARGET), to: formatInstant(TARGET + 60_000) });
    expect(clockRow(restarted.db)).toEqual({ now_ms: TARGET + 60_000, advancing_to: null });
    expectSettledOnceInTimeOrder(restarted.db, orders);
  });

  it('a detach during the advance waits for it: the advance reaches its target, then the clock is detached and nothing resumes at the next start', async () => {
    const { dataDir, bank, release, advanced } = await interruptedAdvance('DETACH');
    const detached = bank.testClocks.detach(CLIENT);
    release();
    expect(await advanced).toMatchObject({ to: formatInstant(TARGET) });
    expect(await detached).toMatchObject({ client_id: CLIENT, now: formatInstant(TARGET) });
    expect(bank.testClocks.view(CLIENT)).toBeUndefined();
    expect(clockRow(bank.db)).toBeUndefined();
    crash(bank);

    const logger = createLogger('error', true);
    const info = jest.spyOn(logger, 'info');
    const restarted = await openBank(dataDir, logger);
    restarted.outbound.start();
    expect(restarted.testClocks.view(CLIENT)).toBeUndefined();
    expect(resumeLines(info)).toEqual([]);
  });
});

describe('SIGKILL during a test clock advance, then a restart', () => {
  const ORDERS = 200;
  const TARGET = '2026-11-22T10:05:00.000Z';
  const fake = new FakeConnector();
  const dataDir = tempDir('clock-advance-kill-');
  const env = { DATA_DIR: dataDir, SANDBOX_MODE: 'relaxed', POLL_CRON: 'off', CALLBACK_MODE: 'unit', REPORT_PENDING: 'false', LOG_LEVEL: 'info' };
  let bank: ChildBank | null = null;

  beforeAll(async () => {
    await fake.start();
    fake.latencyMs = 5;
    fake.orders = pendingOrders('KILL', ORDERS);
  });
  afterAll(async () => {
    if (bank) await kill(bank);
    await fake.stop();
  });

  const start = () => startChildBankFor(fake, env);
  const clockUrl = (suffix = '') => `${bank!.httpUrl}/sandbox/clients/${CLIENT}/clock${suffix}`;
  const post = (url: string, body?: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  const store = () => new Database(path.join(dataDir, 'sandbox-bank.sqlite'), { readonly: true });

  async function clockNow(): Promise<string> {
    return ((await (await fetch(clockUrl())).json()) as { now: string }).now;
  }

  it('the restarted Bank finishes the advance the killed one was making: the clock ends at its target and every order is final', async () => {
    bank = await start();
    expect((await post(clockUrl(), { frozen_at: '2026-11-22T10:00:00Z' })).status).toBe(201);
    const polled = await post(`${bank.httpUrl}/sandbox/clients/${CLIENT}/poll`);
    expect(((await polled.json()) as { accepted: number }).accepted).toBe(ORDERS);

    const advance = post(clockUrl('/advance'), { seconds: 300 }).catch(() => null);
    await waitFor(() => fake.finals.size >= ORDERS / 4, 60_000, 'a quarter of the finals');
    await kill(bank);
    bank = null;
    await advance;
    const killed = store();
    const left = clockRow(killed) as ClockRow;
    killed.close();
    expect(fake.finals.size).toBeLessThan(ORDERS);
    expect(left.now_ms).toBeLessThan(Date.parse(TARGET));

    bank = await start();
    const deadline = Date.now() + 120_000;
    while ((await clockNow()) !== TARGET) {
      if (Date.now() > deadline) throw new Error(`the clock did not reach ${TARGET}: it reads ${await clockNow()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await waitFor(() => fake.finals.size === ORDERS, 60_000, 'every final');

    expect(left.advancing_to).toBe(Date.parse(TARGET)); // the killed Bank had stored it
    const db = store();
    try {
      expect(clockRow(db)).toEqual({ now_ms: Date.parse(TARGET), advancing_to: null });
      expect(db.prepare('SELECT DISTINCT status FROM orders').pluck().all()).toEqual(['SUCCESS']);
      expect(db.prepare("SELECT COUNT(*) FROM order_status_history WHERE to_status = 'SUCCESS'").pluck().get()).toBe(ORDERS);
    } finally {
      db.close();
    }
    expect(fake.conflicts).toEqual([]);
    expect([...fake.keysByReport().values()].every((keys) => keys.size === 1)).toBe(true);
    const resumed = bank.logs.filter((line) => line.includes(`"${RESUMING}"`)).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(resumed).toEqual([expect.objectContaining({ client_id: CLIENT, from: formatInstant(left.now_ms), to: TARGET })]);
  }, 300_000);
});
