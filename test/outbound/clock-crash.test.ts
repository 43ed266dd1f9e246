// Control plane section 3, safety: a SIGKILL in the middle of a test clock advance leaves every order before or
// after its transition, never half (every reported status has its outbox row), and the next advance finishes
// the work with exactly one final per order at the Connector.
import path from 'node:path';
import Database from 'better-sqlite3';
import { ChildBank, kill, startChildBankFor } from '../helpers/child-bank';
import { FakeConnector } from '../helpers/fake-connector';
import { tempDir } from '../helpers/bank';
import { connectorOrder, waitFor } from '../helpers/outbound';

const ORDERS = 200;
const CLIENT = 'demo-connector';

interface Row {
  reference: string;
  status: string;
  accepted: string;
}

/** Orders whose history, final status and outgoing report disagree (must be none). */
function halfDone(dataDir: string): string[] {
  const db = new Database(path.join(dataDir, 'sandbox-bank.sqlite'), { readonly: true });
  try {
    const orders = db.prepare('SELECT reference, status, accepted_status AS accepted FROM orders').all() as Row[];
    // Its acceptance is in its own row; later changes in order_status_history.
    const history = db.prepare('SELECT to_status FROM order_status_history WHERE client_id = ? AND reference = ? ORDER BY id').pluck();
    const reports = db.prepare('SELECT status FROM status_events WHERE client_id = ? AND reference = ?').pluck();
    const problems: string[] = [];
    for (const order of orders) {
      const statuses = [order.accepted, ...(history.all(CLIENT, order.reference) as string[])];
      if (statuses[statuses.length - 1] !== order.status) problems.push(`${order.reference}: history ends ${statuses.at(-1)}, order is ${order.status}`);
      if (order.status !== 'PENDING' && !(reports.all(CLIENT, order.reference) as string[]).includes(order.status)) {
        problems.push(`${order.reference}: ${order.status} without its outgoing report`);
      }
    }
    return problems;
  } finally {
    db.close();
  }
}

describe('SIGKILL during a test clock advance', () => {
  const fake = new FakeConnector();
  const dataDir = tempDir('sandbox-bank-clock-crash-');
  let bank: ChildBank | null = null;
  const env = { DATA_DIR: dataDir, SANDBOX_MODE: 'relaxed', POLL_CRON: 'off', CALLBACK_MODE: 'unit', REPORT_PENDING: 'false', LOG_LEVEL: 'info' };

  beforeAll(async () => {
    await fake.start();
    fake.latencyMs = 5;
    fake.orders = Array.from({ length: ORDERS }, (_, index) =>
      connectorOrder(`CLOCK-CRASH-${String(index).padStart(4, '0')}`, '2026-11-20T00:00:00Z', { metadata: { sandbox_scenario: `PENDING:${index + 1}:SUCCESS` } }),
    );
  });
  afterAll(async () => {
    if (bank) await kill(bank);
    await fake.stop();
  });

  const start = () => startChildBankFor(fake, env);
  const post = (body: unknown, suffix: string) =>
    fetch(`${bank!.httpUrl}/sandbox/clients/${CLIENT}/${suffix}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('leaves no order half-transitioned, and the next advance completes every final exactly once', async () => {
    bank = await start();
    expect((await post({ frozen_at: '2026-11-22T10:00:00Z' }, 'clock')).status).toBe(201);
    const polled = await fetch(`${bank.httpUrl}/sandbox/clients/${CLIENT}/poll`, { method: 'POST' });
    expect(((await polled.json()) as { accepted: number }).accepted).toBe(ORDERS);

    // One order settles per clocked second, each with a callback: kill somewhere inside that advance.
    const advance = post({ seconds: ORDERS }, 'clock/advance').catch(() => null);
    await waitFor(() => fake.finals.size >= ORDERS / 4, 60_000, 'a quarter of the finals');
    await kill(bank);
    bank = null;
    await advance;
    expect(fake.finals.size).toBeLessThan(ORDERS);
    expect(halfDone(dataDir)).toEqual([]);

    bank = await start();
    const finished = await post({ to: '2026-11-22T11:00:00Z' }, 'clock/advance'); // past every order's delay
    expect(finished.status).toBe(200);
    await waitFor(() => fake.finals.size === ORDERS, 60_000, 'every final');
    expect(halfDone(dataDir)).toEqual([]);
    expect(fake.conflicts).toEqual([]);
    expect(fake.keyBodyMismatches).toEqual([]);
    expect([...fake.keysByReport().values()].every((keys) => keys.size === 1)).toBe(true);
  }, 180_000);
});
