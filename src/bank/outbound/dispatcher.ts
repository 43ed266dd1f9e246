// Sends the outbox's due messages to each Connector with bounded concurrency. Freezing messages and recording
// attempts (with their retry schedule) are the application's CallbackMessages; this is the network half.
import type { Logger } from 'winston';
import { attemptError, AttemptOutcome, CallbackMessages, MessageState, UNIT_CALLBACK_PATH } from '../application/callback-messages';
import { ClientClocks } from '../application/clocks';
import { FaultProfiles } from '../application/fault-profiles';
import { unitCallbackBody, unitIdempotencyKey } from '../domain/callbacks';
import { AttemptFaults, CLEAN_ATTEMPT } from '../domain/faults';
import { CallbackRow } from '../store/outbox';
import { ConnectorClient, ConnectorResponse } from './connector-client';
import { ConnectorDirectory } from './connector-directory';
import { parseJsonText } from '../../wire/json-text';

export { BATCH_CALLBACK_PATH, UNIT_CALLBACK_PATH } from '../application/callback-messages';

export interface DispatcherOptions {
  concurrency: number;
  allowPlainHttp: boolean;
  /** Clients' fault profiles (conformance.md section 4): what to do to each attempt; none when absent. */
  faults?: FaultProfiles;
}

/** Why a callback to `url` is not sent at all (strict mode and a plain-HTTP Connector), or null when it may go. */
export function plainHttpRefusal(url: string, allowPlainHttp: boolean): string | null {
  return url.startsWith('http://') && !allowPlainHttp ? 'refused: callbacks to http:// Connectors are sent only with SANDBOX_MODE=relaxed' : null;
}

/** The extra callback a conflicting_final fault sends: marked in the journal, otherwise clean. */
const CONFLICTING_FINAL: AttemptFaults = { ...CLEAN_ATTEMPT, marks: ['conflicting_final'] };

export class Dispatcher {
  private cycle: Promise<number> | null = null;
  private stopped = false;
  /** Messages waiting out an injected delay: no pass picks them up meanwhile. */
  private readonly delayed = new Set<number>();
  private readonly delayTimers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly messages: CallbackMessages,
    private readonly connectors: ConnectorDirectory,
    private readonly clocks: ClientClocks,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {}

  /** One build+deliver pass over every Connector; concurrent calls share the pass in progress. */
  runOnce(): Promise<number> {
    if (!this.cycle) {
      this.cycle = Promise.all(this.wallClockConnectors().map((connector) => this.runFor(connector)))
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
    for (const timer of this.delayTimers) clearTimeout(timer);
    this.delayTimers.clear();
  }

  /** Halts, then lets in-flight deliveries finish. */
  async stop(): Promise<void> {
    this.halt();
    await this.cycle;
  }

  /** Clients with a test clock are served only by their clock's advance (deliverFor), never by the interval. */
  private wallClockConnectors(): ConnectorClient[] {
    return this.connectors.active().filter((connector) => !this.clocks.isClocked(connector.settings.clientId));
  }

  /**
   * Freezes and sends everything due for one client by its own clock, pass after pass until nothing is due
   * (a test clock advance); a paused client's messages wait. Returns how many attempts were made.
   */
  async deliverFor(clientId: string, maxPasses = 1000): Promise<number> {
    const connector = this.connectors.get(clientId);
    if (!connector || this.connectors.isPaused(clientId)) return 0;
    let attempts = 0;
    for (let pass = 0; pass < maxPasses && !this.stopped; pass += 1) {
      const made = await this.runFor(connector);
      if (made === 0) break;
      attempts += made;
    }
    return attempts;
  }

  /**
   * When a client's deliveries are next due by its own clock (CallbackMessages.nextDueOf), or null when none can go:
   * nothing waits, the client has no Connector, or it is paused.
   */
  nextDueFor(clientId: string): number | null {
    const connector = this.connectors.get(clientId);
    if (!connector || this.connectors.isPaused(clientId)) return null;
    return this.messages.nextDueOf(connector.settings);
  }

  private async runFor(connector: ConnectorClient): Promise<number> {
    if (this.stopped) return 0;
    this.messages.freeze(connector.settings);
    return this.deliverDue(connector);
  }

  /**
   * Sends every due message of one Connector, recording the attempts a `concurrency` at a time as they end, and the
   * rest when the pass ends. Returns how many were attempted (an attempt held back by an injected delay is made and
   * recorded later, on its own).
   *
   * Why not all at once at the end: a pass takes `concurrency × 8` messages, and an attempt that ended early would
   * wait for the slowest one to be stored: a delivered callback shown as pending for seconds behind a slow
   * Connector, and sent again after a crash meanwhile. A chunk is still one transaction for many attempts; the CPU
   * a unit callback costs did not move measurably (bench/README.md, session 19).
   */
  async deliverDue(connector: ConnectorClient): Promise<number> {
    const clientId = connector.settings.clientId;
    const { concurrency } = this.options;
    const due = this.messages.due(clientId, concurrency * 8).filter((callback) => !this.delayed.has(callback.id));
    const pass = this.options.faults?.passOrder(clientId, due) ?? { order: due, moved: new Set<CallbackRow>() };
    const ended: AttemptOutcome[] = [];
    let attempted = 0;
    const recordEnded = () => {
      attempted += ended.length;
      if (ended.length > 0) this.record(ended.splice(0));
    };
    let next = 0;
    const worker = async () => {
      while (next < pass.order.length && !this.stopped) {
        const callback = pass.order[next];
        next += 1;
        const faults = this.options.faults?.forCallbackAttempt(callback, pass.moved.has(callback)) ?? CLEAN_ATTEMPT;
        if (faults.delayMs > 0) {
          this.attemptLater(connector, callback, faults);
          continue;
        }
        ended.push(await this.attempt(connector, callback, faults));
        if (ended.length >= concurrency) recordEnded();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, pass.order.length) }, worker));
    recordEnded();
    return attempted;
  }

  private record(outcomes: AttemptOutcome[]): void {
    const states = this.messages.recordAttempts(outcomes);
    outcomes.forEach((outcome, index) => this.logOutcome(outcome.callback, outcome.response, states[index]));
  }

  /** One attempt; once it delivered the message, the conflicting finals its fault profile asks for. */
  private async attempt(connector: ConnectorClient, callback: CallbackRow, faults: AttemptFaults): Promise<AttemptOutcome> {
    const startedAt = this.clocks.now(callback.clientId);
    const response = await this.send(connector, callback, faults);
    const endedAt = this.clocks.now(callback.clientId);
    if (attemptError(response) === null && callback.copiesLeft <= 1) await this.sendConflictingFinals(connector, callback);
    return { callback, startedAt, endedAt, response };
  }

  /** An injected delay: the attempt is made delay_ms later, on its own, without holding up the pass or other clients. */
  private attemptLater(connector: ConnectorClient, callback: CallbackRow, faults: AttemptFaults): void {
    this.delayed.add(callback.id);
    const timer = setTimeout(() => {
      this.delayTimers.delete(timer);
      if (this.stopped) return void this.delayed.delete(callback.id);
      void this.attempt(connector, callback, faults)
        .then((outcome) => {
          if (!this.stopped) this.record([outcome]);
        })
        .catch((error: unknown) => this.logger.error('delayed callback attempt failed', { callback_id: callback.id, error: (error as Error).message }))
        .finally(() => this.delayed.delete(callback.id));
    }, faults.delayMs);
    timer.unref();
    this.delayTimers.add(timer);
  }

  /**
   * conflicting_final: the opposite final of each final the delivered message carried, as a unit callback under
   * that status's own key. Sent once and only journaled: it is never stored, retried or applied to the order.
   */
  private async sendConflictingFinals(connector: ConnectorClient, callback: CallbackRow): Promise<void> {
    for (const report of this.options.faults?.conflictingFinals(callback) ?? []) {
      const body = Buffer.from(JSON.stringify(unitCallbackBody(report)));
      const key = unitIdempotencyKey(report.bankReference, report.status);
      const response = await connector.postCallback(`${connector.settings.baseUrl}${UNIT_CALLBACK_PATH}`, key, body, CONFLICTING_FINAL);
      this.logger.debug('conflicting final sent', { client_id: callback.clientId, reference: report.reference, status: report.status, idempotency_key: key, http_status: response.status });
    }
  }

  private send(connector: ConnectorClient, callback: CallbackRow, faults: AttemptFaults): Promise<ConnectorResponse> {
    const refusal = plainHttpRefusal(callback.url, this.options.allowPlainHttp);
    if (refusal) return Promise.resolve({ status: null, body: '', latencyMs: 0, error: refusal });
    return connector.postCallback(callback.url, callback.idempotencyKey, callback.body, faults);
  }

  private logOutcome(callback: CallbackRow, response: ConnectorResponse, state: MessageState): void {
    const attempt = callback.attempts + 1;
    const error = attemptError(response);
    const context = { client_id: callback.clientId, callback_id: callback.id, kind: callback.kind, idempotency_key: callback.idempotencyKey, attempt, status: response.status, latency_ms: response.latencyMs };
    if (error === null) {
      this.logger.debug('callback delivered', context);
      return;
    }
    const failed = { ...context, references: callbackReferences(callback), error };
    if (state === 'dead') this.logger.warn('callback dead: no attempt is left within RETRY_HORIZON_S (POST /sandbox/callbacks/{callback_id}/redeliver sends it again)', failed);
    else this.logger.warn('callback attempt failed', failed);
  }
}

/** The order references a callback reports (read from its body, on failures only): what an operator searches by. */
function callbackReferences(callback: CallbackRow): string[] {
  const parsed = parseJsonText(callback.body.toString('utf8')) as { reference?: unknown; orders?: { reference?: unknown }[] } | undefined;
  const references = callback.kind === 'unit' ? [parsed?.reference] : (parsed?.orders ?? []).map((order) => order.reference);
  return references.filter((reference): reference is string => typeof reference === 'string');
}
