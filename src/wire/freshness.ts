// X-Timestamp and X-Nonce syntax and window (profile section 2).
import { cachedLast } from './cached-last';
import { parseInstant } from './rfc3339';

const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * Milliseconds since the epoch, or null when the value is not an RFC 3339 UTC instant with Z. Kept for the last
 * value: X-Timestamp is read twice a request (its syntax, then its window), and has one value a second.
 */
export const parseTimestamp: (value: string) => number | null = cachedLast(parseInstant);

export function isNonce(value: string): boolean {
  return NONCE.test(value);
}

export function withinWindow(timestampMs: number, nowMs: number, windowS: number): boolean {
  return Math.abs(nowMs - timestampMs) <= windowS * 1000;
}
