// GET /metrics (Prometheus text format, prom-client): what a CI job or a demo dashboard scrapes. Documented in
// docs/operations.md#metrics.
//
// Each Bank has its own registry (tests build many Banks in one process), so two Banks never share a series. The
// process metrics (CPU, memory, event loop, GC) describe the process, not a Bank: they live in one registry per
// process, started with the first scrape, and are appended to every Bank's answer.
//
// The Bank's own series are tallies (tallies.ts), counted from the start; prom-client is loaded at the first
// scrape, which builds the registry over them (issue 15: ~90 modules and ~15 ms off the start path). The GC and
// event-loop-delay histograms of the process metrics therefore cover the time since that first scrape; the CPU
// counters are the process's totals.
//
// What happens is observed through existing seams, never by new calls in the hot code: requests through one
// middleware (request-metrics.ts), the outgoing side through the live events the use cases already publish
// (`observing` wraps the EventSink), and the outbox through two index-only counts on each scrape.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Counter, Registry } from 'prom-client';
import { ClientClocks } from '../application/clocks';
import { EventSink, EventType } from '../application/events';
import { OutboxBacklog, OutboxDepthRepository } from '../store/outbox-depth';
import { RequestMetrics } from './request-metrics';
import { CounterTally, GaugeTally, HistogramTally } from './tallies';

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

type PromClient = typeof import('prom-client');
let promClient: PromClient | null = null;
let processRegistry: Registry | null = null;

/** prom-client, loaded on the first scrape. */
function prom(): PromClient {
  promClient ??= require('prom-client') as PromClient;
  return promClient;
}

/** The process metrics (collectDefaultMetrics), once per process: its GC and event-loop observers never stop. */
function processMetrics(): Registry {
  if (!processRegistry) {
    const { Registry: PromRegistry, collectDefaultMetrics } = prom();
    const registry = new PromRegistry();
    const before = process.cpuUsage();
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
    // prom-client counts CPU from the moment it starts: the CPU spent before that is added once, so these counters
    // stay the process's totals however late the first scrape comes.
    const add = (name: string, micros: number) => (registry.getSingleMetric(`${METRIC_PREFIX}${name}`) as Counter | undefined)?.inc(micros / 1e6);
    add('process_cpu_user_seconds_total', before.user);
    add('process_cpu_system_seconds_total', before.system);
    add('process_cpu_seconds_total', before.user + before.system);
    processRegistry = registry;
  }
  return processRegistry;
}

/** `1` … `5`, then `6+`. */
export function attemptLabel(attempt: number): string {
  return attempt > MAX_ATTEMPT_LABEL ? `${MAX_ATTEMPT_LABEL + 1}+` : String(Math.max(1, Math.trunc(attempt)));
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

export class BankMetrics implements HttpMetrics {
  readonly countRequests: RequestHandler;
  /** A request node's HTTP parser refused, answered with this problem code before express saw it. */
  readonly countUnparsed: (code: string, status: number) => void;
  readonly endpoint: RequestHandler[];
  /** Every series of this Bank, in the order the scrape lists them. */
  private readonly tallies: (CounterTally | GaugeTally | HistogramTally)[] = [];
  private bankRegistry: Registry | null = null;
  private readonly callbackAttempts: CounterTally;
  private readonly callbacks: CounterTally;
  private readonly attemptsPerCallback: HistogramTally;
  private readonly pullCycles: CounterTally;
  private readonly pulledOrders: CounterTally;
  private readonly pulledPages: CounterTally;
  private readonly clockAdvances: CounterTally;
  private readonly clockAdvanceFired: CounterTally;
  private readonly outboxDepth: GaugeTally;
  private readonly outboxOldestAge: GaugeTally;
  /** The last `callback.attempted`: `callback.delivered`/`dead` follow it at once for the same message. */
  private lastAttempt = { messageId: null as unknown, attempt: 0 };

  constructor(private readonly sources: MetricsSources) {
    const prefix = METRIC_PREFIX;
    const requests = new RequestMetrics(prefix);
    this.countRequests = requests.middleware;
    this.countUnparsed = (code, status) => requests.countUnparsed(code, status);
    this.endpoint = [sources.guard, (req, res, next) => void this.answerScrape(req, res, next)];
    const register = <T extends CounterTally | GaugeTally | HistogramTally>(tally: T): T => (this.tallies.push(tally), tally);
    register(requests.requests);
    register(requests.duration);
    register(requests.refusals);
    this.callbackAttempts = register(new CounterTally({
      name: `${prefix}callback_attempts_total`,
      help: 'Callback delivery attempts, by outcome (ok: the Connector answered 200; failed: anything else) and attempt number (1 to 5, then 6+).',
      labelNames: ['outcome', 'attempt'],
    }));
    this.callbacks = register(new CounterTally({
      name: `${prefix}callbacks_total`,
      help: 'Callback messages that reached a final state: delivered, or dead (retries exhausted).',
      labelNames: ['outcome'],
    }));
    this.attemptsPerCallback = register(new HistogramTally({
      name: `${prefix}callback_attempts_per_callback`,
      help: 'Attempts a callback message took until it was delivered or declared dead.',
      labelNames: ['outcome'],
      buckets: ATTEMPTS_PER_CALLBACK_BUCKETS,
    }));
    this.pullCycles = register(new CounterTally({
      name: `${prefix}pull_cycles_total`,
      help: "Pulls of one Connector's orders (one per polling Connector per cycle), by outcome: ok, no_content or error.",
      labelNames: ['outcome'],
    }));
    this.pulledOrders = register(new CounterTally({
      name: `${prefix}pulled_orders_total`,
      help: 'Orders received by pulls, by result: accepted, duplicate (already known) or rejected (invalid).',
      labelNames: ['result'],
    }));
    this.pulledPages = register(new CounterTally({ name: `${prefix}pulled_pages_total`, help: 'Pages received by pulls.' }));
    this.clockAdvances = register(new CounterTally({ name: `${prefix}clock_advances_total`, help: 'Test clock advances (POST /sandbox/clients/{id}/clock/advance).' }));
    this.clockAdvanceFired = register(new CounterTally({
      name: `${prefix}clock_advance_fired_total`,
      help: 'Settlements and delivery passes that test clock advances fired.',
    }));
    this.outboxDepth = register(new GaugeTally({
      name: `${prefix}outbox_depth`,
      help: 'Rows waiting in the outbox, by state: queued (status reports not yet built into a message), pending (messages awaiting delivery or a retry).',
      labelNames: ['state'],
    }));
    this.outboxOldestAge = register(new GaugeTally({
      name: `${prefix}outbox_oldest_age_seconds`,
      help: "Age of the oldest waiting row, by state (queued, pending), on its client's clock; 0 when none waits.",
      labelNames: ['state'],
    }));
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
    const [bank, process] = await Promise.all([this.registry().metrics(), processMetrics().metrics()]);
    return `${bank}\n${process}`;
  }

  get contentType(): string {
    return this.registry().contentType;
  }

  /** This Bank's prom-client registry over its tallies, made at the first scrape. */
  private registry(): Registry {
    if (!this.bankRegistry) {
      const registry = new (prom().Registry)();
      for (const tally of this.tallies) registry.registerMetric(tally as never);
      this.bankRegistry = registry;
    }
    return this.bankRegistry;
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
