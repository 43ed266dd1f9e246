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

/** One pass over a client's due messages: what it took, how far its senders are, and what they have ended. */
interface Pass {
  clientId: string;
  connector: ConnectorClient;
  order: CallbackRow[];
  /** Messages a fault profile moved out of their order (conformance.md section 4). */
  moved: Set<CallbackRow>;
  /** The next message to start. */
  next: number;
  /** Attempts ended and not yet recorded. */
  ended: AttemptOutcome[];
  attempted: number;
  senders: Promise<void>[];
  /** Starts up to `count` more senders, within the client's free sends and the messages left to start. */
  addSenders(count: number): void;
}

/** The extra callback a conflicting_final fault sends: marked in the journal, otherwise clean. */
const CONFLICTING_FINAL: AttemptFaults = { ...CLEAN_ATTEMPT, marks: ['conflicting_final'] };

export class Dispatcher {
  /**
   * The passes under way, by client. Each Connector has its own, so a slow one holds up only itself; a second pass
   * for the same client may start beside the first (a message due meanwhile need not wait for the first's slowest
   * answer), since a message being sent is never taken twice (CallbackMessages.take).
   */
  private readonly passes = new Map<string, Set<Promise<number>>>();
  /** Sends under way, by client: all of a client's passes together stay within `concurrency`. */
  private readonly sending = new Map<string, number>();
  /**
   * The passes of each client that have taken messages not yet started. While one has, a new pass takes nothing:
   * the free sends join that pass instead (a pass started with one free send must not keep its messages to itself).
   */
  private readonly withWaitingWork = new Map<string, Set<Pass>>();
  private stopped = false;
  private readonly delayTimers = new Set<NodeJS.Timeout>();
  /** Attempts sent since the store last refused to record them (a full disk): said once writes work again. */
  private unrecorded: { attempts: number; since: number } | null = null;

  constructor(
    private readonly messages: CallbackMessages,
    private readonly connectors: ConnectorDirectory,
    private readonly clocks: ClientClocks,
    private readonly logger: Logger,
    private readonly options: DispatcherOptions,
  ) {}

  /**
   * A build+deliver pass for every Connector on the wall clock, each on its own; resolves once those and the
   * passes already under way for them have ended, with the attempts the new passes made.
   */
  async runOnce(): Promise<number> {
    const connectors = this.wallClockConnectors();
    const started = connectors.map((connector) => this.startPass(connector));
    await Promise.all(connectors.map((connector) => this.passesOf(connector.settings.clientId)));
    const counts = await Promise.all(started);
    return counts.reduce((total, count) => total + count, 0);
  }

  /**
   * Starts a pass for every Connector on the wall clock without waiting for any: a pass that sent something is
   * followed by another, so a burst drains at full speed, and a slow Connector holds up only its own sends.
   */
  kick(): void {
    for (const connector of this.wallClockConnectors()) this.keepDelivering(connector);
  }

  private keepDelivering(connector: ConnectorClient): void {
    const clientId = connector.settings.clientId;
    void this.startPass(connector).then((made) => {
      const current = this.connectors.get(clientId);
      if (made > 0 && current && !this.clocks.isClocked(clientId)) this.keepDelivering(current);
    });
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
    await Promise.all([...this.passes.keys()].map((clientId) => this.passesOf(clientId)));
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
    // Attempts the interval made before the clock was attached end first: what they record is due-time input here.
    await this.passesOf(clientId);
    let attempts = 0;
    for (let pass = 0; pass < maxPasses && !this.stopped; pass += 1) {
      const made = await this.startPass(connector);
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

  /** One pass for one Connector; its failure is logged and ends only that pass. */
  private startPass(connector: ConnectorClient): Promise<number> {
    const clientId = connector.settings.clientId;
    const running = this.passes.get(clientId) ?? new Set<Promise<number>>();
    this.passes.set(clientId, running);
    const pass: Promise<number> = this.runFor(connector)
      .catch((error: unknown) => {
        this.logger.error('dispatch pass failed', { client_id: clientId, error: (error as Error).message });
        return 0;
      })
      .finally(() => {
        running.delete(pass);
        if (running.size === 0 && this.passes.get(clientId) === running) this.passes.delete(clientId);
      });
    running.add(pass);
    return pass;
  }

  /** Resolves once the passes under way for this client have ended. */
  private async passesOf(clientId: string): Promise<void> {
    await Promise.all([...(this.passes.get(clientId) ?? [])]);
  }

  private async runFor(connector: ConnectorClient): Promise<number> {
    const clientId = connector.settings.clientId;
    const free = this.freeSends(clientId);
    if (free <= 0) return 0;
    const open = this.withWaitingWork.get(clientId);
    if (open && open.size > 0) {
      for (const pass of open) pass.addSenders(free);
      return 0;
    }
    this.messages.freeze(connector.settings);
    return this.deliverDue(connector);
  }

  /** How many more sends this client may start now (0 when stopped, paused or removed). */
  private freeSends(clientId: string): number {
    return this.maySend(clientId) ? this.options.concurrency - (this.sending.get(clientId) ?? 0) : 0;
  }

  /** Whether this client's messages may be sent now: not stopped, not paused, and it still has a Connector. */
  private maySend(clientId: string): boolean {
    return !this.stopped && !this.connectors.isPaused(clientId) && this.connectors.has(clientId);
  }

  /**
   * Sends due messages of one Connector, with at most `concurrency` sends of that client under way across its
   * passes, recording the attempts a `concurrency` at a time as they end, and the rest when the pass ends. Returns
   * how many were attempted (an attempt held back by an injected delay is made and recorded later, on its own).
   * A pause, a removal or a stop ends the pass before its next send; what it had not sent is handed back.
   *
   * Why not all at once at the end: a pass takes `concurrency × 8` messages, and an attempt that ended early would
   * wait for the slowest one to be stored: a delivered callback shown as pending for seconds behind a slow
   * Connector, and sent again after a crash meanwhile. A chunk is still one transaction for many attempts; the CPU
   * a unit callback costs did not move measurably (bench/README.md, session 19).
   */
  async deliverDue(connector: ConnectorClient): Promise<number> {
    const clientId = connector.settings.clientId;
    const free = this.freeSends(clientId);
    if (free <= 0) return 0;
    const due = this.messages.take(clientId, this.options.concurrency * 8);
    const { order, moved } = this.options.faults?.passOrder(clientId, due) ?? { order: due, moved: new Set<CallbackRow>() };
    const pass: Pass = { clientId, connector, order, moved, next: 0, ended: [], attempted: 0, senders: [], addSenders: () => undefined };
    pass.addSenders = (count) => {
      const wanted = Math.min(count, pass.order.length - pass.next, this.freeSends(clientId));
      for (let index = 0; index < wanted; index += 1) pass.senders.push(this.sender(pass));
    };
    if (order.length > 0) this.waitingOf(clientId).add(pass);
    pass.addSenders(free);
    try {
      // Senders may join while the pass runs (addSenders): wait until every one of them has ended.
      let awaited = 0;
      while (awaited < pass.senders.length) {
        const joined = pass.senders.length;
        await Promise.all(pass.senders.slice(awaited, joined));
        awaited = joined;
      }
    } finally {
      this.leaveWaiting(pass);
      this.recordEnded(pass);
      this.messages.putBack(pass.order.slice(pass.next));
    }
    return pass.attempted;
  }

  /** One of a pass's senders: the pass's next message, one at a time, while the client may send. */
  private async sender(pass: Pass): Promise<void> {
    const { clientId } = pass;
    this.sending.set(clientId, (this.sending.get(clientId) ?? 0) + 1);
    try {
      while (pass.next < pass.order.length && this.maySend(clientId)) {
        const callback = pass.order[pass.next];
        pass.next += 1;
        if (pass.next === pass.order.length) this.leaveWaiting(pass);
        // The client's Connector as it is now: a PATCH during the pass retires the old one once its sends end.
        const current = this.connectors.get(clientId) ?? pass.connector;
        const faults = this.options.faults?.forCallbackAttempt(callback, pass.moved.has(callback)) ?? CLEAN_ATTEMPT;
        if (faults.delayMs > 0) {
          this.attemptLater(current, callback, faults);
          continue;
        }
        const outcome = await this.attemptOrPutBack(current, callback, faults);
        if (outcome) pass.ended.push(outcome);
        if (pass.ended.length >= this.options.concurrency) this.recordEnded(pass);
      }
    } finally {
      const left = (this.sending.get(clientId) ?? 1) - 1;
      // No entry for a client with nothing under way: clients come and go (a deleted one must leave nothing here).
      if (left > 0) this.sending.set(clientId, left);
      else this.sending.delete(clientId);
    }
  }

  private recordEnded(pass: Pass): void {
    pass.attempted += pass.ended.length;
    if (pass.ended.length > 0) this.record(pass.ended.splice(0));
  }

  /** The passes of a client with messages waiting, made on first use (leaveWaiting removes an empty one). */
  private waitingOf(clientId: string): Set<Pass> {
    let waiting = this.withWaitingWork.get(clientId);
    if (!waiting) this.withWaitingWork.set(clientId, (waiting = new Set<Pass>()));
    return waiting;
  }

  /** The pass has started all its messages (or ended): no new pass of its client joins it any more. */
  private leaveWaiting(pass: Pass): void {
    const waiting = this.withWaitingWork.get(pass.clientId);
    if (!waiting?.delete(pass) || waiting.size > 0) return;
    this.withWaitingWork.delete(pass.clientId);
  }

  /** One attempt, or none when it threw (a bug, not a Connector's answer): the message goes at the next pass. */
  private async attemptOrPutBack(connector: ConnectorClient, callback: CallbackRow, faults: AttemptFaults): Promise<AttemptOutcome | null> {
    try {
      return await this.attempt(connector, callback, faults);
    } catch (error) {
      this.logger.error('callback attempt failed before an answer', { client_id: callback.clientId, callback_id: callback.id, error: (error as Error).message });
      this.messages.putBack([callback]);
      return null;
    }
  }

  /** Records attempts; when the store refuses the write, the messages stay pending and go again after a delay. */
  private record(outcomes: AttemptOutcome[]): void {
    let states: MessageState[];
    try {
      states = this.messages.recordAttempts(outcomes);
    } catch (error) {
      const holdMs = this.messages.holdBack(outcomes.map((outcome) => outcome.callback));
      this.unrecorded = { attempts: (this.unrecorded?.attempts ?? 0) + outcomes.length, since: this.unrecorded?.since ?? Date.now() };
      this.logger.error('callback attempts not recorded: they will be sent again', { callback_ids: outcomes.map((outcome) => outcome.callback.id), retry_in_ms: holdMs, error: (error as Error).message });
      return;
    }
    if (this.unrecorded) this.sayRecordedAgain(this.unrecorded);
    outcomes.forEach((outcome, index) => this.logOutcome(outcome.callback, outcome.response, states[index]));
  }

  /** After a spell of refused writes: how many sends the attempt log lacks, so an operator can read it with that gap. */
  private sayRecordedAgain(gap: { attempts: number; since: number }): void {
    this.unrecorded = null;
    this.logger.info('callback attempts recorded again: the store takes writes', { unrecorded_attempts: gap.attempts, unrecorded_since: new Date(gap.since).toISOString() });
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
    const timer = setTimeout(() => {
      this.delayTimers.delete(timer);
      if (!this.maySend(callback.clientId)) return void this.messages.putBack([callback]);
        void this.attemptOrPutBack(connector, callback, faults).then((outcome) => {
        if (outcome && !this.stopped) this.record([outcome]);
      });
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
    if (state === 'gone') {
      this.logger.info('callback attempt not recorded: its message was deleted (a reset) while it was sent', { client_id: callback.clientId, callback_id: callback.id, status: response.status });
      return;
    }
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
