// Issue 2/7: a failed callback's next attempt is dated from that attempt, not from the end of the dispatch pass.
import { ManualClock } from '../../src/wire/clock';
import { bankWithFakeConnector, connectorOrder } from '../helpers/outbound';

describe('retry schedule', () => {
  it('takes the next attempt time from the attempt itself, even when a slow neighbour ends the pass much later', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const { bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', dispatchConcurrency: 1, retryScheduleS: [1] }, { clock });
    try {
      const callbacks: string[] = [];
      fake.behaviour = (kind, key) => {
        if (kind === 'pull') return null;
        callbacks.push(key);
        // The second message of the pass takes a minute of (test-clock) time: the pass ends 60 s after the first attempt.
        if (callbacks.length === 2) clock.advance(60_000);
        return 500;
      };
      fake.orders = [connectorOrder('RETRY-TIME-1', '2026-11-20T00:00:00Z'), connectorOrder('RETRY-TIME-2', '2026-11-20T00:00:01Z')];
      const passStart = clock.now();
      await bank.outbound.poller.runCycle();
      await bank.outbound.dispatcher.runOnce();
      const rows = bank.db.prepare('SELECT idempotency_key AS key, next_attempt_at AS nextAt FROM callbacks ORDER BY id').all() as { key: string; nextAt: number }[];
      expect(rows.map((row) => row.key)).toEqual(callbacks);
      // 1 s ± 10 % jitter after each attempt's own end: the first ended before the clock moved, the second after.
      expect(rows[0].nextAt - passStart).toBeGreaterThanOrEqual(900);
      expect(rows[0].nextAt - passStart).toBeLessThan(2_000);
      expect(rows[1].nextAt - passStart).toBeGreaterThanOrEqual(60_900);
      expect(rows[1].nextAt - passStart).toBeLessThan(62_000);
    } finally {
      await bank.outbound.stop(1000);
      bank.close();
      await fake.stop();
    }
  });
});
