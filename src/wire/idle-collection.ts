// Gives memory back when the process falls quiet after a busy spell. V8 has a "memory reducer" for exactly this, but
// the one in node 20 (V8 11.3) judges idleness from allocation rates it samples only at collections: a server that
// falls quiet after a load runs no more collections, so the reducer keeps seeing the load's rate ("high alloc") and
// the grown heap stays, young generation included (bench/README.md, "memory after load", 2026-11-27). Here the
// event loop's own utilization says when the process is quiet, and two full collections do what the reducer would:
// the first frees the old generation's garbage; the second comes 5 s later, when the 5 s over which V8 reckons its
// allocation rate hold only quiet time, so V8 also shrinks the young generation back to its idle size.
// A full collection in a quiet process also throws away much of the optimised code (V8 deoptimises ~100 functions,
// "weak objects"), which costs about a second of recompiling CPU once work resumes. So the first collection waits
// for several quiet seconds in a row, not one: a client that pauses between bursts keeps its warm code (issue 15).
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Logger } from 'winston';

export interface IdleCollectionPolicy {
  /** How often the event loop's utilization is sampled, in ms. */
  windowMs: number;
  /** A window busy for at most this share of its time is quiet. */
  quietUtilization: number;
  /** Quiet windows in a row before the first collection. */
  quietWindowsBeforeCollecting: number;
  /** Busy loop time since the last collection that makes a collection worth its pause, in ms. */
  busyMsWorthCollecting: number;
  /** Quiet windows between the first collection and the second. */
  followUpWindows: number;
}

export const IDLE_COLLECTION: IdleCollectionPolicy = {
  windowMs: 1000,
  quietUtilization: 0.05,
  quietWindowsBeforeCollecting: 5,
  busyMsWorthCollecting: 2000,
  followUpWindows: 5,
};

export interface IdleCollectionState {
  /** Busy loop time since the last collection, in ms. */
  busyMs: number;
  /** Quiet windows in a row, up to this one. */
  quietWindows: number;
  /** Quiet windows left before the follow-up collection; null when none is due. */
  followUpIn: number | null;
}

export const QUIET_AND_COLLECTED: IdleCollectionState = { busyMs: 0, quietWindows: 0, followUpIn: null };

/** One sampled window: what the state becomes, whether to collect now, and the busy time a collection would follow. */
export function idleCollectionStep(
  state: IdleCollectionState,
  window: Pick<EventLoopUtilization, 'active' | 'utilization'>,
  policy: IdleCollectionPolicy = IDLE_COLLECTION,
): { state: IdleCollectionState; collect: boolean; busyMs: number } {
  const busyMs = state.busyMs + window.active;
  const quiet = window.utilization <= policy.quietUtilization;
  const quietWindows = quiet ? state.quietWindows + 1 : 0;
  const wait = (followUpIn: number | null) => ({ state: { busyMs, quietWindows, followUpIn }, collect: false, busyMs });
  if (!quiet) return wait(null);
  if (state.followUpIn !== null) {
    if (state.followUpIn > 1) return wait(state.followUpIn - 1);
    return { state: QUIET_AND_COLLECTED, collect: true, busyMs };
  }
  if (busyMs < policy.busyMsWorthCollecting || quietWindows < policy.quietWindowsBeforeCollecting) return wait(null);
  return { state: { busyMs: 0, quietWindows, followUpIn: policy.followUpWindows }, collect: true, busyMs };
}

export interface IdleCollectionOptions {
  /** A full collection: node's `gc` under `--expose-gc`. Without it nothing is started. */
  collect: (() => void) | undefined;
  logger: Logger;
  policy?: IdleCollectionPolicy;
  /** node's `performance.eventLoopUtilization`: the totals so far, or with two of them, the delta (newer, older). */
  utilization?: (newer?: EventLoopUtilization, older?: EventLoopUtilization) => EventLoopUtilization;
}

const MB = 1024 * 1024;

function collectAndLog(collect: () => void, logger: Logger, busyMs: number): void {
  const before = process.memoryUsage();
  const started = performance.now();
  collect();
  const pauseMs = performance.now() - started;
  const after = process.memoryUsage();
  logger.debug('idle collection', {
    busy_ms: Math.round(busyMs),
    pause_ms: Number(pauseMs.toFixed(1)),
    heap_total_mb: [before.heapTotal, after.heapTotal].map((bytes) => Number((bytes / MB).toFixed(1))),
    rss_mb: Number((before.rss / MB).toFixed(1)),
  });
}

/** Samples the event loop every window and collects when it falls quiet; answers a stop, or null without `collect`. */
export function startIdleCollection(options: IdleCollectionOptions): { stop(): void } | null {
  const { collect, logger, policy = IDLE_COLLECTION } = options;
  const utilization = options.utilization ?? ((newer, older) => performance.eventLoopUtilization(newer, older));
  if (!collect) {
    logger.info('idle collection off: node was started without --expose-gc (npm start passes it)');
    return null;
  }
  logger.debug('idle collection on', { window_ms: policy.windowMs, quiet_utilization: policy.quietUtilization, quiet_windows_before_collecting: policy.quietWindowsBeforeCollecting, busy_ms_worth_collecting: policy.busyMsWorthCollecting, follow_up_windows: policy.followUpWindows });
  let state = QUIET_AND_COLLECTED;
  let last = utilization();
  const timer = setInterval(() => {
    const now = utilization();
    const window = utilization(now, last);
    last = now;
    const next = idleCollectionStep(state, window, policy);
    state = next.state;
    if (!next.collect) return;
    collectAndLog(collect, logger, next.busyMs);
    last = utilization(); // the collection's own pause is not work that should keep the loop from counting as quiet
  }, policy.windowMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
