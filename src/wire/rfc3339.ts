// RFC 3339 instants as this exchange writes them: UTC with `Z`, optional fraction (profile section 2).

const RFC3339_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/**
 * Milliseconds since the epoch, or null when the value is not an RFC 3339 UTC instant with Z. Impossible fields
 * (2026-02-30, 24:00:00, a leap second) are refused rather than rolled over; a fraction is cut to milliseconds.
 * Checked field by field, without a Date round trip: it runs for every signed request (X-Timestamp).
 */
export function parseInstant(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const fields = RFC3339_UTC.exec(value);
  if (fields === null) return null;
  const year = Number(fields[1]);
  const month = Number(fields[2]);
  const day = Number(fields[3]);
  const hour = Number(fields[4]);
  const minute = Number(fields[5]);
  const second = Number(fields[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  const ms = fields[7] === undefined ? 0 : Number(fields[7].slice(0, 3).padEnd(3, '0'));
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute, second, ms);
  return instant.getTime();
}

// Instants come in runs within the same second (every answer, event and journal entry of that second), and
// toISOString costs a Date and a C++ call each time: the text up to the seconds is kept for the last second
// formatted, and only the milliseconds are written per call.
let cachedSecond = Number.NaN;
let cachedPrefix = '';
/** The last instant a Date can hold: the milliseconds after it share its second but are not instants. */
const MAX_INSTANT = 8.64e15;

/** Millisecond precision, as the Bank writes processed_at, timestamp and sent_at. */
export function formatInstant(ms: number): string {
  const second = Math.floor(ms / 1000);
  const millis = ms - second * 1000;
  // Whole milliseconds only: a fraction falls through to toISOString, which truncates it.
  if (second !== cachedSecond || !Number.isInteger(millis) || ms > MAX_INSTANT) {
    const text = new Date(ms).toISOString();
    if (!Number.isInteger(millis)) return text;
    cachedSecond = second;
    cachedPrefix = text.slice(0, -4);
    return text;
  }
  return `${cachedPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** Second precision, as X-Timestamp is sent: the milliseconds cut, not rounded. */
export function formatInstantSeconds(ms: number): string {
  // Every text formatInstant writes ends in `.sssZ` (toISOString's form), so a slice cuts them without a regex.
  return `${formatInstant(ms).slice(0, -5)}Z`;
}
