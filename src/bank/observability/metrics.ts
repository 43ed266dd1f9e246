// GET /metrics (Prometheus text format, prom-client): what a CI job or a demo dashboard scrapes. Documented in
// docs/operations.md#metrics.
//
// Each Bank has its own registry (tests build many Banks in one process), so two Banks never share a series. The
// process metrics (CPU, memory, event loop, GC) describe the process, not a Bank: they live in one registry per
// process, started with the first Bank, and are appended to every Bank's answer.
//
// What happens is observed through existing seams, never by new calls in the hot code: requests through one
// middleware (request-metrics.ts), the outgoing side through the live events the use cases already publish
// (`observing` wraps the EventSink), and the outbox through two index-only counts on each scrape.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ClientClocks } from '../application/clocks';
import { EventSink, EventType } from '../application/events';
import { OutboxBacklog, OutboxDepthRepository } from '../store/outbox-depth';
import { RequestMetrics } from './request-metrics';

export const METRIC_PREFIX = 'sandbox_bank_';

/** What the HTTP app mounts: the request middleware (first of all) and the GET /metrics handlers. */
export interface HttpMetrics {
  countRequests: RequestHandler;
  endpoint: RequestHandler[];
}

export interface MetricsSources {
  outbox: OutboxDepthRepository;
  /** The age of a waiting row is read on its client's clock (a test clock moves business time). */
  clocks: ClientClocks;
  /** Who may scrape: the /sandbox admin check, so both follow the same rule. */
  guard: RequestHandler;
}

/** Attempt numbers beyond this share one label value, so retries cannot grow the label set. */
const MAX_ATTEMPT_LABEL = 5;
const ATTEMPTS_PER_CALLBACK_BUCKETS = [1, 2, 3, 4, 5, 8, 13, 21];

let processRegistry: Registry | null = null;

/** The process metrics (collectDefaultMetrics), once per process: its GC and event-loop observers never stop. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: METRIC_PREFIX });
  }
  return processRegistry;
}

/** `1` … `5`, then `6+`. */
export function attemptLabel(attempt: number): string {
  return attempt > MAX_ATTEMPT_LABEL ? `${MAX_ATTEMPT_LABEL + 1}+` : String(Math.max(1, Math.trunc(attempt)));
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

export class BankMetrics implements HttpMetrics {
  readonly registry = new Registry();
  readonly countRequests: RequestHandler;
  readonly endpoint: RequestHandler[];
  private readonly callbackAttempts: Counter<'outcome' | 'attempt'>;
  private readonly callbacks: Counter<'outcome'>;
  private readonly attemptsPerCallback: Histogram<'outcome'>;
  private readonly pullCycles: Counter<'outcome'>;
  private readonly pulledOrders: Counter<'result'>;
  private readonly pulledPages: Counter;
  private readonly clockAdvances: Counter;
  private readonly clockAdvanceFired: Counter;
  private readonly outboxDepth: Gauge<'state'>;
  private readonly outboxOldestAge: Gauge<'state'>;
  /** The last `callback.attempted`: `callback.delivered`/`dead` follow it at once for the same message. */
  private lastAttempt = { messageId: null as unknown, attempt: 0 };

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    const prefix = METRIC_PREFIX;
    this.countRequests = new RequestMetrics(this.registry, prefix).middleware;
    this.endpoint = [sources.guard, (req, res, next) => void this.answerScrape(req, res, next)];
    this.callbackAttempts = new Counter({
      name: `${prefix}callback_attempts_total`,
      help: 'Callback delivery attempts, by outcome (ok: the Connector answered 200; failed: anything else) and attempt number (1 to 5, then 6+).',
      labelNames: ['outcome', 'attempt'],
      registers,
    });
    this.callbacks = new Counter({
      name: `${prefix}callbacks_total`,
      help: 'Callback messages that reached a final state: delivered, or dead (retries exhausted).',
      labelNames: ['outcome'],
      registers,
    });
    this.attemptsPerCallback = new Histogram({
      name: `${prefix}callback_attempts_per_callback`,
      help: 'Attempts a callback message took until it was delivered or declared dead.',
      labelNames: ['outcome'],
      buckets: ATTEMPTS_PER_CALLBACK_BUCKETS,
      registers,
    });
    this.pullCycles = new Counter({
      name: `${prefix}pull_cycles_total`,
      help: "Pulls of one Connector's orders (one per polling Connector per cycle), by outcome: ok, no_content or error.",
      labelNames: ['outcome'],
      registers,
    });
    this.pulledOrders = new Counter({
      name: `${prefix}pulled_orders_total`,
      help: 'Orders received by pulls, by result: accepted, duplicate (already known) or rejected (invalid).',
      labelNames: ['result'],
      registers,
    });
    this.pulledPages = new Counter({ name: `${prefix}pulled_pages_total`, help: 'Pages received by pulls.', registers });
    this.clockAdvances = new Counter({ name: `${prefix}clock_advances_total`, help: 'Test clock advances (POST /sandbox/clients/{id}/clock/advance).', registers });
    this.clockAdvanceFired = new Counter({
      name: `${prefix}clock_advance_fired_total`,
      help: 'Settlements and delivery passes that test clock advances fired.',
      registers,
    });
    this.outboxDepth = new Gauge({
      name: `${prefix}outbox_depth`,
      help: 'Rows waiting in the outbox, by state: queued (status reports not yet built into a message), pending (messages awaiting delivery or a retry).',
      labelNames: ['state'],
      registers,
    });
    this.outboxOldestAge = new Gauge({
      name: `${prefix}outbox_oldest_age_seconds`,
      help: "Age of the oldest waiting row, by state (queued, pending), on its client's clock; 0 when none waits.",
      labelNames: ['state'],
      registers,
    });
  }

  /** `sink`, counted: every event still goes to `sink`, as it was published. */
  observing(sink: EventSink): EventSink {
    return {
      publish: (type, clientId, data) => {
        this.countEvent(type, data);
        sink.publish(type, clientId, data);
      },
    };
  }

  /** The Prometheus text of this Bank (the outbox read now), then the process metrics. */
  async scrape(): Promise<string> {
    this.readOutbox();
    const [bank, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${bank}\n${process}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private async answerScrape(_req: Request, res: Response, next: NextFunction): Promise<void> {
    try {
      const body = await this.scrape();
      res.setHeader('Content-Type', this.contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(body);
    } catch (error) {
      next(error);
    }
  }

  private countEvent(type: EventType, data: Record<string, unknown>): void {
    switch (type) {
      case 'callback.attempted':
        this.lastAttempt = { messageId: data.message_id, attempt: count(data.attempt) };
        this.callbackAttempts.inc({ outcome: data.error === null ? 'ok' : 'failed', attempt: attemptLabel(count(data.attempt)) });
        return;
      case 'callback.delivered':
      case 'callback.dead':
        this.callbackFinished(type === 'callback.delivered' ? 'delivered' : 'dead', data.message_id);
        return;
      case 'poll.completed':
        this.pullCycles.inc({ outcome: data.outcome === 'ok' || data.outcome === 'no_content' ? data.outcome : 'error' });
        this.pulledOrders.inc({ result: 'accepted' }, count(data.accepted));
        this.pulledOrders.inc({ result: 'duplicate' }, count(data.duplicates));
        this.pulledOrders.inc({ result: 'rejected' }, count(data.rejected));
        this.pulledPages.inc(count(data.pages));
        return;
      case 'clock.advanced':
        this.clockAdvances.inc();
        this.clockAdvanceFired.inc(count(data.fired));
        return;
      default:
    }
  }

  private callbackFinished(outcome: 'delivered' | 'dead', messageId: unknown): void {
    this.callbacks.inc({ outcome });
    const { messageId: attempted, attempt } = this.lastAttempt;
    if (attempted === messageId && attempt > 0) this.attemptsPerCallback.observe({ outcome }, attempt);
  }

  /** Sets the outbox gauges from the store: two counts over partial indexes, and the oldest row of each by its key. */
  private readOutbox(): void {
    let queued: OutboxBacklog;
    let pending: OutboxBacklog;
    try {
      queued = this.sources.outbox.queuedReports();
      pending = this.sources.outbox.pendingMessages();
    } catch {
      // The database is closed (the Bank is stopping): report nothing rather than stale numbers.
      this.outboxDepth.reset();
      this.outboxOldestAge.reset();
      return;
    }
    for (const [state, backlog] of [['queued', queued], ['pending', pending]] as const) {
      this.outboxDepth.set({ state }, backlog.count);
      this.outboxOldestAge.set({ state }, this.ageSeconds(backlog));
    }
  }

  private ageSeconds(backlog: OutboxBacklog): number {
    if (backlog.oldest === null) return 0;
    return Math.max(0, this.sources.clocks.now(backlog.oldest.clientId) - backlog.oldest.createdAt) / 1000;
  }
}
