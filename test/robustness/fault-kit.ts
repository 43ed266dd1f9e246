// Shared checks of the fault-injection runs (faults.test.ts in `npm test`, long/faults-long.test.ts in
// `npm run test:long`): reading attempts and messages from the store, pumping the outbound side without the Bank's
// timers, Connector orders with known outcomes, and the invariants after recovery.
import { Bank } from '../../src/bank/bank';
import type { PaymentOrder } from '../../src/wire/payment-order';
import { FakeConnector } from '../helpers/fake-connector';
import { demo } from '../helpers/bank';
import { connectorOrder } from '../helpers/outbound';

export const SCHEDULE_S = [0.02, 0.05];
/** The dispatcher's jitter (src/outbound/outbound.ts): a retry waits the scheduled delay ±10%. */
export const JITTER = 0.1;

export interface Attempt {
  key: string;
  kind: 'unit' | 'batch';
  attempt: number;
  startedAt: number;
  statusCode: number | null;
  error: string | null;
}

export interface CallbackState {
  id: number;
  key: string;
  state: string;
  attempts: number;
}

export function attempts(bank: Bank): Attempt[] {
  return bank.db
    .prepare(
      `SELECT c.idempotency_key AS key, c.kind, a.attempt, a.started_at AS startedAt, a.status_code AS statusCode, a.error
       FROM callback_attempts a JOIN callbacks c ON c.id = a.callback_id ORDER BY a.callback_id, a.id`,
    )
    .all() as Attempt[];
}

export function callbacks(bank: Bank): CallbackState[] {
  return bank.db.prepare('SELECT id, idempotency_key AS key, state, attempts FROM callbacks ORDER BY id').all() as CallbackState[];
}

/** Settles due orders and dispatches until `done()`, without timers of the Bank's own. */
export async function pumpUntil(bank: Bank, done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    bank.outbound.settlement.tick();
    await bank.outbound.dispatcher.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every report is in a message (nothing queued) and every message has failed at least `count` times. */
export function everyCallbackFailed(bank: Bank, count: number): () => boolean {
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
export function connectorOrders(prefix: string, count: number, withDelays = false, startMs = Date.parse('2026-11-20T00:00:00Z')): { orders: Record<string, unknown>[]; expected: Map<string, string> } {
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
    const initiatedAt = new Date(startMs + index * 1000).toISOString().replace('.000Z', 'Z');
    orders.push(connectorOrder(reference, initiatedAt, { metadata }));
    expected.set(reference, final);
  }
  return { orders, expected };
}

/** Accepts orders exactly as the poller stores a pulled page (one transaction), without a pull request. */
export function acceptPulled(bank: Bank, orders: Record<string, unknown>[]): void {
  bank.book.inTransaction(() => {
    for (const order of orders) bank.book.acceptNew(demo.client_id, order as unknown as PaymentOrder, 'pull');
  });
}

/** Everything arrived once the Connector recovered, under stable keys and bytes, and the Bank knows it. */
export function expectAllDelivered(bank: Bank, fake: FakeConnector, expected: Map<string, string>): void {
  expect(callbacks(bank).filter((callback) => callback.state !== 'delivered')).toEqual([]);
  expect(fake.keyBodyMismatches).toEqual([]);
  expect(fake.conflicts).toEqual([]);
  expect(fake.callbacks.filter((callback) => !callback.signatureOk)).toEqual([]);
  for (const [reference, status] of expected) expect([reference, fake.finals.get(reference)?.status]).toEqual([reference, status]);
  // Every (order, status) was carried under exactly one idempotency key, however often it was sent.
  const keysByReport = fake.keysByReport();
  expect([...keysByReport.entries()].filter(([, keys]) => keys.size > 1)).toEqual([]);
  // Every final the Bank holds was reported.
  for (const [reference] of expected) expect(keysByReport.has(`${reference}:${expected.get(reference)}`)).toBe(true);
}

/** Attempts are numbered 1..n per message, recorded for every try, and each retry waited for its scheduled delay. */
export function expectScheduleFollowed(bank: Bank, scheduleS: readonly number[] = SCHEDULE_S): { retried: number; maxAttempts: number } {
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
      const delayMs = scheduleS[Math.min(index - 1, scheduleS.length - 1)] * 1000;
      const gap = list[index].startedAt - list[index - 1].startedAt;
      // Loose by design: only "after the previous attempt, not before the scheduled delay (less jitter)".
      expect([callback.key, index + 1, gap >= Math.floor(delayMs * (1 - JITTER)) - 1]).toEqual([callback.key, index + 1, true]);
    }
    if (list.length > 1) retried += 1;
    maxAttempts = Math.max(maxAttempts, list.length);
  }
  return { retried, maxAttempts };
}
