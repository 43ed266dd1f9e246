// wire/schema-formats.ts: our `uri` format answers exactly what ajv-formats' full `uri` answers (it only skips the
// full expression for plain http(s) URLs), and every way the schemas are compiled uses it.
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';
import { addSchemaFormats, SCHEMA_FORMATS, uri } from '../../src/wire/schema-formats';

const fullUri = fullFormats.uri as (value: string) => boolean;

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
    const strings = generated(20_000);
    const differing = strings.filter((value) => uri(value) !== fullUri(value));
    expect(differing).toEqual([]);
    // The generator reaches both answers, and the quick path.
    expect(strings.filter((value) => uri(value)).length).toBeGreaterThan(1_000);
    expect(strings.filter((value) => !uri(value)).length).toBeGreaterThan(1_000);
    expect(strings.filter((value) => /^https?:\/\/\w/.test(value) && uri(value)).length).toBeGreaterThan(1_000);
  });

  it('is the one every way of compiling the schemas uses', () => {
    expect(SCHEMA_FORMATS.uri).toBe(uri);
    expect(SCHEMA_FORMATS['date-time']).toBe(fullFormats['date-time']);
    const ajv = new Ajv();
    addSchemaFormats(ajv);
    expect(ajv.formats.uri).toBe(uri);
    // The build's standalone validators (scripts/compile-schemas.js) take their formats from dist/wire/.
    const clients = fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'compiled-schemas', 'clients.js'), 'utf8');
    expect(clients).toContain('require("../wire/schema-formats").SCHEMA_FORMATS.uri');
  });
});
