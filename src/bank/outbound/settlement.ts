// Settles due PENDING orders eagerly on an interval (reverse polling also settles lazily on read). A tick settles
// one batch, then lets the event loop serve what is waiting (setImmediate) before the next, until none is due:
// 10,000 orders due at once (a restart after downtime, a burst sharing a due time) settled in one synchronous loop
// held every request, /readyz included, for ~3 s.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'winston';
import { OrderBook } from '../application/order-book';

/** Orders one turn of the event loop settles (each is its own transaction). */
export const SETTLE_BATCH = 100;

export class SettlementScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(private readonly book: OrderBook, private readonly intervalMs: number, private readonly logger: Logger, private readonly onSettled: () => void) {}

  /**
   * Settles every order due on the Bank's clock, a batch a turn; resolves to how many changed. The first batch is
   * settled before tick() returns. A tick while one is running joins it (that one goes on until none is due).
   */
  tick(): Promise<number> {
    if (this.running) return this.running;
    this.stopped = false;
    const run = this.settleInTurns();
    this.running = run;
    const done = () => {
      if (this.running === run) this.running = null;
    };
    run.then(done, done);
    return run;
  }

  private async settleInTurns(): Promise<number> {
    let total = 0;
    for (;;) {
      const { settled, more } = this.book.settleDueBatch(SETTLE_BATCH);
      total += settled;
      if (settled > 0) {
        this.logger.debug('settled due orders', { count: settled });
        this.onSettled();
      }
      if (!more) return total;
      await nextTurn();
      if (this.stopped) return total;
    }
  }

  start(): void {
    this.timer ??= setInterval(() => {
      this.tick().catch((error: unknown) => this.logger.error('settlement tick failed', { error: (error as Error).message }));
    }, this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopped = true;
  }
}
