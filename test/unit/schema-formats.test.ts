// wire/schema-formats.ts: our `uri` and `date-time` formats answer exactly what ajv-formats' full ones answer (they
// only skip the full check for plain http(s) URLs and for UTC instants ending in Z), and every way the schemas are
// compiled uses them.
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';
import { addSchemaFormats, dateTime, SCHEMA_FORMATS, uri } from '../../src/wire/schema-formats';

const fullUri = fullFormats.uri as (value: string) => boolean;
const fullDateTime = (fullFormats['date-time'] as { validate: (value: string) => boolean }).validate;

type Format = (value: string) => boolean;

/** Ours answers as ajv-formats' full format for every string; the strings reach both answers and the quick path. */
function expectAsAjvFormats(ours: Format, full: Format, strings: string[], onQuickPath: Format, quickAtLeast: number): void {
  expect(strings.filter((value) => ours(value) !== full(value))).toEqual([]);
  expect(strings.filter((value) => ours(value)).length).toBeGreaterThan(1_000);
  expect(strings.filter((value) => !ours(value)).length).toBeGreaterThan(1_000);
  expect(strings.filter((value) => onQuickPath(value) && ours(value)).length).toBeGreaterThan(quickAtLeast);
}

const KNOWN = [
  'https://localhost:9443/callbacks',
  'http://127.0.0.1:8080',
  'http://connector.example/payment-orders?limit=100&offset=2026-11-01T00:00:00Z',
  'https://bank.example/a/b/c/',
  'HTTPS://EXAMPLE.COM/X',
  'http://host:/path',
  'http://[::1]:8080/x',
  'http://user:pass@host/x',
  'http://host/a%20b',
  'http://host/a%2',
  'http://host/a b',
  'http://host/#frag',
  'http://host/?q#frag',
  'ftp://files.example/x',
  'urn:isbn:0451450523',
  'mailto:someone@example.com',
  'http://',
  'http:',
  'https:/one-slash',
  '//no-scheme/x',
  '/relative',
  'relative',
  '',
  'http://host/\u00e9',
  'http://ho\u00e9st/',
  'http://host/<x>',
  'http://host/"x"',
  'http://host/a|b',
  'http://host/a\\b',
  'http://host:99999999999/x',
];

/** Random strings made of URL pieces, valid and invalid alike. */
function generated(count: number): string[] {
  const pieces = ['http', 'https', 'ftp', '://', ':/', ':', '/', '//', 'host', 'a.b', '-', '.', '8080', '?', '&', '=', '#', '%', '%2F', '%zz', '[', ']', '::1', '@', ' ', '"', "'", '(', ')', '*', '~', '_', '!', '$', ',', ';', '+', 'é', '\\', '|', '^', '`', '{', '}', 'x'];
  let seed = 42;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const strings: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = ['', 'http://', 'https://', 'http://host', 'https://a.b:8080', 'http://host/x'][random(6)];
    let text = start;
    for (let j = random(10); j > 0; j -= 1) text += pieces[random(pieces.length)];
    strings.push(text);
  }
  return strings;
}

describe('the uri format', () => {
  it('answers as ajv-formats does for known URIs and non-URIs', () => {
    for (const value of KNOWN) expect([value, uri(value)]).toEqual([value, fullUri(value)]);
    expect(uri('https://localhost:9443/callbacks')).toBe(true);
    expect(uri('http://host/a b')).toBe(false);
  });

  it('answers as ajv-formats does for 20,000 generated strings, plain URLs among them', () => {
    expectAsAjvFormats(uri, fullUri, generated(20_000), (value) => /^https?:\/\/\w/.test(value), 1_000);
  });

  it('is the one every way of compiling the schemas uses', () => {
    expect(SCHEMA_FORMATS.uri).toBe(uri);
    expect(SCHEMA_FORMATS['date-time'].validate).toBe(dateTime);
    expect(SCHEMA_FORMATS['date-time'].compare).toBe((fullFormats['date-time'] as { compare: unknown }).compare);
    const ajv = new Ajv();
    addSchemaFormats(ajv);
    expect(ajv.formats.uri).toBe(uri);
    expect(ajv.formats['date-time']).toBe(SCHEMA_FORMATS['date-time']);
    // The build's standalone validators (scripts/compile-schemas.js) take their formats from dist/wire/.
    const compiled = (name: string) => fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'compiled-schemas', `${name}.js`), 'utf8');
    expect(compiled('clients')).toContain('require("../wire/schema-formats").SCHEMA_FORMATS.uri');
    expect(compiled('payment-order')).toContain('require("../wire/schema-formats").SCHEMA_FORMATS["date-time"]');
  });
});

const KNOWN_DATE_TIMES = [
  '2026-11-22T09:00:00Z',
  '2026-11-22T09:00:00.123Z',
  '2026-11-22T09:00:00.123456789Z',
  '2026-11-22T09:00:00.1234567891Z',
  '2026-11-22t09:00:00z',
  '2026-11-22 09:00:00Z',
  '2026-11-22T09:00:00+01:00',
  '2026-11-22T09:00:00-0130',
  '2026-11-22T09:00:00',
  '2026-11-22T23:59:60Z',
  '2026-12-31T23:59:60Z',
  '2026-11-22T24:00:00Z',
  '2026-11-22T09:60:00Z',
  '2026-02-29T00:00:00Z',
  '2028-02-29T00:00:00Z',
  '2000-02-29T00:00:00Z',
  '1900-02-29T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '0099-12-31T23:59:59Z',
  '2026-13-01T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-11-22T9:00:00Z',
  '2026-11-22T09:00:00.Z',
  '26-11-22T09:00:00Z',
  '2026-11-22',
  '',
];

/** Random date-times from valid and invalid fields. */
function generatedDateTimes(count: number): string[] {
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const pick = <T>(values: T[]) => values[random(values.length)];
  const two = () => String(random(100)).padStart(2, '0');
  const strings: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const year = pick(['2026', '2028', '2000', '1900', '0004', '0000', '999', '20266']);
    const date = `${year}-${pick(['01', '02', '04', '12', '13', '00', two()])}-${pick(['01', '28', '29', '30', '31', '32', '00', two()])}`;
    const time = `${pick(['00', '09', '23', '24', two()])}:${pick(['00', '59', '60', two()])}:${pick(['00', '59', '60', '61', two()])}`;
    const fraction = pick(['', '', '.1', '.123', '.123456789', '.1234567891', '.']);
    const zone = pick(['Z', 'Z', 'Z', 'z', '+01:00', '-0130', '+24:00', '']);
    strings.push(`${date}${pick(['T', 'T', 'T', 't', ' ', 'X'])}${time}${fraction}${zone}`);
  }
  return strings;
}

describe('the date-time format', () => {
  it('answers as ajv-formats does for known date-times and non-date-times', () => {
    for (const value of KNOWN_DATE_TIMES) expect([value, dateTime(value)]).toEqual([value, fullDateTime(value)]);
    expect(dateTime('2026-11-22T09:00:00Z')).toBe(true);
    expect(dateTime('2026-11-22T09:00:00+01:00')).toBe(true);
    expect(dateTime('2026-02-29T00:00:00Z')).toBe(false);
  });

  it('answers as ajv-formats does for 20,000 generated strings, UTC instants among them', () => {
    expectAsAjvFormats(dateTime, fullDateTime, generatedDateTimes(20_000), (value) => value.endsWith('Z'), 500);
  });
});
