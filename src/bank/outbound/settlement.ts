// Settles due PENDING orders eagerly on an interval (reverse polling also settles lazily on read).
import type { Logger } from 'winston';
import { OrderBook } from '../application/order-book';

export class SettlementScheduler {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly book: OrderBook, private readonly intervalMs: number, private readonly logger: Logger, private readonly onSettled: () => void) {}

  tick(): number {
    const settled = this.book.settleAllDue();
    if (settled > 0) {
      this.logger.debug('settled due orders', { count: settled });
      this.onSettled();
    }
    return settled;
  }

  start(): void {
    this.timer ??= setInterval(() => {
      try {
        this.tick();
      } catch (error) {
        this.logger.error('settlement tick failed', { error: (error as Error).message });
      }
    }, this.intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
