// The formats our JSON schemas use: ajv-formats' full set, with a quicker `uri` and `date-time`. Each quick check
// accepts only values the full one accepts too, and hands anything else to the full one, so what is valid is
// exactly what ajv-formats says (test/unit/schema-formats.test.ts).
// - `uri`: ajv-formats checks a URI against one regular expression of ~1,150 characters (RFC 3986 with every IPv6
//   form); V8 takes ~8 ms to run it the first time and ~1 ms each of the next few, and every start ran it on the
//   clients file's URLs (issue 15). The quick expression accepts only plain http(s) URLs.
// - `date-time`: every create's initiated_at. ajv-formats splits the value and runs two expressions (~1.7 us of a
//   create in the profile, issue 15); the exchange's own form (UTC, `Z`) is checked by parseInstant instead.
import type Ajv from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';
import { parseInstant } from './rfc3339';

/** http(s)://host[:port][/path][?query] of RFC 3986's unreserved and sub-delim characters, without % escapes. */
const PLAIN_HTTP_URL = /^https?:\/\/[a-z0-9.-]+(?::\d+)?(?:\/[a-z0-9\-._~!$&'()*+,;=:@]*)*(?:\?[a-z0-9\-._~!$&'()*+,;=:@/?]*)?$/i;

const fullUri = fullFormats.uri as (value: string) => boolean;

export function uri(value: string): boolean {
  return PLAIN_HTTP_URL.test(value) || fullUri(value);
}

const FULL_DATE_TIME = fullFormats['date-time'] as { validate: (value: string) => boolean; compare: (a: string, b: string) => number | undefined };

export function dateTime(value: string): boolean {
  return parseInstant(value) !== null || FULL_DATE_TIME.validate(value);
}

/** ajv-formats' date-time with the quick check (its comparison, for formatMinimum and the like, as it is). */
const DATE_TIME = { ...FULL_DATE_TIME, validate: dateTime };

/** The formats the build's standalone validators take (scripts/compile-schemas.js). */
export const SCHEMA_FORMATS = { ...fullFormats, uri, 'date-time': DATE_TIME };

/** ajv-formats' formats on `ajv`, with these `uri` and `date-time`. */
export function addSchemaFormats(ajv: Ajv): void {
  const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
  addFormats(ajv);
  ajv.addFormat('uri', uri);
  ajv.addFormat('date-time', DATE_TIME);
}
