// Sends the outbox's due messages to each Connector with bounded concurrency. Freezing messages and recording
// attempts (with their retry schedule) are the application's CallbackMessages; this is the network half.
import type { Logger } from 'winston';
import { attemptError, AttemptOutcome, CallbackMessages } from '../application/callback-messages';
import { ClientClocks } from '../application/clocks';
import { CallbackRow } from '../store/outbox';
import { ConnectorClient, ConnectorResponse } from './connector-client';
import { ConnectorDirectory } from './connector-directory';

export { BATCH_CALLBACK_PATH, UNIT_CALLBACK_PATH } from '../application/callback-messages';

export interface DispatcherOptions {
  concurrency: number;
  allowPlainHttp: boolean;
}

export class Dispatcher {
  private cycle: Promise<number> | null = null;
  private stopped = false;

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

  private async runFor(connector: ConnectorClient): Promise<number> {
    if (this.stopped) return 0;
    this.messages.freeze(connector.settings);
    return this.deliverDue(connector);
  }

  /** Sends every due message of one Connector, then records all attempts at once. Returns how many were attempted. */
  async deliverDue(connector: ConnectorClient): Promise<number> {
    const due = this.messages.due(connector.settings.clientId, this.options.concurrency * 8);
    const outcomes: AttemptOutcome[] = [];
    let next = 0;
    const worker = async () => {
      while (next < due.length && !this.stopped) {
        const callback = due[next];
        next += 1;
        const startedAt = this.clocks.now(callback.clientId);
        const response = await this.send(connector, callback);
        outcomes.push({ callback, startedAt, endedAt: this.clocks.now(callback.clientId), response });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, due.length) }, worker));
    this.messages.recordAttempts(outcomes);
    for (const outcome of outcomes) this.logOutcome(outcome.callback, outcome.response);
    return outcomes.length;
  }

  private send(connector: ConnectorClient, callback: CallbackRow): Promise<ConnectorResponse> {
    if (callback.url.startsWith('http://') && !this.options.allowPlainHttp) {
      return Promise.resolve({ status: null, body: '', latencyMs: 0, error: 'refused: callbacks to http:// Connectors are sent only with SANDBOX_MODE=relaxed' });
    }
    return connector.postCallback(callback.url, callback.idempotencyKey, callback.body);
  }

  private logOutcome(callback: CallbackRow, response: ConnectorResponse): void {
    const attempt = callback.attempts + 1;
    const error = attemptError(response);
    const context = { callback_id: callback.id, kind: callback.kind, idempotency_key: callback.idempotencyKey, attempt, status: response.status, latency_ms: response.latencyMs };
    if (error === null) this.logger.debug('callback delivered', context);
    else this.logger.warn('callback attempt failed', { ...context, error });
  }
}
