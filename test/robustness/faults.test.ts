// Fault injection toward the Connector (issue: robustness suite): answers slower than CONNECTOR_TIMEOUT_MS,
// connection resets, a Connector that is down (connection refused), 50% random 500s over 200 orders, and TLS
// failures (a server certificate from another CA). In every case nothing is lost or doubled: once the Connector
// recovers, every report arrives, each (order, status) under one idempotency key with the same bytes on every
// redelivery, every attempt is recorded, and attempt n+1 starts after attempt n, no earlier than the retry schedule.
import fs from 'node:fs';
import path from 'node:path';
import { Bank } from '../../src/bank';
import { ensureDevPki, pkiFiles } from '../../src/security/pki';
import { FakeConnector } from '../helpers/fake-connector';
import { demo, startBank, tempDir } from '../helpers/bank';
import { bankWithFakeConnector, connectorOrder } from '../helpers/outbound';
import type { PaymentOrder } from '../../src/domain/order';
import { freePort, portOf, TcpSwitch } from '../helpers/tcp-switch';
import request from 'supertest';

const SCHEDULE_S = [0.02, 0.05];
/** The dispatcher's jitter (src/outbound/outbound.ts): a retry waits the scheduled delay ±10%. */
const JITTER = 0.1;

interface Attempt {
  key: string;
  kind: 'unit' | 'batch';
  attempt: number;
  startedAt: number;
  statusCode: number | null;
  error: string | null;
}

interface CallbackState {
  id: number;
  key: string;
  state: string;
  attempts: number;
}

function attempts(bank: Bank): Attempt[] {
  return bank.db
    .prepare(
      `SELECT c.idempotency_key AS key, c.kind, a.attempt, a.started_at AS startedAt, a.status_code AS statusCode, a.error
       FROM callback_attempts a JOIN callbacks c ON c.id = a.callback_id ORDER BY a.callback_id, a.id`,
    )
    .all() as Attempt[];
}

function callbacks(bank: Bank): CallbackState[] {
  return bank.db.prepare('SELECT id, idempotency_key AS key, state, attempts FROM callbacks ORDER BY id').all() as CallbackState[];
}

/** Settles due orders and dispatches until `done()`, without timers of the Bank's own. */
async function pumpUntil(bank: Bank, done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    bank.outbound.settlement.tick();
    await bank.outbound.dispatcher.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every report is in a message (nothing queued) and every message has failed at least `count` times. */
function everyCallbackFailed(bank: Bank, count: number): () => boolean {
  return () => {
    const queued = bank.db.prepare("SELECT COUNT(*) FROM status_events WHERE state = 'queued'").pluck().get() as number;
    const least = bank.db.prepare("SELECT MIN(attempts) FROM callbacks WHERE state = 'pending'").pluck().get() as number | null;
    const delivered = bank.db.prepare("SELECT COUNT(*) FROM callbacks WHERE state <> 'pending'").pluck().get() as number;
    return queued === 0 && delivered === 0 && least !== null && least >= count;
  };
}

/**
 * Orders as a Connector offers them on the pull (pulled orders are reported by callback; a pushed order's final
 * was already in its create answer). Returns the orders and reference -> expected final status.
 */
function connectorOrders(prefix: string, count: number, withDelays = false): { orders: Record<string, unknown>[]; expected: Map<string, string> } {
  const orders: Record<string, unknown>[] = [];
  const expected = new Map<string, string>();
  for (let index = 0; index < count; index += 1) {
    const reference = `${prefix}-${String(index).padStart(4, '0')}`;
    let metadata: Record<string, string> = { initiator: 'faults' };
    let final = 'SUCCESS';
    if (index % 5 === 1) {
      metadata = { sandbox_scenario: 'FAILED:BUS_MANDATE_INVALID' };
      final = 'FAILED';
    } else if (withDelays && index % 5 === 2) {
      metadata = { sandbox_scenario: 'PENDING:1:SUCCESS' };
    } else if (withDelays && index % 5 === 3) {
      metadata = { sandbox_scenario: 'ASYNC:1:FAILED:BUS_REGULATORY' };
      final = 'FAILED';
    }
    const initiatedAt = new Date(Date.parse('2026-11-20T00:00:00Z') + index * 1000).toISOString().replace('.000Z', 'Z');
    orders.push(connectorOrder(reference, initiatedAt, { metadata }));
    expected.set(reference, final);
  }
  return { orders, expected };
}

/** Accepts orders exactly as the poller stores a pulled page (one transaction), without a pull request. */
function acceptPulled(bank: Bank, orders: Record<string, unknown>[]): void {
  bank.db.transaction(() => {
    for (const order of orders) bank.book.accept(demo.client_id, order as unknown as PaymentOrder, 'pull');
  })();
}

/** Everything arrived once the Connector recovered, under stable keys and bytes, and the Bank knows it. */
function expectAllDelivered(bank: Bank, fake: FakeConnector, expected: Map<string, string>): void {
  expect(callbacks(bank).filter((callback) => callback.state !== 'delivered')).toEqual([]);
  expect(fake.keyBodyMismatches).toEqual([]);
  expect(fake.conflicts).toEqual([]);
  expect(fake.callbacks.filter((callback) => !callback.signatureOk)).toEqual([]);
  for (const [reference, status] of expected) expect([reference, fake.finals.get(reference)?.status]).toEqual([reference, status]);
  // Every (order, status) was carried under exactly one idempotency key, however often it was sent.
  const keysByReport = new Map<string, Set<string>>();
  for (const callback of fake.callbacks) {
    const items = callback.kind === 'batch' ? (callback.parsed.orders as Record<string, string>[]) : [callback.parsed as Record<string, string>];
    for (const item of items) {
      const report = `${item.reference}:${item.status}`;
      keysByReport.set(report, (keysByReport.get(report) ?? new Set()).add(callback.idempotencyKey));
    }
  }
  expect([...keysByReport.entries()].filter(([, keys]) => keys.size > 1)).toEqual([]);
  // Every final the Bank holds was reported.
  for (const [reference] of expected) expect(keysByReport.has(`${reference}:${expected.get(reference)}`)).toBe(true);
}

/** Attempts are numbered 1..n per message, recorded for every try, and each retry waited for its scheduled delay. */
function expectScheduleFollowed(bank: Bank): { retried: number; maxAttempts: number } {
  const byKey = new Map<string, Attempt[]>();
  for (const attempt of attempts(bank)) byKey.set(attempt.key, [...(byKey.get(attempt.key) ?? []), attempt]);
  let retried = 0;
  let maxAttempts = 0;
  for (const callback of callbacks(bank)) {
    const list = byKey.get(callback.key) ?? [];
    expect([callback.key, list.map((attempt) => attempt.attempt)]).toEqual([callback.key, list.map((_, index) => index + 1)]);
    expect([callback.key, callback.attempts]).toEqual([callback.key, list.length]);
    // The last attempt is the 200; every earlier one failed with a recorded reason.
    expect([callback.key, list.at(-1)?.statusCode]).toEqual([callback.key, 200]);
    for (const failed of list.slice(0, -1)) expect([callback.key, failed.error === null]).toEqual([callback.key, false]);
    for (let index = 1; index < list.length; index += 1) {
      const delayMs = SCHEDULE_S[Math.min(index - 1, SCHEDULE_S.length - 1)] * 1000;
      const gap = list[index].startedAt - list[index - 1].startedAt;
      // Loose by design: only "after the previous attempt, not before the scheduled delay (less jitter)".
      expect([callback.key, index + 1, gap >= Math.floor(delayMs * (1 - JITTER)) - 1]).toEqual([callback.key, index + 1, true]);
    }
    if (list.length > 1) retried += 1;
    maxAttempts = Math.max(maxAttempts, list.length);
  }
  return { retried, maxAttempts };
}

describe('fault injection toward the Connector', () => {
  let bank: Bank | null = null;
  const fakes: FakeConnector[] = [];
  const switches: TcpSwitch[] = [];

  afterEach(async () => {
    if (bank) {
      await bank.outbound.stop(1000);
      bank.close();
      bank = null;
    }
    for (const fake of fakes.splice(0)) await fake.stop();
    for (const proxy of switches.splice(0)) await proxy.stop();
  });

  it('answers slower than CONNECTOR_TIMEOUT_MS: attempts time out, and everything arrives once the Connector is fast again', async () => {
    const started = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: SCHEDULE_S, connectorTimeoutMs: 100 });
    bank = started.bank;
    const { fake } = started;
    fakes.push(fake);
    fake.latencyMs = 300;
    const { orders, expected } = connectorOrders('SLOW', 30);
    acceptPulled(bank, orders);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 2), 'two timed-out attempts per callback');
    expect(attempts(current).filter((attempt) => attempt.error !== null).every((attempt) => /timeout/i.test(attempt.error!))).toBe(true);
    expect(callbacks(current).some((callback) => callback.state === 'delivered')).toBe(false);
    fake.latencyMs = 0;
    await pumpUntil(current, () => callbacks(current).every((callback) => callback.state === 'delivered'), 'every callback delivered');
    expectAllDelivered(current, fake, expected);
    const { retried } = expectScheduleFollowed(current);
    expect(retried).toBe(30);
  });

  it('connection resets for a while: every report arrives after the resets stop', async () => {
    const started = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: SCHEDULE_S });
    bank = started.bank;
    const { fake } = started;
    fakes.push(fake);
    let resetting = true;
    fake.behaviour = (kind) => (kind !== 'pull' && resetting ? 'reset' : null);
    const { orders, expected } = connectorOrders('RESET', 30, true);
    fake.orders = orders;
    const [pull] = await bank.outbound.poller.runCycle();
    expect(pull.accepted).toBe(30);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 3), 'three reset attempts per callback');
    expect(fake.finals.size).toBe(0);
    expect(attempts(current).filter((attempt) => attempt.error !== null).every((attempt) => /ECONNRESET|socket hang up|aborted/i.test(attempt.error!))).toBe(true);
    resetting = false;
    await pumpUntil(current, () => fake.finals.size === expected.size && callbacks(current).every((callback) => callback.state === 'delivered'), 'every final');
    expectAllDelivered(current, fake, expected);
    expectScheduleFollowed(current);
  });

  it('a Connector that is down (connection refused) and comes back on the same address gets everything', async () => {
    const fake = new FakeConnector();
    await fake.start();
    fakes.push(fake);
    const port = await freePort();
    const started = await bankWithFakeConnector({ callbackMode: 'batch', batchSize: 7, retryScheduleS: SCHEDULE_S, connectorUrl: `http://127.0.0.1:${port}` });
    bank = started.bank;
    fakes.push(started.fake);
    fake.setJwks((await request(bank.app).get('/.well-known/jwks.json')).body);
    const { orders, expected } = connectorOrders('DOWN', 40);
    acceptPulled(bank, orders);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 3), 'three refused attempts per batch');
    expect(attempts(current).every((attempt) => /ECONNREFUSED/.test(attempt.error ?? ''))).toBe(true);
    const proxy = new TcpSwitch();
    switches.push(proxy);
    await proxy.start(portOf(fake.url), port);
    await pumpUntil(current, () => callbacks(current).every((callback) => callback.state === 'delivered'), 'every batch delivered');
    expectAllDelivered(current, fake, expected);
    expectScheduleFollowed(current);
    expect(callbacks(current).some((callback) => callback.id > 0)).toBe(true);
  });

  it('50% random 500s over 200 orders: all delivered, each (order, status) under one key, every attempt recorded', async () => {
    const started = await bankWithFakeConnector({ callbackMode: 'auto', batchSize: 25, autoBatchThreshold: 3, retryScheduleS: SCHEDULE_S });
    bank = started.bank;
    const { fake } = started;
    fakes.push(fake);
    // A seeded coin, so a failure replays the same answers.
    let seed = 0x2f6b1d;
    const coin = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    fake.behaviour = (kind) => (kind !== 'pull' && coin() < 0.5 ? 500 : null);
    const { orders, expected } = connectorOrders('HALF', 200, true);
    fake.orders = orders;
    const [pull] = await bank.outbound.poller.runCycle();
    expect(pull.accepted).toBe(200);
    const current = bank;
    await pumpUntil(current, () => fake.finals.size === expected.size && callbacks(current).every((callback) => callback.state === 'delivered'), 'all 200 finals', 60_000);
    expectAllDelivered(current, fake, expected);
    const { retried } = expectScheduleFollowed(current);
    expect(retried).toBeGreaterThan(0);
    // Every request the Connector saw is an attempt the Bank recorded, with the answer it got.
    const recorded = attempts(current);
    expect(recorded.length).toBe(fake.callbacks.length);
    expect(recorded.filter((attempt) => attempt.statusCode === 500).length).toBe(fake.callbacks.filter((callback) => callback.answeredWith === 500).length);
    expect(recorded.filter((attempt) => attempt.statusCode === 500).every((attempt) => attempt.error === 'HTTP 500')).toBe(true);
    expect(fake.callbacks.filter((callback) => callback.answeredWith === 500).length).toBeGreaterThan(0);
    // Both shapes were exercised: batches for the bursts, units once few were due.
    expect(new Set(fake.callbacks.map((callback) => callback.kind))).toContain('batch');
  });

  it('TLS failures: a Connector certificate from another CA is refused and nothing is delivered; the right certificate gets everything', async () => {
    // The Bank's dev PKI (its CA, its client certificate, a demo-connector server certificate) and a rogue CA.
    const bankPki = pkiFiles(path.join(tempDir('sandbox-bank-faults-pki-'), 'pki'));
    const roguePki = pkiFiles(path.join(tempDir('sandbox-bank-faults-rogue-'), 'pki'));
    await ensureDevPki({ dir: bankPki.dir, bankClientId: 'sandbox-bank', clientIds: ['demo-connector'], serverNames: [] });
    await ensureDevPki({ dir: roguePki.dir, bankClientId: 'sandbox-bank', clientIds: ['demo-connector'], serverNames: [] });
    const read = (file: string) => fs.readFileSync(file);
    const rogue = new FakeConnector();
    await rogue.start({ cert: read(roguePki.clientCert('demo-connector')), key: read(roguePki.clientKey('demo-connector')), ca: read(bankPki.caCert) });
    const good = new FakeConnector();
    await good.start({ cert: read(bankPki.clientCert('demo-connector')), key: read(bankPki.clientKey('demo-connector')), ca: read(bankPki.caCert) });
    fakes.push(rogue, good);
    const proxy = new TcpSwitch();
    switches.push(proxy);
    const port = await proxy.start(portOf(rogue.url));

    bank = await startBank(
      { sandboxMode: 'strict', connectorUrl: `https://localhost:${port}`, pollCron: 'off', callbackMode: 'unit', retryScheduleS: SCHEDULE_S, batchWindowMs: 0 },
      { connectorTls: { ca: read(bankPki.caCert), cert: read(bankPki.bankClientCert), key: read(bankPki.bankClientKey) } },
    );
    const jwks = (await request(bank.app).get('/.well-known/jwks.json')).body;
    rogue.setJwks(jwks);
    good.setJwks(jwks);
    const { orders, expected } = connectorOrders('TLS', 20);
    acceptPulled(bank, orders);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 2), 'two refused handshakes per callback');
    // The handshake failed on the Bank's side: the rogue server never saw a request.
    expect(rogue.callbacks).toEqual([]);
    const errors = attempts(current).map((attempt) => attempt.error ?? '');
    expect(errors.every((error) => /certificate|CERT|SIGNATURE|self.signed|issuer/i.test(error))).toBe(true);
    expect(callbacks(current).every((callback) => callback.state === 'pending')).toBe(true);

    proxy.switchTo(portOf(good.url));
    await pumpUntil(current, () => callbacks(current).every((callback) => callback.state === 'delivered'), 'every callback over verified TLS');
    expectAllDelivered(current, good, expected);
    expectScheduleFollowed(current);
    expect(new Set(good.peerNames)).toEqual(new Set(['sandbox-bank']));
    expect(rogue.callbacks).toEqual([]);
  });
});
