// Bank references (contract 2.3 and 2.4: "Bank internal reference"; its format is the sandbox's own):
// `SBK`, the order's day on its client's clock (YYYYMMDD), then 16 upper-case hex digits: 7 of the Bank's wall-clock
// millisecond of the day, 3 of a counter within that millisecond, 6 random.
// Why time-ordered: the orders table keeps a unique index on bank_reference, and a random key lands each new order
// on a random page of it, which the commit then writes whole to the WAL. In order, consecutive orders share the
// index's last page: 0.91 of a pulled order's CPU in batch mode (bench/README.md, session 16).
// Unique within a process by the counter (4,096 a millisecond, far above what one process creates); the random
// part covers a wall clock stepped back and a restart within the same millisecond.

const DAY_MS = 86_400_000;
const COUNTER_SPAN = 0x1000;

export type RandomHex = (length: number) => string;

function hex(value: number, digits: number): string {
  return value.toString(16).toUpperCase().padStart(digits, '0');
}

export class BankReferences {
  private lastMs = -1;
  private counter = 0;
  /** The last day formatted, since every order of a day needs the same text. */
  private lastDay = { number: NaN, text: '' };

  constructor(
    private readonly randomHex: RandomHex,
    private readonly wallClock: () => number = Date.now,
  ) {}

  /** A new bank reference for an order accepted at `orderMs` (its client's clock, test clocks included). */
  next(orderMs: number): string {
    const msOfDay = this.wallClock() % DAY_MS;
    if (msOfDay === this.lastMs) {
      this.counter = (this.counter + 1) % COUNTER_SPAN;
    } else {
      this.lastMs = msOfDay;
      this.counter = 0;
    }
    return `SBK${this.dayText(orderMs)}${hex(msOfDay, 7)}${hex(this.counter, 3)}${this.randomHex(6)}`;
  }

  private dayText(orderMs: number): string {
    const number = Math.floor(orderMs / DAY_MS);
    if (number !== this.lastDay.number) this.lastDay = { number, text: new Date(orderMs).toISOString().slice(0, 10).replace(/-/g, '') };
    return this.lastDay.text;
  }
}
