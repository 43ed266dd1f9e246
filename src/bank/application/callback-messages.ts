// The outbox's delivery side, as Svix models it: queued status reports are frozen into messages (unit or
// batch: key, URL and body bytes fixed once), each send is an attempt that is recorded, and retries follow the
// schedule until a 200 or the horizon (then the message is dead). Sending itself is the dispatcher's job.
import { randomUUID } from 'node:crypto';
import { batchCallbackBody, nextAttemptAt, RetryPolicy, StatusReport, unitCallbackBody, unitIdempotencyKey } from '../domain/callbacks';
import { Db } from '../store/db';
import { CallbackRow, OutboxRepository, StatusEventRow } from '../store/outbox';
import { EventSink, NO_EVENTS } from './events';
import { ClientClocks } from './clocks';
import { withinLast } from '../../wire/clock';

export const UNIT_CALLBACK_PATH = '/callbacks/orders/status';
export const BATCH_CALLBACK_PATH = '/callbacks/orders/status/batch';

export type CallbackMode = 'unit' | 'batch' | 'auto';

/** A message's state after an attempt (the outbox's states), or `gone`: deleted (a reset) while it was being sent. */
export type MessageState = CallbackRow['state'] | 'gone';

/** Where and how one Connector is called back. */
export interface CallbackTarget {
  clientId: string;
  baseUrl: string;
  callbackMode: CallbackMode;
}

export interface MessageSettings {
  batchSize: number;
  batchWindowMs: number;
  autoBatchThreshold: number;
  retry: RetryPolicy;
}

/** What one send of a message got back: an HTTP status, or a network error. */
export interface AttemptResult {
  status: number | null;
  body: string;
  latencyMs: number;
  error: string | null;
}

export interface AttemptOutcome {
  callback: CallbackRow;
  startedAt: number;
  /** When the answer (or the error) came back, on the client's clock. */
  endedAt: number;
  response: AttemptResult;
}

const QUEUE_SCAN_LIMIT = 5000;
const RESPONSE_BODY_LIMIT = 2048;

/** What one freeze makes of the eligible reports (CallbackMessages.plan). */
interface FreezePlan {
  units: StatusEventRow[];
  batches: StatusEventRow[][];
  /** The partial batch still inside its window, or null. */
  waiting: StatusEventRow[] | null;
}

function reportOf(event: StatusEventRow): StatusReport {
  return {
    reference: event.reference,
    bankReference: event.bankReference,
    status: event.status,
    reasonCode: event.reasonCode,
    reasonMessage: event.reasonMessage,
    processedAt: event.processedAt,
  };
}

/** Only a 200 counts as delivered. */
export function attemptError(response: AttemptResult): string | null {
  return response.status === 200 ? null : (response.error ?? `HTTP ${response.status}`);
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size));
  return chunks;
}

export class CallbackMessages {
  /**
   * Messages taken for sending and not yet recorded: no other pass (the interval's, a test clock's advance) takes
   * them meanwhile, so a message is never sent twice at once.
   */
  private readonly sending = new Set<number>();
  /** Redeliveries asked for while the message was being sent: applied once its attempt is recorded. */
  private readonly redeliverAfterAttempt = new Set<number>();
  /**
   * Messages whose attempt the store refused to record (a full disk), by id: not taken again before this time on the
   * Bank's clock. Still pending and due in the store, they were taken again at once, so a full disk made the Bank
   * send the same callbacks ~1,300 times a second until space came back.
   */
  private readonly heldUntil = new Map<number, number>();

  constructor(
    private readonly db: Db,
    private readonly outbox: OutboxRepository,
    private readonly clocks: ClientClocks,
    private readonly settings: MessageSettings,
    private readonly events: EventSink = NO_EVENTS,
  ) {}

  /** Turns eligible queued reports into frozen messages, in one transaction. Returns how many messages it made. */
  freeze(target: CallbackTarget): number {
    const { clientId, baseUrl } = target;
    return this.db.transaction(() => {
      const now = this.clocks.now(clientId);
      const plan = this.plan(target.callbackMode, this.eligibleEvents(clientId, true), now);
      for (const event of plan.units) this.createUnit(clientId, `${baseUrl}${UNIT_CALLBACK_PATH}`, event, now);
      for (const group of plan.batches) this.createBatch(clientId, `${baseUrl}${BATCH_CALLBACK_PATH}`, group, now);
      return plan.units.length + plan.batches.length;
    })();
  }

  /**
   * Sends one message again, same bytes and key, with a new attempt record; false for an unknown id. Asked while the
   * message is being sent, it waits for that attempt's record, which would otherwise overwrite it (a 200 marks the
   * message delivered).
   */
  redeliver(messageId: number): boolean {
    const message = this.outbox.find(messageId);
    if (message === undefined) return false;
    if (this.sending.has(messageId)) {
      this.redeliverAfterAttempt.add(messageId);
      return true;
    }
    return this.outbox.redeliver(messageId, this.clocks.now(message.clientId));
  }

  /** Sends every message in `state` (dead, typically) again, of one client or all; returns their ids. */
  redeliverAll(state: 'dead' | 'delivered' | 'pending', clientId: string | null): number[] {
    return this.db.transaction(() => {
      const ids = this.outbox.idsInState(state, clientId);
      for (const id of ids) this.redeliver(id);
      return ids;
    })();
  }

  /**
   * When this client's outgoing work is next due by its clock: a message's next attempt, or the freezing of a queued
   * report that may go: when it was queued if it would go in a unit callback or a full batch, or when its partial
   * batch's window closes. A report waiting behind an undelivered earlier report of its order is not due by itself:
   * it may go once an attempt has delivered that one (or it went dead). Null when nothing waits.
   */
  nextDueOf(target: CallbackTarget): number | null {
    const attempt = this.outbox.nextAttemptOf(target.clientId);
    const frozen = this.nextFreezeOf(target);
    if (attempt === null) return frozen;
    return frozen === null ? attempt : Math.min(attempt, frozen);
  }

  /**
   * Takes up to `limit` messages whose next attempt is due, oldest first, and not already being sent. Each one taken
   * is recorded (recordAttempts) or handed back (putBack).
   */
  take(clientId: string, limit: number): CallbackRow[] {
    const due = this.outbox.due(clientId, this.clocks.now(clientId), limit + this.sending.size + this.heldUntil.size);
    const excluded = this.sending.size > 0 || this.heldUntil.size > 0;
    const taken = (excluded ? due.filter((callback) => !this.sending.has(callback.id) && !this.isHeld(callback.id)) : due).slice(0, limit);
    for (const callback of taken) this.sending.add(callback.id);
    return taken;
  }

  /**
   * Messages taken whose attempt was not recorded (a pause or a stop before the send, a failed write): still pending
   * and due in the store, so they go at the next pass, which also does what a redelivery asked meanwhile would.
   */
  putBack(callbacks: readonly CallbackRow[]): void {
    for (const callback of callbacks) {
      this.sending.delete(callback.id);
      this.redeliverAfterAttempt.delete(callback.id);
    }
  }

  /**
   * Messages taken and sent whose attempts the store refused to record: handed back, not to be taken again for the
   * first delay of RETRY_SCHEDULE (at least 1 s). Returns that delay.
   */
  holdBack(callbacks: readonly CallbackRow[]): number {
    this.putBack(callbacks);
    const holdMs = Math.max(1000, (this.settings.retry.scheduleS[0] ?? 0) * 1000);
    const until = this.clocks.base.now() + holdMs;
    for (const callback of callbacks) this.heldUntil.set(callback.id, until);
    return holdMs;
  }

  private isHeld(messageId: number): boolean {
    const until = this.heldUntil.get(messageId);
    if (until === undefined) return false;
    if (this.clocks.base.now() < until) return true;
    this.heldUntil.delete(messageId);
    return false;
  }

  /**
   * Records a pass's attempts in one transaction (one commit per pass, not per callback). A crash before that
   * commit only means a redelivery with the same key and bytes.
   */
  recordAttempts(outcomes: readonly AttemptOutcome[]): MessageState[] {
    return this.db.transaction(() =>
      outcomes.map((outcome) => {
        const state = this.recordAttempt(outcome);
        return this.endSending(outcome.callback) ? 'pending' : state;
      }),
    )();
  }

  /** No longer being sent, its attempt recorded; applies a redelivery asked meanwhile (then true). */
  private endSending(callback: CallbackRow): boolean {
    this.sending.delete(callback.id);
    if (!this.redeliverAfterAttempt.delete(callback.id)) return false;
    return this.outbox.redeliver(callback.id, this.clocks.now(callback.clientId));
  }

  /**
   * Queued reports that may go now: one per order, never behind an undelivered earlier report of that order. A
   * PENDING not yet sent is moot once a final of its order is queued: marked superseded when `supersede` is set
   * (a freeze), skipped either way.
   */
  private eligibleEvents(clientId: string, supersede: boolean): StatusEventRow[] {
    const seen = new Set<string>();
    const eligible: StatusEventRow[] = [];
    for (const event of this.outbox.queued(clientId, QUEUE_SCAN_LIMIT)) {
      if (event.status === 'PENDING' && this.outbox.hasLaterFinal(event)) {
        if (supersede) this.outbox.supersede(event.id);
        continue;
      }
      if (seen.has(event.reference) || this.outbox.isBlocked(event)) {
        seen.add(event.reference);
        continue;
      }
      seen.add(event.reference);
      eligible.push(event);
    }
    return eligible;
  }

  /**
   * What a freeze at `now` makes of the eligible reports: unit callbacks (every report in unit mode, and a report
   * sent more than once in any mode), full batches, and a partial batch once BATCH_WINDOW_MS has passed since its
   * oldest report; `waiting` is the partial batch still inside its window.
   */
  private plan(mode: CallbackMode, eligible: StatusEventRow[], now: number): FreezePlan {
    const singles = eligible.filter((event) => event.copies === 1);
    const useBatch = mode === 'batch' || (mode === 'auto' && singles.length > this.settings.autoBatchThreshold);
    if (!useBatch) return { units: eligible, batches: [], waiting: null };
    const batches = chunk(singles, this.settings.batchSize);
    const last = batches[batches.length - 1];
    const waiting = last && last.length < this.settings.batchSize && withinLast(this.settings.batchWindowMs, last[0].createdAt, now) ? last : null;
    return { units: eligible.filter((event) => event.copies > 1), batches: waiting ? batches.slice(0, -1) : batches, waiting };
  }

  /** When a freeze would next make a message of this client's queued reports (a freeze of its own). */
  private nextFreezeOf(target: CallbackTarget): number | null {
    const now = this.clocks.now(target.clientId);
    const plan = this.plan(target.callbackMode, this.eligibleEvents(target.clientId, false), now);
    const goNow = [...plan.units, ...plan.batches.flat()];
    if (goNow.length > 0) return Math.min(...goNow.map((event) => event.createdAt));
    return plan.waiting ? plan.waiting[0].createdAt + this.settings.batchWindowMs : null;
  }

  private createUnit(clientId: string, url: string, event: StatusEventRow, now: number): void {
    const body = Buffer.from(JSON.stringify(unitCallbackBody(reportOf(event))));
    const idempotencyKey = unitIdempotencyKey(event.bankReference, event.status);
    this.outbox.createCallback({ clientId, kind: 'unit', idempotencyKey, url, body, copiesLeft: event.copies, nextAttemptAt: now, createdAt: now }, [event.id]);
  }

  private createBatch(clientId: string, url: string, group: StatusEventRow[], now: number): void {
    const batchId = `batch-${randomUUID()}`;
    const body = Buffer.from(JSON.stringify(batchCallbackBody(batchId, now, group.map(reportOf))));
    this.outbox.createCallback(
      { clientId, kind: 'batch', idempotencyKey: batchId, url, body, copiesLeft: 1, nextAttemptAt: now, createdAt: now },
      group.map((event) => event.id),
    );
  }

  /** Records one attempt; returns the message's state after it (`gone` when a reset deleted it meanwhile). */
  private recordAttempt({ callback, startedAt, endedAt, response }: AttemptOutcome): MessageState {
    const attempt = callback.attempts + 1;
    const error = attemptError(response);
    const recorded = this.outbox.recordAttempt({
      callbackId: callback.id,
      attempt,
      startedAt,
      url: callback.url,
      statusCode: response.status,
      latencyMs: response.latencyMs,
      error,
      responseBody: response.body.slice(0, RESPONSE_BODY_LIMIT) || null,
    });
    if (!recorded) return 'gone';
    const event = { client_id: callback.clientId, message_id: callback.id, idempotency_key: callback.idempotencyKey, http_status: response.status, error };
    this.events.publish('callback.attempted', callback.clientId, { ...event, attempt });
    // Dated by the attempt's own end, not by the end of the pass: a slow neighbour in the same pass must not push
    // this message's retry (or its delivery time) later.
    const attemptEnd = endedAt;
    if (error === null) {
      if (callback.copiesLeft > 1) {
        this.outbox.markResend(callback.id, attemptEnd);
        return 'pending';
      }
      this.outbox.markDelivered(callback.id, attemptEnd);
      this.events.publish('callback.delivered', callback.clientId, event);
      return 'delivered';
    }
    const retryAt = nextAttemptAt(this.settings.retry, attempt, callback.createdAt, attemptEnd, Math.random);
    if (retryAt === null) {
      this.outbox.markDead(callback.id, error);
      this.events.publish('callback.dead', callback.clientId, event);
      return 'dead';
    }
    this.outbox.scheduleRetry(callback.id, retryAt, error);
    return 'pending';
  }
}
