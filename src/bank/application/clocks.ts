// Per-client test clocks (control-plane.md section 3): a client with a clock lives at a frozen time that moves
// only when told; everyone else is on the Bank's clock. Business times (acceptance, settlement, callback bodies,
// retries, idempotency retention) are read from the client's clock; security (X-Timestamp window, nonces, DPoP,
// tokens) stays on the Bank's own clock, because the Connector's clock is real.
import { Clock } from '../../wire/clock';
import { TestClockRepository } from '../store/client-controls';

export class ClientClocks {
  private readonly frozen = new Map<string, number>();
  private readonly attachedAt = new Map<string, number>();
  /** Targets of advances under way, or cut short by a crash (stored, so that the next start finishes them). */
  private readonly targets = new Map<string, number>();
  private readonly views = new Map<string, Clock>();

  constructor(
    /** The Bank's clock (wall time, or a test's ManualClock). */
    readonly base: Clock,
    private readonly store: TestClockRepository,
  ) {
    for (const row of store.all()) {
      this.frozen.set(row.clientId, row.nowMs);
      this.attachedAt.set(row.clientId, row.attachedAt);
      if (row.advancingTo !== null) this.targets.set(row.clientId, row.advancingTo);
    }
  }

  /** The clock business times of this client are read from (cached per client: called on every request). */
  forClient(clientId: string): Clock {
    let view = this.views.get(clientId);
    if (!view) {
      view = { now: () => this.frozen.get(clientId) ?? this.base.now() };
      this.views.set(clientId, view);
    }
    return view;
  }

  now(clientId: string): number {
    return this.frozen.get(clientId) ?? this.base.now();
  }

  isClocked(clientId: string): boolean {
    return this.frozen.has(clientId);
  }

  get(clientId: string): { nowMs: number; attachedAt: number } | undefined {
    const nowMs = this.frozen.get(clientId);
    return nowMs === undefined ? undefined : { nowMs, attachedAt: this.attachedAt.get(clientId) as number };
  }

  attach(clientId: string, frozenAtMs: number): void {
    const attachedAt = this.attachedAt.get(clientId) ?? this.base.now();
    this.store.save(clientId, frozenAtMs, attachedAt);
    this.frozen.set(clientId, frozenAtMs);
    this.attachedAt.set(clientId, attachedAt);
  }

  /** Moves an attached clock (forward only: the caller checks); false when it was detached meanwhile. */
  set(clientId: string, nowMs: number): boolean {
    if (!this.isClocked(clientId)) return false;
    this.attach(clientId, nowMs);
    return true;
  }

  /** Where the advance under way (or cut short by a crash) is moving this clock; null when none is. */
  advancingTo(clientId: string): number | null {
    return this.targets.get(clientId) ?? null;
  }

  /** Clocks with an advance's target stored: at start, before any advance runs, those a crash cut short. */
  unfinishedAdvances(): { clientId: string; nowMs: number; targetMs: number }[] {
    return [...this.targets].map(([clientId, targetMs]) => ({ clientId, nowMs: this.now(clientId), targetMs }));
  }

  /** Stores an advance's target before it fires anything. */
  beginAdvance(clientId: string, targetMs: number): void {
    this.store.saveTarget(clientId, targetMs);
    this.targets.set(clientId, targetMs);
  }

  /** Moves an attached clock to its advance's target and forgets the target together (the caller checks it is attached). */
  finishAdvance(clientId: string, targetMs: number): void {
    this.store.saveReached(clientId, targetMs);
    this.frozen.set(clientId, targetMs);
    this.targets.delete(clientId);
  }

  /** Back to the Bank's clock; an advance's stored target goes with the clock. */
  detach(clientId: string): boolean {
    // The store first, as every other change: settlement reads test_clocks, and a failed write must leave both alike.
    const removed = this.store.remove(clientId);
    this.frozen.delete(clientId);
    this.attachedAt.delete(clientId);
    this.targets.delete(clientId);
    return removed;
  }

  /** After a reset deleted the rows: forget clocks the store no longer has. */
  reload(): void {
    const kept = new Set(this.store.all().map((row) => row.clientId));
    for (const clientId of [...this.frozen.keys()]) if (!kept.has(clientId)) (this.frozen.delete(clientId), this.attachedAt.delete(clientId), this.targets.delete(clientId));
  }
}
