// Delivers the outbox: groups queued status events into frozen callback messages (unit or batch),
// then sends due messages, recording every attempt and retrying on the schedule until a 200 or the horizon.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'winston';
import { batchCallbackBody, nextAttemptAt, RetryPolicy, StatusReport, unitCallbackBody, unitIdempotencyKey } from '../domain/callbacks';
import { Clock } from '../../wire/clock';
import { OutboxRepository, CallbackRow, StatusEventRow } from '../store/outbox';
import { ConnectorClient, ConnectorResponse } from './connector-client';

export const UNIT_CALLBACK_PATH = '/callbacks/orders/status';
export const BATCH_CALLBACK_PATH = '/callbacks/orders/status/batch';

export interface DispatcherOptions {
  batchSize: number;
  batchWindowMs: number;
  autoBatchThreshold: number;
  retry: RetryPolicy;
  concurrency: number;
  allowPlainHttp: boolean;
}

const QUEUE_SCAN_LIMIT = 5000;
const RESPONSE_BODY_LIMIT = 2048;

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
function attemptError(response: ConnectorResponse): string | null {
  return response.status === 200 ? null : (response.error ?? `HTTP ${response.status}`);
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size));
  return chunks;
}

export class Dispatcher {
  private cycle: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly connectors: readonly ConnectorClient[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {}

  /** One build+deliver pass over every Connector; concurrent calls share the pass in progress. */
  runOnce(): Promise<number> {
    if (!this.cycle) {
      this.cycle = Promise.all(this.connectors.map((connector) => this.runFor(connector)))
        .then((counts) => counts.reduce((total, count) => total + count, 0))
        .finally(() => {
          this.cycle = null;
        });
    }
    return this.cycle;
  }

  /** No new pass or delivery starts after this. */
  halt(): void {
    this.stopped = true;
  }

  /** Halts, then lets in-flight deliveries finish. */
  async stop(): Promise<void> {
    this.halt();
    await this.cycle;
  }

  private async runFor(connector: ConnectorClient): Promise<number> {
    if (this.stopped) return 0;
    this.buildMessages(connector);
    return this.deliverDue(connector);
  }

  /** Turns eligible queued events into frozen messages, in one transaction. Returns how many messages it made. */
  buildMessages(connector: ConnectorClient): number {
    const { clientId, callbackMode, baseUrl } = connector.settings;
    return this.outbox.db.transaction(() => {
      const now = this.clock.now();
      const eligible = this.eligibleEvents(clientId);
      const duplicates = eligible.filter((event) => event.copies > 1);
      const singles = eligible.filter((event) => event.copies === 1);
      const useBatch = callbackMode === 'batch' || (callbackMode === 'auto' && singles.length > this.options.autoBatchThreshold);
      let made = 0;
      for (const event of useBatch ? duplicates : eligible) {
        this.createUnit(clientId, `${baseUrl}${UNIT_CALLBACK_PATH}`, event, now);
        made += 1;
      }
      if (useBatch) made += this.createBatches(clientId, `${baseUrl}${BATCH_CALLBACK_PATH}`, singles, now);
      return made;
    })();
  }

  /** Queued events that may go now: one per order, never behind an undelivered earlier report of that order. */
  private eligibleEvents(clientId: string): StatusEventRow[] {
    const seen = new Set<string>();
    const eligible: StatusEventRow[] = [];
    for (const event of this.outbox.queued(clientId, QUEUE_SCAN_LIMIT)) {
      if (event.status === 'PENDING' && this.outbox.hasLaterFinal(event)) {
        this.outbox.supersede(event.id);
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

  private createUnit(clientId: string, url: string, event: StatusEventRow, now: number): void {
    const body = Buffer.from(JSON.stringify(unitCallbackBody(reportOf(event))));
    const idempotencyKey = unitIdempotencyKey(event.bankReference, event.status);
    this.outbox.createCallback({ clientId, kind: 'unit', idempotencyKey, url, body, copiesLeft: event.copies, nextAttemptAt: now, createdAt: now }, [event.id]);
  }

  /** Full batches go at once; a partial one waits until its oldest event is BATCH_WINDOW_MS old. */
  private createBatches(clientId: string, url: string, events: StatusEventRow[], now: number): number {
    let made = 0;
    for (const group of chunk(events, this.options.batchSize)) {
      const full = group.length === this.options.batchSize;
      if (!full && now - group[0].createdAt < this.options.batchWindowMs) break;
      const batchId = `batch-${randomUUID()}`;
      const body = Buffer.from(JSON.stringify(batchCallbackBody(batchId, now, group.map(reportOf))));
      this.outbox.createCallback(
        { clientId, kind: 'batch', idempotencyKey: batchId, url, body, copiesLeft: 1, nextAttemptAt: now, createdAt: now },
        group.map((event) => event.id),
      );
      made += 1;
    }
    return made;
  }

  /**
   * Sends every due message of one Connector with bounded concurrency, then records all outcomes in one
   * transaction (one commit per pass, not per callback). A crash before that commit only means a redelivery
   * with the same key and bytes. Returns how many were attempted.
   */
  async deliverDue(connector: ConnectorClient): Promise<number> {
    const due = this.outbox.due(connector.settings.clientId, this.clock.now(), this.options.concurrency * 8);
    const outcomes: { callback: CallbackRow; startedAt: number; response: ConnectorResponse }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < due.length && !this.stopped) {
        const callback = due[next];
        next += 1;
        const startedAt = this.clock.now();
        outcomes.push({ callback, startedAt, response: await this.send(connector, callback) });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, due.length) }, worker));
    this.outbox.db.transaction(() => {
      for (const outcome of outcomes) this.recordOutcome(outcome.callback, outcome.startedAt, outcome.response);
    })();
    for (const outcome of outcomes) this.logOutcome(outcome.callback, outcome.response);
    return outcomes.length;
  }

  private send(connector: ConnectorClient, callback: CallbackRow): Promise<ConnectorResponse> {
    if (callback.url.startsWith('http://') && !this.options.allowPlainHttp) {
      return Promise.resolve({ status: null, body: '', latencyMs: 0, error: 'refused: callbacks to http:// Connectors are sent only with SANDBOX_MODE=relaxed' });
    }
    return connector.postCallback(callback.url, callback.idempotencyKey, callback.body);
  }

  private recordOutcome(callback: CallbackRow, startedAt: number, response: ConnectorResponse): void {
    const attempt = callback.attempts + 1;
    const error = attemptError(response);
    this.outbox.recordAttempt({
      callbackId: callback.id,
      attempt,
      startedAt,
      url: callback.url,
      statusCode: response.status,
      latencyMs: response.latencyMs,
      error,
      responseBody: response.body.slice(0, RESPONSE_BODY_LIMIT) || null,
    });
    const now = this.clock.now();
    if (error === null) {
      if (callback.copiesLeft > 1) this.outbox.markResend(callback.id, now);
      else this.outbox.markDelivered(callback.id, now);
      return;
    }
    const retryAt = nextAttemptAt(this.options.retry, attempt, callback.createdAt, now, Math.random);
    if (retryAt === null) this.outbox.markDead(callback.id, error);
    else this.outbox.scheduleRetry(callback.id, retryAt, error);
  }

  private logOutcome(callback: CallbackRow, response: ConnectorResponse): void {
    const attempt = callback.attempts + 1;
    const error = attemptError(response);
    const context = { callback_id: callback.id, kind: callback.kind, idempotency_key: callback.idempotencyKey, attempt, status: response.status, latency_ms: response.latencyMs };
    if (error === null) this.logger.debug('callback delivered', context);
    else this.logger.warn('callback attempt failed', { ...context, error });
  }
}
