// RFC 3339 instants as this exchange writes them: UTC with `Z`, optional fraction (profile section 2).

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** Milliseconds since the epoch, or null when the value is not an RFC 3339 UTC instant with Z. */
export function parseInstant(value: unknown): number | null {
  if (typeof value !== 'string' || !RFC3339_UTC.test(value)) return null;
  const ms = Date.parse(value);
  // Date.parse rolls impossible dates over (2026-02-30 becomes March 2): the fields must survive the round trip.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== value.slice(0, 19)) return null;
  return ms;
}

/** Millisecond precision, as the Bank writes processed_at, timestamp and sent_at. */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString();
}

/** Second precision, as X-Timestamp is sent. */
export function formatInstantSeconds(ms: number): string {
  return formatInstant(ms).replace(/\.\d{3}Z$/, 'Z');
}
