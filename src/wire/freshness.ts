// X-Timestamp and X-Nonce syntax and window (profile section 2).

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

/** Milliseconds since the epoch, or null when the value is not an RFC 3339 UTC instant with Z. */
export function parseTimestamp(value: string): number | null {
  if (!RFC3339_UTC.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

export function isNonce(value: string): boolean {
  return NONCE.test(value);
}

export function withinWindow(timestampMs: number, nowMs: number, windowS: number): boolean {
  return Math.abs(nowMs - timestampMs) <= windowS * 1000;
}
