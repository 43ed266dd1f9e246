// Accepts orders and moves them through the state machine. Each change and its history row (and, through
// the listeners, its outbox row) are written in one SQLite transaction.
import { randomHex } from '../../wire/random-ids';
import { Clock } from '../../wire/clock';
import { PaymentOrder } from '../../wire/payment-order';
import { FinalOutcome, isFinal, StatusChange, TargetStatus, transition } from '../domain/order-state';
import { CompiledRule, decideScenario, formatScenario, planFor, SettlementPlan } from '../domain/scenarios';
import { Db } from '../store/db';
import { OrderRecord, OrderRepository } from '../store/orders';

/** Called inside the transaction of every status change, after the order row is written. */
export type StatusChangeListener = (order: OrderRecord, change: StatusChange, cause: string) => void;

export interface AcceptedOrder {
  record: OrderRecord;
  plan: SettlementPlan;
}

export function newBankReference(nowMs: number): string {
  const day = new Date(nowMs).toISOString().slice(0, 10).replace(/-/g, '');
  return `SBK${day}${randomHex(16)}`;
}

function targetOf(initial: SettlementPlan['initial']): TargetStatus {
  return initial === 'PENDING' ? { status: 'PENDING' } : initial;
}

export class OrderBook {
  private readonly listeners: StatusChangeListener[] = [];

  constructor(
    private readonly db: Db,
    readonly orders: OrderRepository,
    private readonly clock: Clock,
    private readonly rules: readonly CompiledRule[],
  ) {}

  onStatusChange(listener: StatusChangeListener): void {
    this.listeners.push(listener);
  }

  /** Decides the scenario and stores the order with its first status. Call inside a transaction. */
  accept(clientId: string, order: PaymentOrder, source: 'push' | 'pull'): AcceptedOrder {
    const now = this.clock.now();
    const decision = decideScenario(order, this.rules);
    const plan = planFor(decision.scenario);
    const change = transition(null, targetOf(plan.initial), now);
    const deferred: FinalOutcome | null = plan.deferred?.final ?? null;
    const record: OrderRecord = {
      clientId,
      reference: order.reference,
      bankReference: newBankReference(now),
      source,
      status: change.to,
      reasonCode: change.reasonCode,
      reasonMessage: change.reasonMessage,
      scenario: formatScenario(decision.scenario),
      scenarioSource: decision.source,
      responseMode: plan.response,
      callbacks: plan.callbacks,
      settleAt: plan.deferred ? now + plan.deferred.delayS * 1000 : null,
      finalStatus: deferred?.status ?? null,
      finalReasonCode: deferred?.status === 'FAILED' ? deferred.reasonCode : null,
      initiatedAt: order.initiated_at,
      initiatedAtMs: Date.parse(order.initiated_at),
      totalAmount: order.total_amount,
      currency: order.currency,
      payload: JSON.stringify(order),
      createdAt: now,
      processedAt: now,
    };
    this.orders.insert(record, change, `accepted via ${source} (${decision.source}: ${record.scenario})`);
    this.notify(record, change, 'accepted');
    return { record, plan };
  }

  /** Applies the deferred final status of a due PENDING order; returns the order as it now stands. */
  settleIfDue(record: OrderRecord): OrderRecord {
    const now = this.clock.now();
    if (record.status !== 'PENDING' || record.settleAt === null || record.settleAt > now || record.finalStatus === null) return record;
    return this.db.transaction(() => {
      const current = this.orders.find(record.clientId, record.reference);
      if (!current || isFinal(current.status) || current.settleAt === null || current.settleAt > now) return current ?? record;
      const target = (current.finalStatus === 'FAILED'
        ? { status: 'FAILED', reasonCode: current.finalReasonCode }
        : { status: 'SUCCESS' }) as FinalOutcome;
      // The final is dated when the scenario delay elapsed, not when someone happened to look.
      const change = transition(current.status, target, Math.min(current.settleAt, now));
      this.orders.applyChange(current.clientId, current.reference, change, 'scenario delay elapsed');
      const updated = this.orders.find(current.clientId, current.reference) as OrderRecord;
      this.notify(updated, change, 'settled');
      return updated;
    })();
  }

  /** Settles every due order, oldest first, in batches; returns how many changed. */
  settleAllDue(batchSize = 500): number {
    let settled = 0;
    for (;;) {
      const due = this.orders.dueForSettlement(this.clock.now(), batchSize);
      const before = settled;
      for (const record of due) if (this.settleIfDue(record).status !== 'PENDING') settled += 1;
      if (due.length < batchSize || settled === before) return settled;
    }
  }

  private notify(record: OrderRecord, change: StatusChange, cause: string): void {
    for (const listener of this.listeners) listener(record, change, cause);
  }
}
