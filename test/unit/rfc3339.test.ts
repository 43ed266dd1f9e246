// RFC 3339 instants as the exchange writes them (profile section 2): UTC with Z, optional fraction.
import { formatInstant, formatInstantSeconds, parseInstant } from '../../src/wire/rfc3339';

describe('parseInstant: accepted', () => {
  it.each<[string, number]>([
    ['2026-11-22T10:15:30Z', Date.UTC(2026, 10, 22, 10, 15, 30)],
    ['2026-11-22T10:15:30.1Z', Date.UTC(2026, 10, 22, 10, 15, 30, 100)],
    ['2026-11-22T10:15:30.123Z', Date.UTC(2026, 10, 22, 10, 15, 30, 123)],
    ['2026-11-22T10:15:30.123456789Z', Date.UTC(2026, 10, 22, 10, 15, 30, 123)],
    ['1970-01-01T00:00:00Z', 0],
    ['2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
    ['2026-12-31T23:59:59.999Z', Date.UTC(2026, 11, 31, 23, 59, 59, 999)],
    ['2000-02-29T12:00:00Z', Date.UTC(2000, 1, 29, 12)],
    // The years 0 to 99 are years, not 1900 to 1999 (Date.UTC's reading): as Date.parse reads them.
    ['0001-01-01T00:00:00Z', -62_135_596_800_000],
    ['0099-12-31T23:59:59.5Z', -59_011_459_200_500],
  ])('%s', (value, ms) => {
    expect(parseInstant(value)).toBe(ms);
  });
});

describe('parseInstant: refused', () => {
  it.each([
    ['no zone', '2026-11-22T10:15:30'],
    ['numeric offset', '2026-11-22T10:15:30+00:00'],
    ['other offset', '2026-11-22T11:15:30+01:00'],
    ['lower-case z', '2026-11-22T10:15:30z'],
    ['lower-case t', '2026-11-22t10:15:30Z'],
    ['space for T', '2026-11-22 10:15:30Z'],
    ['no seconds', '2026-11-22T10:15Z'],
    ['date only', '2026-11-22'],
    ['empty fraction', '2026-11-22T10:15:30.Z'],
    ['ten fraction digits', '2026-11-22T10:15:30.1234567890Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['day 32', '2026-01-32T00:00:00Z'],
    ['minute 60', '2026-01-01T23:60:00Z'],
    ['second 60 (leap seconds are not accepted)', '2026-01-01T23:59:60Z'],
    ['expanded year', '+02026-11-22T10:15:30Z'],
    ['leading blank', ' 2026-11-22T10:15:30Z'],
    ['trailing newline', '2026-11-22T10:15:30Z\n'],
    ['epoch seconds', '1763806530'],
    ['empty', ''],
  ])('%s: %j', (_why, value) => {
    expect(parseInstant(value)).toBeNull();
  });

  it.each([undefined, null, 0, 1763806530000, new Date(0), {}, ['2026-11-22T10:15:30Z']])('not a string: %p', (value) => {
    expect(parseInstant(value)).toBeNull();
  });

  // Date.parse rolls an impossible day over to the next month (and 24:00 to the next day); RFC 3339 section 5.7
  // limits date-mday by month and year and time-hour to 00-23, so these are not instants (X-Timestamp: 400 header_invalid).
  it.each([
    ['February 30', '2026-02-30T10:00:00Z'],
    ['February 29 in a common year', '2026-02-29T10:00:00Z'],
    ['April 31', '2026-04-31T00:00:00Z'],
    ['hour 24', '2026-01-01T24:00:00Z'],
    ['February 29 of a century not divisible by 400', '2100-02-29T00:00:00Z'],
    ['day 00', '2026-01-00T00:00:00Z'],
    ['month 00', '2026-00-10T00:00:00Z'],
  ])('impossible date or time, %s: %j', (_why, value) => {
    expect(parseInstant(value)).toBeNull();
  });
});

describe('formatInstant / formatInstantSeconds', () => {
  it('formats UTC with milliseconds and Z', () => {
    expect(formatInstant(Date.UTC(2026, 10, 22, 10, 15, 30, 5))).toBe('2026-11-22T10:15:30.005Z');
    expect(formatInstant(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('writes exactly what toISOString writes, within a second (the cached prefix) and across seconds, years and signs', () => {
    const values: number[] = [];
    for (const base of [0, -1000, Date.UTC(2026, 10, 22, 10, 15, 30), Date.UTC(99, 0, 1) - 62_135_596_800_000, Date.UTC(2099, 11, 31, 23, 59, 59), 8.64e15 - 1000]) {
      for (const offset of [0, 1, 9, 10, 99, 100, 999, 1000, 1001, -1, 0.5, -0.5]) values.push(base + offset);
    }
    for (let index = 0; index < 2_000; index += 1) values.push(Math.floor(Math.random() * 4e12) - 1e12);
    for (const ms of values.filter((value) => Math.abs(value) <= 8.64e15)) expect(formatInstant(ms)).toBe(new Date(ms).toISOString());
  });

  it('refuses an instant outside the Date range, as toISOString does', () => {
    expect(formatInstant(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
    expect(() => formatInstant(8.64e15 + 1)).toThrow(RangeError);
    expect(() => formatInstant(Number.NaN)).toThrow(RangeError);
  });

  it('X-Timestamp form: second precision, the milliseconds cut (not rounded)', () => {
    expect(formatInstantSeconds(Date.UTC(2026, 10, 22, 10, 15, 30, 999))).toBe('2026-11-22T10:15:30Z');
    expect(formatInstantSeconds(Date.UTC(2026, 10, 22, 10, 15, 30, 0))).toBe('2026-11-22T10:15:30Z');
  });

  it('X-Timestamp form: toISOString without its milliseconds, across seconds, years and signs', () => {
    for (const ms of [0, -1, 999, 1000, 0.5, Date.UTC(99, 0, 1) - 62_135_596_800_000, Date.UTC(2099, 11, 31, 23, 59, 59, 999), 8.64e15, -8.64e15]) {
      expect(formatInstantSeconds(ms)).toBe(new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    }
    expect(() => formatInstantSeconds(Number.NaN)).toThrow(RangeError);
  });

  it('round-trips through parseInstant', () => {
    for (const ms of [0, 1, 999, Date.UTC(2026, 10, 22, 10, 15, 30, 123), Date.UTC(2099, 11, 31, 23, 59, 59, 999)]) {
      expect(parseInstant(formatInstant(ms))).toBe(ms);
      expect(parseInstant(formatInstantSeconds(ms))).toBe(ms - (ms % 1000));
    }
  });
});
