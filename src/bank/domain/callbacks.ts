// What the Bank reports by callback, and the exact bodies (contract 2.3 and 2.5, built by wire/status-object).
// Pure: no I/O.
import { formatInstant } from '../../wire/rfc3339';
import { StatusReport, statusObject } from '../../wire/status-object';
import { isFinal, OrderStatus, StatusChange } from './order-state';

export type { StatusReport };

export interface ReportableOrder {
  source: 'push' | 'pull';
  callbacks: 'normal' | 'none' | 'duplicate';
}


/**
 * How many times a change is reported (0 = not at all):
 * - NO_CALLBACK orders never are;
 * - PENDING is reported on entry when `reportPending` is on;
 * - a final decided at acceptance of a pushed order was already answered synchronously (200): not reported;
 * - every other final is reported once, twice for DUPLICATE_CALLBACK.
 */
export function reportCopies(order: ReportableOrder, change: StatusChange, reportPending: boolean): number {
  if (order.callbacks === 'none') return 0;
  if (change.to === 'PENDING') return reportPending ? 1 : 0;
  if (change.from === null && order.source === 'push') return 0;
  return isFinal(change.to) && order.callbacks === 'duplicate' ? 2 : 1;
}

/** Deterministic per (order, reported status): every redelivery carries the same key. */
export function unitIdempotencyKey(bankReference: string, status: OrderStatus): string {
  return `${bankReference}-${status}`;
}

/** Unit callback body: the 2.3 object with processed_at (contract 4.3.1). */
export function unitCallbackBody(report: StatusReport): Record<string, string> {
  return statusObject(report, 'unit');
}

/** Batch callback body (contract 2.5): every item is the 2.3 object with `timestamp`. */
export function batchCallbackBody(batchId: string, sentAtMs: number, reports: readonly StatusReport[]) {
  return { batch_id: batchId, sent_at: formatInstant(sentAtMs), orders: reports.map((report) => statusObject(report, 'batch')) };
}

export interface RetryPolicy {
  scheduleS: readonly number[];
  horizonS: number;
  /** 0..1: each delay is spread by ±jitter. */
  jitter: number;
}

/** When attempt `attemptsMade`+1 should run, or null when the horizon since `firstAt` is passed (dead). */
export function nextAttemptAt(policy: RetryPolicy, attemptsMade: number, firstAtMs: number, nowMs: number, random: () => number): number | null {
  const schedule = policy.scheduleS;
  const baseS = schedule[Math.min(attemptsMade - 1, schedule.length - 1)] ?? 0;
  const spread = 1 + policy.jitter * (2 * random() - 1);
  const at = nowMs + Math.round(baseS * 1000 * spread);
  return at - firstAtMs > policy.horizonS * 1000 ? null : at;
}
