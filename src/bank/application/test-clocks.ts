// Test clocks as a use case (control-plane.md section 3): attach, detach, and advance a client's clock, firing
// everything due up to the new time in time order before answering: settlements (each with its outgoing
// message, in its own transaction), callback deliveries and their retries, dead messages, idempotency expiry.
// The clock is saved before each step, so a crash mid-advance leaves every order before or after its
// transition, never half: the rest fires on the next advance or poll.
import { formatInstant } from '../../wire/rfc3339';
import { IdempotencyRepository } from '../store/idempotency';
import { ClientClocks } from './clocks';
import { EventSink } from './events';
import { OrderBook } from './order-book';

export class ClockBackwardsError extends Error {}

export interface FiredItem {
  at: string;
  kind: 'settlement' | 'delivery';
  reference?: string;
  status?: string;
  attempts?: number;
}

export interface AdvanceReport {
  client_id: string;
  from: string;
  to: string;
  fired: FiredItem[];
  idempotency_records_expired: number;
}

export interface ClockView {
  client_id: string;
  now: string;
  attached_at: string;
}

/** The outgoing side as a clock advance drives it (the dispatcher). */
export interface ClockedDeliveries {
  /** Freezes and sends a client's due messages by its clock; resolves to the attempts made. */
  deliverFor(clientId: string): Promise<number>;
  /** When the client's next delivery work is due by its clock; null when none can go (none waits, no Connector, paused). */
  nextDueFor(clientId: string): number | null;
}

/** One advance may fire at most this many steps (a guard against a schedule that never moves forward). */
const MAX_STEPS = 100_000;

export class TestClocks {
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly clocks: ClientClocks,
    private readonly book: OrderBook,
    private readonly idempotency: IdempotencyRepository,
    private readonly deliveries: ClockedDeliveries,
    private readonly events: EventSink,
  ) {}

  view(clientId: string): ClockView | undefined {
    const clock = this.clocks.get(clientId);
    return clock && { client_id: clientId, now: formatInstant(clock.nowMs), attached_at: formatInstant(clock.attachedAt) };
  }

  /** Attaches a clock frozen at `frozenAtMs` (default: the Bank's now); re-attaching moves nothing back. */
  attach(clientId: string, frozenAtMs = this.clocks.base.now()): ClockView {
    const current = this.clocks.get(clientId);
    if (current && frozenAtMs < current.nowMs) throw new ClockBackwardsError(`the clock of ${clientId} is at ${formatInstant(current.nowMs)}; it never moves back`);
    this.clocks.attach(clientId, frozenAtMs);
    return this.view(clientId) as ClockView;
  }

  /** Back to the Bank's clock; false when no clock was attached. */
  detach(clientId: string): boolean {
    return this.clocks.detach(clientId);
  }

  /** Advances one client's clock to `targetMs`; advances of the same client run one after another. */
  advance(clientId: string, targetMs: number): Promise<AdvanceReport> {
    const previous = this.running.get(clientId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.advanceNow(clientId, targetMs));
    this.running.set(clientId, run);
    return run.finally(() => {
      if (this.running.get(clientId) === run) this.running.delete(clientId);
    });
  }

  private async advanceNow(clientId: string, targetMs: number): Promise<AdvanceReport> {
    const from = this.clocks.get(clientId);
    if (!from) throw new ClockBackwardsError(`client ${clientId} has no test clock`);
    if (targetMs < from.nowMs) throw new ClockBackwardsError(`the clock of ${clientId} is at ${formatInstant(from.nowMs)}; ${formatInstant(targetMs)} would move it back`);
    const fired: FiredItem[] = [];
    let deliveriesStuck = false;
    for (let step = 0; step < MAX_STEPS; step += 1) {
      const next = this.nextDue(clientId, deliveriesStuck);
      if (next === null || next > targetMs) break;
      const at = Math.max(next, this.clocks.now(clientId));
      this.clocks.set(clientId, at);
      for (const order of this.book.settleDueOf(clientId)) fired.push({ at: formatInstant(at), kind: 'settlement', reference: order.reference, status: order.status });
      const attempts = await this.deliveries.deliverFor(clientId);
      if (attempts > 0) fired.push({ at: formatInstant(at), kind: 'delivery', attempts });
      // A due message that still did not go (an attempt held back by an injected delay): from here on only
      // settlements may move the clock, or the advance would spin on it.
      const stillDue = attempts === 0 ? this.deliveries.nextDueFor(clientId) : null;
      if (stillDue !== null && stillDue <= at) deliveriesStuck = true;
    }
    this.clocks.set(clientId, targetMs);
    const expired = this.idempotency.pruneClient(clientId, targetMs);
    const report: AdvanceReport = { client_id: clientId, from: formatInstant(from.nowMs), to: formatInstant(targetMs), fired, idempotency_records_expired: expired };
    this.events.publish('clock.advanced', clientId, { client_id: clientId, from: report.from, to: report.to, fired: fired.length });
    return report;
  }

  private nextDue(clientId: string, withoutDeliveries: boolean): number | null {
    const times = [this.book.nextSettlementOf(clientId), withoutDeliveries ? null : this.deliveries.nextDueFor(clientId)];
    const due = times.filter((time): time is number => time !== null);
    return due.length === 0 ? null : Math.min(...due);
  }
}
