// Accepts orders and moves them through the state machine. Every change is written with its history entry and,
// through the OutboxWriter, its outgoing message, in one SQLite transaction. Dedupe by reference happens here
// and nowhere else: a push and a pull of the same reference make one order.
import { PaymentOrder } from '../../wire/payment-order';
import { randomHex } from '../../wire/random-ids';
import { BankReferences } from '../domain/bank-reference';
import { Order, OrderSource, PolledOrder } from '../domain/order';
import { FinalOutcome, isFinal, StatusChange, TargetStatus, transition } from '../domain/order-state';
import { CompiledRule, Decision, decideScenario, formatScenario, planFor, SettlementPlan } from '../domain/scenarios';
import { CreateFailureRepository } from '../store/create-failures';
import { Db } from '../store/db';
import { HistoryEntry, OrderRepository } from '../store/orders';
import { ClientClocks } from './clocks';
import { OutboxWriter } from './outbox-writer';
import { EventSink, NO_EVENTS } from './events';
import { inTransaction } from '../store/group-commit';

export interface AcceptedOrder {
  order: Order;
  plan: SettlementPlan;
}

/** What acceptNew did: stored a new order, or found the reference taken by an earlier one. */
export type AcceptOutcome = ({ accepted: true } & AcceptedOrder) | { accepted: false; existing: Order };

/** The control plane asked to settle an order that is already final (409 order_final). */
export class OrderFinalError extends Error {
  constructor(readonly order: Order) {
    super(`order ${order.reference} of ${order.clientId} is already ${order.status}`);
  }
}

/** What a status poll is answered (POLL_429 and POLL_404 scenarios aside, the order as it stands). */
export type PollAnswer = { answer: 'status'; order: PolledOrder } | { answer: 'throttled' } | { answer: 'not_found' };

function targetOf(initial: SettlementPlan['initial']): TargetStatus {
  return initial === 'PENDING' ? { status: 'PENDING' } : initial;
}

function deferredTarget(order: Order): FinalOutcome {
  return (order.finalStatus === 'FAILED' ? { status: 'FAILED', reasonCode: order.finalReasonCode } : { status: 'SUCCESS' }) as FinalOutcome;
}

export class OrderBook {
  private readonly bankReferences = new BankReferences(randomHex);

  constructor(
    private readonly db: Db,
    private readonly orders: OrderRepository,
    private readonly createFailures: CreateFailureRepository,
    private readonly outbox: OutboxWriter,
    private readonly clocks: ClientClocks,
    private readonly rules: readonly CompiledRule[],
    private readonly events: EventSink = NO_EVENTS,
  ) {}

  /** Runs `work` in one transaction; inside the caller's own it simply joins it (no savepoint on the hot path). */
  inTransaction<T>(work: () => T): T {
    return inTransaction(this.db, work);
  }

  /** The scenario the order follows (profile section 8). */
  decide(payment: PaymentOrder): Decision {
    return decideScenario(payment, this.rules);
  }

  /**
   * Stores the order with its decided scenario and first status, unless its reference exists for this client.
   * `json`: the order as the JSON text it was parsed from, when there is one (a create's body); else it is serialised.
   */
  acceptNew(clientId: string, payment: PaymentOrder, source: OrderSource, decision: Decision = this.decide(payment), json?: string): AcceptOutcome {
    return this.inTransaction(() => {
      const accepted = this.accept(clientId, payment, source, decision, json ?? JSON.stringify(payment));
      return accepted ? { accepted: true, ...accepted } : { accepted: false, existing: this.orders.find(clientId, payment.reference) as Order };
    });
  }

  /**
   * FAIL_ONCE: true for the first create of this client's reference, which then stores nothing but the memory of
   * it. A reference that is already an order (pulled, say) is not failed: its create is a duplicate_reference.
   */
  failsFirstCreate(clientId: string, payment: PaymentOrder, decision: Decision): boolean {
    if (!planFor(decision.scenario).failFirstCreate || this.orders.find(clientId, payment.reference)) return false;
    return this.createFailures.recordFirst(clientId, payment.reference, this.clocks.now(clientId));
  }

  /**
   * A status poll: POLL_429 throttles its first polls, then POLL_404 hides the order, else it settles if due. The
   * throttle goes first because it wraps the scenario it names (`POLL_429:2:POLL_404`: two 429s, then 404s).
   */
  poll(order: PolledOrder): PollAnswer {
    if (order.pollsToThrottle > 0 && this.orders.spendThrottledPoll(order.clientId, order.reference)) return { answer: 'throttled' };
    if (order.pollAnswer === 'not_found') return { answer: 'not_found' };
    return { answer: 'status', order: this.settleIfDue(order) };
  }

  /** Applies the deferred final status of a due PENDING order; returns the order as it now stands. */
  settleIfDue<T extends Pick<Order, 'clientId' | 'reference' | 'status' | 'settleAt' | 'finalStatus'>>(order: T): T | Order {
    const now = this.clocks.now(order.clientId);
    if (order.status !== 'PENDING' || order.settleAt === null || order.settleAt > now || order.finalStatus === null) return order;
    return this.inTransaction(() => {
      const current = this.orders.find(order.clientId, order.reference);
      if (!current || isFinal(current.status) || current.settleAt === null || current.settleAt > now) return current ?? order;
      // The final is dated when the scenario delay elapsed, not when someone happened to look.
      const change = transition(current.status, deferredTarget(current), Math.min(current.settleAt, now));
      return this.applyChange(current, change, 'scenario delay elapsed');
    });
  }

  /**
   * Settles a non-final order now, exactly as its scheduled settlement would (same outbox, same callback; a
   * NO_CALLBACK order changes for reverse polling and stays silent). Throws OrderFinalError on a final order.
   */
  forceOutcome(clientId: string, reference: string, outcome: FinalOutcome, reasonMessage?: string): Order | undefined {
    return this.inTransaction(() => {
      const current = this.orders.find(clientId, reference);
      if (!current) return undefined;
      if (isFinal(current.status)) throw new OrderFinalError(current);
      const change = transition(current.status, outcome, this.clocks.now(clientId));
      if (reasonMessage !== undefined && change.to === 'FAILED') change.reasonMessage = reasonMessage;
      return this.applyChange(current, change, 'outcome forced by the control plane');
    });
  }

  /**
   * Settles every due order on the Bank's clock, oldest first, in batches; returns how many changed. Clients with
   * a test clock are left alone: their work runs only when their clock is advanced (settleDueOf).
   */
  settleAllDue(batchSize = 500): number {
    return this.settleBatches(() => this.orders.dueForSettlement(this.clocks.base.now(), batchSize), batchSize);
  }

  /**
   * One batch of settleAllDue: settles up to `batchSize` orders due on the Bank's clock, oldest first. `more`: a full
   * batch that changed something, so more may be due (the settlement tick yields to the event loop, then asks again).
   */
  settleDueBatch(batchSize = 500): { settled: number; more: boolean } {
    const due = this.orders.dueForSettlement(this.clocks.base.now(), batchSize);
    let settled = 0;
    for (const order of due) if (this.settleIfDue(order).status !== 'PENDING') settled += 1;
    return { settled, more: due.length === batchSize && settled > 0 };
  }

  /** Settles one client's orders due by its own clock, oldest first (a test clock advance). */
  settleDueOf(clientId: string, batchSize = 500): Order[] {
    const settled: Order[] = [];
    this.settleBatches(() => this.orders.dueForSettlement(this.clocks.now(clientId), batchSize, { onlyClient: clientId }), batchSize, settled);
    return settled;
  }

  /** The earliest settle_at of a client's PENDING orders, if any (what a clock advance fires next). */
  nextSettlementOf(clientId: string): number | null {
    return this.orders.nextSettlementOf(clientId);
  }

  private settleBatches(nextBatch: () => Order[], batchSize: number, into: Order[] = []): number {
    let settled = 0;
    for (;;) {
      const due = nextBatch();
      const before = settled;
      for (const order of due) {
        const after = this.settleIfDue(order);
        if (after.status !== 'PENDING') (settled += 1, into.push(after));
      }
      if (due.length < batchSize || settled === before) return settled;
    }
  }

  find(clientId: string, reference: string): Order | undefined {
    return this.orders.find(clientId, reference);
  }

  /** What a status poll reads of an order (poll takes it). */
  findPolled(clientId: string, reference: string): PolledOrder | undefined {
    return this.orders.findPolled(clientId, reference);
  }

  history(clientId: string, reference: string): HistoryEntry[] {
    return this.orders.history(clientId, reference);
  }

  count(): number {
    return this.orders.count();
  }

  /** Stores a new order (its acceptance in its row), its outgoing report and event; null, storing nothing, for a taken reference. */
  private accept(clientId: string, payment: PaymentOrder, source: OrderSource, decision: Decision, payload: string): AcceptedOrder | null {
    const now = this.clocks.now(clientId);
    const plan = planFor(decision.scenario);
    const change = transition(null, targetOf(plan.initial), now);
    const deferred: FinalOutcome | null = plan.deferred?.final ?? null;
    const order: Order = {
      clientId,
      reference: payment.reference,
      bankReference: this.bankReferences.next(now),
      source,
      status: change.to,
      reasonCode: change.reasonCode,
      reasonMessage: change.reasonMessage,
      scenario: formatScenario(decision.scenario),
      scenarioSource: decision.source,
      responseMode: plan.response,
      callbacks: plan.callbacks,
      pollsToThrottle: plan.pollsToThrottle,
      pollAnswer: plan.pollAnswer,
      settleAt: plan.deferred ? now + plan.deferred.delayS * 1000 : null,
      finalStatus: deferred?.status ?? null,
      finalReasonCode: deferred?.status === 'FAILED' ? deferred.reasonCode : null,
      initiatedAt: payment.initiated_at,
      initiatedAtMs: Date.parse(payment.initiated_at),
      totalAmount: payment.total_amount,
      currency: payment.currency,
      payload,
      createdAt: now,
      processedAt: now,
    };
    if (!this.orders.insertIfNew(order, change, `accepted via ${source} (${decision.source}: ${order.scenario})`)) return null;
    this.outbox.record(order, change);
    this.events.publish('order.created', clientId, { client_id: clientId, reference: order.reference, bank_reference: order.bankReference, status: order.status, from: null, source });
    return { order, plan };
  }

  /** The one place a status changes after acceptance: order row, history row and outgoing message together. */
  private applyChange(current: Order, change: StatusChange, cause: string): Order {
    this.orders.applyChange(current.clientId, current.reference, change, cause);
    const updated = this.orders.find(current.clientId, current.reference) as Order;
    this.outbox.record(updated, change);
    this.events.publish('order.status_changed', updated.clientId, { client_id: updated.clientId, reference: updated.reference, bank_reference: updated.bankReference, status: updated.status, from: current.status });
    return updated;
  }
}
