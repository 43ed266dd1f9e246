// X-Timestamp and X-Nonce (profile section 2): RFC 3339 UTC with Z, within +-window seconds (inclusive); a nonce
// of 16 to 128 characters of [A-Za-z0-9_-].
import { isNonce, parseTimestamp, withinWindow } from '../../src/wire/freshness';

describe('parseTimestamp', () => {
  it('reads RFC 3339 UTC with Z, with or without a fraction', () => {
    expect(parseTimestamp('2026-11-22T10:15:30Z')).toBe(Date.UTC(2026, 10, 22, 10, 15, 30));
    expect(parseTimestamp('2026-11-22T10:15:30.250Z')).toBe(Date.UTC(2026, 10, 22, 10, 15, 30, 250));
    expect(parseTimestamp('2026-11-22T10:15:30.000000001Z')).toBe(Date.UTC(2026, 10, 22, 10, 15, 30));
  });

  it.each(['2026-11-22T10:15:30', '2026-11-22T10:15:30+00:00', '2026-11-22T10:15:30z', '2026-11-22 10:15:30Z', '2026-13-01T00:00:00Z', '1763806530', '', 'now'])(
    'refuses %j',
    (value) => {
      expect(parseTimestamp(value)).toBeNull();
    },
  );

  // As rfc3339.parseInstant: an impossible calendar date is not a well-formed X-Timestamp (400 header_invalid).
  it.each(['2026-02-30T10:00:00Z', '2026-04-31T00:00:00Z', '2026-01-01T24:00:00Z'])('refuses the impossible %j', (value) => {
    expect(parseTimestamp(value)).toBeNull();
  });
});

describe('withinWindow', () => {
  const now = Date.UTC(2026, 10, 22, 10, 0, 0);

  it('accepts the window edges on both sides (inclusive)', () => {
    expect(withinWindow(now - 300_000, now, 300)).toBe(true);
    expect(withinWindow(now + 300_000, now, 300)).toBe(true);
    expect(withinWindow(now, now, 300)).toBe(true);
  });

  it('refuses one millisecond beyond either edge', () => {
    expect(withinWindow(now - 300_001, now, 300)).toBe(false);
    expect(withinWindow(now + 300_001, now, 300)).toBe(false);
  });

  it('follows the configured window', () => {
    expect(withinWindow(now - 86_400_000, now, 86_400)).toBe(true);
    expect(withinWindow(now - 86_400_001, now, 86_400)).toBe(false);
    expect(withinWindow(now, now, 0)).toBe(true);
    expect(withinWindow(now + 1, now, 0)).toBe(false);
  });
});

describe('isNonce', () => {
  it('accepts 16 to 128 characters of [A-Za-z0-9_-]', () => {
    expect(isNonce('a'.repeat(16))).toBe(true);
    expect(isNonce('Z'.repeat(128))).toBe(true);
    expect(isNonce('AZaz09_-AZaz09_-')).toBe(true);
    expect(isNonce('9b2e4f6a8c0d2e4f6a8c')).toBe(true);
  });

  it('refuses 15 and 129 characters', () => {
    expect(isNonce('a'.repeat(15))).toBe(false);
    expect(isNonce('a'.repeat(129))).toBe(false);
  });

  it.each(['+', '/', '=', '.', ' ', '~', ':', 'é', '\u0000', '\n'])('refuses a nonce with %j in it', (char) => {
    expect(isNonce(`abcdefgh${char}ijklmnop`)).toBe(false);
  });

  it('refuses the empty string and standard base64 with padding', () => {
    expect(isNonce('')).toBe(false);
    expect(isNonce('q83vEjRWeJCrze8SNFZ4kA==')).toBe(false);
    expect(isNonce('q83vEjRWeJCrze8SNFZ4kA')).toBe(true);
  });

  it('refuses a trailing newline (the pattern is anchored to the end of the string)', () => {
    expect(isNonce(`${'a'.repeat(16)}\n`)).toBe(false);
  });
});
