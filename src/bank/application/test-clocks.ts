// Test clocks as a use case (control-plane.md section 3): attach, detach, and advance a client's clock, firing
// everything due up to the new time in time order before answering: settlements (each with its outgoing
// message, in its own transaction), callback deliveries and their retries, dead messages, idempotency expiry.
// An advance stores its target before it fires anything, and the clock is saved before each step, so a crash
// mid-advance leaves every order before or after its transition, never half, and the clock short of a target
// that is still stored: the next start finishes that advance (resumeUnfinished), and any advance asked for
// before then finishes it first. The target is cleared in the statement that sets the clock to it.
// Attach and detach take their turn behind the client's advances, as advances do behind each other: an advance's end
// never sets the clock back over what an attach asked for meanwhile, and a detach never cuts an advance short.
import type { Logger } from 'winston';
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

/** A reset (which does not wait for advances) removed the clock: the advance stops rather than attach it again. */
function removedDuring(clientId: string): ClockBackwardsError {
  return new ClockBackwardsError(`the test clock of ${clientId} was removed by a reset during the advance`);
}

export class TestClocks {
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly clocks: ClientClocks,
    private readonly book: OrderBook,
    private readonly idempotency: IdempotencyRepository,
    private readonly deliveries: ClockedDeliveries,
    private readonly events: EventSink,
    private readonly logger: Logger,
  ) {}

  view(clientId: string): ClockView | undefined {
    const clock = this.clocks.get(clientId);
    return clock && { client_id: clientId, now: formatInstant(clock.nowMs), attached_at: formatInstant(clock.attachedAt) };
  }

  /**
   * Attaches a clock frozen at `frozenAtMs` (default: the Bank's now, when asked); re-attaching moves nothing back.
   * It waits for the client's advances asked for before it, and is checked against where they left the clock.
   */
  attach(clientId: string, frozenAtMs = this.clocks.base.now()): Promise<ClockView> {
    return this.oneAtATime(clientId, async () => {
      const current = this.clocks.get(clientId);
      if (current && frozenAtMs < current.nowMs) throw new ClockBackwardsError(`the clock of ${clientId} is at ${formatInstant(current.nowMs)}; it never moves back`);
      this.clocks.attach(clientId, frozenAtMs);
      return this.view(clientId) as ClockView;
    });
  }

  /**
   * Back to the Bank's clock, once the client's advances asked for before it have ended; answers the clock as it was
   * detached, undefined when none was attached. A target an advance left stored goes with it.
   */
  detach(clientId: string): Promise<ClockView | undefined> {
    return this.oneAtATime(clientId, async () => {
      const view = this.view(clientId);
      this.clocks.detach(clientId);
      return view;
    });
  }

  /**
   * Advances one client's clock to `targetMs`, once an advance a crash cut short is finished; advances of the same
   * client run one after another.
   */
  advance(clientId: string, targetMs: number): Promise<AdvanceReport> {
    return this.oneAtATime(clientId, async () => {
      await this.finishUnfinished(clientId);
      return this.advanceNow(clientId, targetMs);
    });
  }

  /**
   * Advances by `ms` from where the clock stands when this advance's turn comes: after the advances before it, and
   * after one a crash cut short (which was asked for, so it ends at its own target first).
   */
  advanceBy(clientId: string, ms: number): Promise<AdvanceReport> {
    return this.oneAtATime(clientId, async () => {
      await this.finishUnfinished(clientId);
      return this.advanceNow(clientId, this.clocks.now(clientId) + ms);
    });
  }

  /**
   * At start, once deliveries can go: every advance a crash cut short runs on to its stored target, in the
   * background. Resolves when they have ended; a failure is logged, and its target stays for the next advance or start.
   */
  resumeUnfinished(): Promise<void> {
    const resumed = this.clocks.unfinishedAdvances().map(({ clientId }) =>
      // In turn, behind whatever was asked for the client already: an advance finishes the stored one before its own,
      // and a detach forgets it, so by this turn there may be nothing left to resume.
      this.oneAtATime(clientId, async () => {
        const targetMs = this.clocks.advancingTo(clientId);
        if (targetMs === null) return;
        this.logger.info('resuming an interrupted clock advance', { client_id: clientId, from: formatInstant(this.clocks.now(clientId)), to: formatInstant(targetMs) });
        await this.finishUnfinished(clientId);
      }).catch((error: Error) =>
        this.logger.error('resuming an interrupted clock advance failed; its target stays stored', { client_id: clientId, error: error.message }),
      ),
    );
    return Promise.all(resumed).then(() => undefined);
  }

  /** Runs `work` after the client's advances, attaches and detaches before it (whatever their outcome). */
  private oneAtATime<T>(clientId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.running.get(clientId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(work);
    this.running.set(clientId, run);
    return run.finally(() => {
      if (this.running.get(clientId) === run) this.running.delete(clientId);
    });
  }

  /** Ends an advance a crash (or a failure) cut short at its stored target; its report had nobody to go to. */
  private async finishUnfinished(clientId: string): Promise<void> {
    const targetMs = this.clocks.advancingTo(clientId);
    if (targetMs === null) return;
    // A re-attach may have moved the clock past that target meanwhile: then the advance ends where the clock is.
    await this.advanceNow(clientId, Math.max(targetMs, this.clocks.now(clientId)));
  }

  private async advanceNow(clientId: string, targetMs: number): Promise<AdvanceReport> {
    const from = this.clocks.get(clientId);
    if (!from) throw new ClockBackwardsError(`client ${clientId} has no test clock`);
    if (targetMs < from.nowMs) throw new ClockBackwardsError(`the clock of ${clientId} is at ${formatInstant(from.nowMs)}; ${formatInstant(targetMs)} would move it back`);
    // Before anything fires: from here until the clock reaches it, a crash leaves the target for the next start.
    this.clocks.beginAdvance(clientId, targetMs);
    const fired: FiredItem[] = [];
    let deliveriesStuck = false;
    for (let step = 0; step < MAX_STEPS; step += 1) {
      const next = this.nextDue(clientId, deliveriesStuck);
      if (next === null || next > targetMs) break;
      const at = Math.max(next, this.clocks.now(clientId));
      if (!this.clocks.set(clientId, at)) throw removedDuring(clientId);
      for (const order of this.book.settleDueOf(clientId)) fired.push({ at: formatInstant(at), kind: 'settlement', reference: order.reference, status: order.status });
      const attempts = await this.deliveries.deliverFor(clientId);
      if (attempts > 0) fired.push({ at: formatInstant(at), kind: 'delivery', attempts });
      // A due message that still did not go (an attempt held back by an injected delay): from here on only
      // settlements may move the clock, or the advance would spin on it.
      const stillDue = attempts === 0 ? this.deliveries.nextDueFor(clientId) : null;
      if (stillDue !== null && stillDue <= at) deliveriesStuck = true;
    }
    // Pruning again after a crash is harmless; the clock and its cleared target are then stored together. Not for a
    // clock a reset removed meanwhile: its client's records expire by wall time again, not by this target. Nothing
    // else moves the clock during the advance (attach and detach wait for it), so the target is never behind it.
    if (!this.clocks.isClocked(clientId)) throw removedDuring(clientId);
    const expired = this.idempotency.pruneClient(clientId, targetMs);
    this.clocks.finishAdvance(clientId, targetMs);
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
