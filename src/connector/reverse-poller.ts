// Reverse polling (contract 4.1.2 and section 8): the fallback for orders left PENDING or awaiting the result
// of a 202, when no callback came. What it shows a Connector team:
// - adaptive polling: a short first interval, then exponential growth up to a configurable cap;
// - 429: back off (honour Retry-After, and grow the interval too);
// - 404: the Bank does not know the order: stop polling and raise an alert, never poll it forever;
// - a final status: apply it (a final never changes) and stop; other errors: retry on the schedule.
// The scheduling math is the pure function nextPoll(); tick() does one pass and the timer loop repeats it.
import type { Logger } from 'winston';
import { Clock } from '../wire/clock';
import { BankAnswer, BankClient } from './bank-client';
import { Flaws } from './flaws';
import { parseStatusAnswer } from './status-objects';
import { ConnectorStore, isFinalStatus, PollRow } from './store';

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
}

export type PollOutcome =
  | { kind: 'final' }
  | { kind: 'not-found' }
  | { kind: 'not-final' }
  | { kind: 'rate-limited'; retryAfterMs: number | null }
  | { kind: 'error' };

export type NextPoll = { stop: true } | { stop: false; nextAt: number; intervalMs: number };

/** When to poll next after a poll that used `intervalMs`, given its outcome (pure). */
export function nextPoll(policy: BackoffPolicy, intervalMs: number, outcome: PollOutcome, nowMs: number): NextPoll {
  if (outcome.kind === 'final' || outcome.kind === 'not-found') return { stop: true };
  const grown = Math.min(Math.round(intervalMs * policy.factor), policy.maxMs);
  // A 429 asks us to wait at least Retry-After, even beyond the usual cap.
  const delay = outcome.kind === 'rate-limited' && outcome.retryAfterMs !== null ? Math.max(grown, outcome.retryAfterMs) : grown;
  return { stop: false, nextAt: nowMs + delay, intervalMs: grown };
}

/** The intervals between successive polls of one order that never gets a final: initial, initial*f, ... cap. */
export function intervalSeries(policy: BackoffPolicy, count: number): number[] {
  const series = [policy.initialMs];
  while (series.length < count) {
    const next = nextPoll(policy, series[series.length - 1], { kind: 'not-final' }, 0);
    series.push(next.stop ? 0 : next.intervalMs);
  }
  return series;
}

export class ReversePoller {
  private pass: Promise<number> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: ConnectorStore,
    private readonly bank: BankClient,
    private readonly policy: BackoffPolicy,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly flaws: Flaws = Flaws.NONE,
  ) {}

  /** Polls every due order once. Passes never overlap: a call during a pass joins it. Returns how many were polled. */
  tick(): Promise<number> {
    if (!this.pass) {
      this.pass = this.runPass().finally(() => {
        this.pass = null;
      });
    }
    return this.pass;
  }

  private async runPass(): Promise<number> {
    const due = this.store.duePolls(this.clock.now());
    for (const row of due) await this.pollOne(row);
    return due.length;
  }

  private async pollOne(row: PollRow): Promise<void> {
    const { reference } = row;
    if (this.store.pollOf(reference)?.stopped_reason) return; // a callback made it final during this pass
    const answer = await this.bank.pollStatus(reference);
    const outcome = this.handle(reference, answer);
    const attempts = row.attempts + 1;
    const next = nextPoll(this.policy, row.interval_ms, outcome, this.clock.now());
    const context = { reference, attempt: attempts, http_status: answer.httpStatus, outcome: outcome.kind };
    if (next.stop) {
      this.store.stopPolling(reference, outcome.kind === 'not-found' ? 'not found (404): alert raised' : 'final status');
      this.logger.info('reverse polling stopped', context);
      return;
    }
    this.store.reschedulePoll(reference, next.nextAt, next.intervalMs, attempts);
    this.logger.info('reverse polled; next poll scheduled', { ...context, next_in_ms: next.nextAt - this.clock.now(), error: answer.error ?? undefined });
  }

  private handle(reference: string, answer: BankAnswer): PollOutcome {
    const now = this.clock.now();
    switch (answer.httpStatus) {
      case 200: {
        const parsed = parseStatusAnswer(answer.body, reference);
        if (!parsed.value) {
          this.logger.warn('reverse polling answer breaks the contract; retrying on the schedule', { reference, errors: parsed.errors });
          return { kind: 'error' };
        }
        const { status, bankReference, reasonCode, reasonMessage } = parsed.value;
        const result = this.store.applyStatus(reference, { status, bankReference, reasonCode, reasonMessage }, 'reverse-poll', now);
        if (result.outcome === 'conflict') {
          this.store.addAlert(reference, `reverse polling answered ${status}: ${result.detail}`, now);
          this.logger.error('reverse polling answer conflicts with a final status', { reference, detail: result.detail });
        }
        return isFinalStatus(status) ? { kind: 'final' } : { kind: 'not-final' };
      }
      case 404: {
        if (this.flaws.has('polls_after_404')) return { kind: 'error' }; // FLAW polls_after_404: takes the 404 for a passing error
        const message = 'reverse polling: the Bank does not know this order (404); polling stopped';
        this.store.addAlert(reference, message, now);
        this.logger.error(message, { reference, problem: answer.body });
        return { kind: 'not-found' };
      }
      case 429: {
        const retryAfterMs = answer.retryAfterS === null ? null : answer.retryAfterS * 1000;
        if (this.flaws.has('ignores_retry_after')) return { kind: 'rate-limited', retryAfterMs: null }; // FLAW ignores_retry_after: forgets the Bank's Retry-After
        return { kind: 'rate-limited', retryAfterMs };
      }
      default:
        return { kind: 'error' };
    }
  }

  /** Runs tick() every `everyMs` until stop(). */
  start(everyMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => this.logger.error('reverse polling pass failed', { error: (error as Error).message }));
    }, everyMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass?.catch(() => undefined);
  }
}
