// The crash scenario (issue 2/4): SIGKILLs at random moments during a pull+settle+callback run, a restart each
// time. At the end every order has exactly one final at the Connector, never two different ones, and every
// redelivery reused its key and bytes. test/outbound/crash.test.ts runs it at 1,000 orders and 10 kills (or
// CRASH_ORDERS / CRASH_KILLS); test/robustness/long/crash-long.test.ts at 10,000 orders and 20 kills.
import { ChildBank, kill, startChildBank } from './child-bank';
import { FakeConnector } from './fake-connector';
import { tempDir } from './bank';
import { connectorOrder, waitFor } from './outbound';

export interface CrashScenarioOptions {
  orders: number;
  kills: number;
  /** How long the last run may take to deliver every final (default scales with the order count). */
  finalTimeoutMs?: number;
}

function scenarioFor(index: number): Record<string, unknown> {
  if (index % 10 === 1) return { metadata: { sandbox_scenario: 'PENDING:1:SUCCESS' } };
  if (index % 10 === 2) return { metadata: { sandbox_scenario: 'FAILED:BUS_MANDATE_INVALID' } };
  if (index % 10 === 3) return { metadata: { sandbox_scenario: 'ASYNC:0:FAILED:BUS_REGULATORY' } };
  return {};
}

export function defineCrashScenario(options: CrashScenarioOptions): void {
  const ORDERS = options.orders;
  const KILLS = options.kills;
  const finalTimeoutMs = options.finalTimeoutMs ?? Math.max(120_000, ORDERS * 40);
  const testTimeoutMs = Math.max(300_000, finalTimeoutMs + KILLS * 5_000 + 60_000);

  describe(`crash safety: ${KILLS} SIGKILLs during a ${ORDERS}-order run`, () => {
    const fake = new FakeConnector();
    const dataDir = tempDir('sandbox-bank-crash-');
    let bank: ChildBank | null = null;

    beforeAll(async () => {
      await fake.start();
      fake.latencyMs = 60;
      fake.orders = Array.from({ length: ORDERS }, (_, index) => {
        const initiatedAt = new Date(Date.parse('2026-11-20T00:00:00Z') + Math.floor(index / 3) * 1000).toISOString().replace('.000Z', 'Z');
        return connectorOrder(`CRASH-${String(index).padStart(5, '0')}`, initiatedAt, scenarioFor(index));
      });
    });
    afterAll(async () => {
      if (bank) await kill(bank);
      await fake.stop();
    });

    const env = (run: number) => ({
      DATA_DIR: dataDir,
      SANDBOX_MODE: 'relaxed',
      CONNECTOR_URL: fake.url,
      POLL_CRON: '* * * * * *',
      POLL_LIMIT: '50',
      CALLBACK_MODE: ['unit', 'batch', 'auto'][run % 3],
      BATCH_SIZE: '5',
      BATCH_WINDOW_MS: '50',
      RETRY_SCHEDULE: '0.05,0.1',
      DISPATCH_INTERVAL_MS: '20',
      DISPATCH_CONCURRENCY: '2',
      SETTLE_INTERVAL_MS: '50',
      LOG_LEVEL: 'warn',
    });

    async function startAndLearnKeys(run: number): Promise<ChildBank> {
      const started = await startChildBank({ ...env(run), LOG_LEVEL: 'info' });
      const jwks = (await (await fetch(`${started.httpUrl}/.well-known/jwks.json`)).json()) as Parameters<FakeConnector['setJwks']>[0];
      fake.setJwks(jwks);
      return started;
    }

    it('ends with exactly one final per order and no key reused with other bytes', async () => {
      for (let run = 0; run < KILLS; run += 1) {
        bank = await startAndLearnKeys(run);
        // Let some work happen, then kill at a random instant.
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 900));
        await kill(bank);
        bank = null;
      }
      // The kills interrupted the run: some but not all finals had arrived.
      expect(fake.finals.size).toBeGreaterThan(0);
      expect(fake.finals.size).toBeLessThan(ORDERS);
      bank = await startAndLearnKeys(KILLS);
      await waitFor(() => fake.finals.size === ORDERS, finalTimeoutMs, `all ${ORDERS} finals`);

      expect(fake.conflicts).toEqual([]);
      expect(fake.keyBodyMismatches).toEqual([]);
      expect(fake.callbacks.every((callback) => callback.signatureOk)).toBe(true);
      // Every (order, status) was only ever carried under one idempotency key, however often it was redelivered.
      const keysByReport = fake.keysByReport();
      const reusedKeys = [...keysByReport.entries()].filter(([, keys]) => keys.size > 1);
      expect(reusedKeys).toEqual([]);
      // Expected outcome per scenario.
      for (const [index, order] of fake.orders.entries()) {
        const expected = index % 10 === 2 || index % 10 === 3 ? 'FAILED' : 'SUCCESS';
        expect(fake.finals.get(String(order.reference))?.status).toBe(expected);
      }
    }, testTimeoutMs);
  });
}
