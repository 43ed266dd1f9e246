// Helpers for outbound tests: generated Connector orders and a drain loop.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { BankConfig } from '../../src/bank/config';
import { FakeConnector } from './fake-connector';
import { sampleOrder, startBank } from './bank';
import { BankOptions } from '../../src/bank/bank';

export function connectorOrder(reference: string, initiatedAt: string, extra: Record<string, unknown> = {}, amount = '10.00') {
  const { metadata: _none, ...order } = sampleOrder({ reference, initiated_at: initiatedAt, reason: 'pulled order', type: 'CREDIT_TRANSFER' }, amount);
  return { ...order, ...extra };
}

export async function bankWithFakeConnector(overrides: Partial<BankConfig> = {}, options: BankOptions = {}): Promise<{ bank: Bank; fake: FakeConnector }> {
  const fake = new FakeConnector();
  await fake.start();
  const bank = await startBank({
    sandboxMode: 'relaxed',
    connectorUrl: fake.url,
    pollCron: 'off',
    retryScheduleS: [0.02],
    batchWindowMs: 0,
    ...overrides,
  }, options);
  const jwks = await request(bank.app).get('/.well-known/jwks.json');
  fake.setJwks(jwks.body);
  return { bank, fake };
}

export async function waitFor(condition: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Settles and dispatches until no callback is pending. */
export async function drain(bank: Bank, timeoutMs = 30_000): Promise<void> {
  const pending = () => bank.db.prepare("SELECT COUNT(*) FROM callbacks WHERE state = 'pending'").pluck().get() as number;
  const queued = () => bank.db.prepare("SELECT COUNT(*) FROM status_events WHERE state = 'queued'").pluck().get() as number;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    bank.outbound.settlement.tick();
    await bank.outbound.dispatcher.runOnce();
    if (pending() === 0 && queued() === 0) return;
    if (Date.now() > deadline) throw new Error(`drain timed out: ${pending()} callbacks pending, ${queued()} events queued`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
