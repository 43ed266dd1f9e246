// The formats our JSON schemas use: ajv-formats' full set, with a quicker `uri`. ajv-formats checks a URI against
// one regular expression of ~1,150 characters (RFC 3986 with every IPv6 form); V8 takes ~8 ms to run it the first
// time and ~1 ms each of the next few, and every start ran it on the clients file's URLs (issue 15).
// The quick expression accepts only plain http(s) URLs, each of which the full one accepts too; anything else
// still goes to the full one, so what is valid is exactly what ajv-formats says.
import type Ajv from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';

/** http(s)://host[:port][/path][?query] of RFC 3986's unreserved and sub-delim characters, without % escapes. */
const PLAIN_HTTP_URL = /^https?:\/\/[a-z0-9.-]+(?::\d+)?(?:\/[a-z0-9\-._~!$&'()*+,;=:@]*)*(?:\?[a-z0-9\-._~!$&'()*+,;=:@/?]*)?$/i;

const fullUri = fullFormats.uri as (value: string) => boolean;

export function uri(value: string): boolean {
  return PLAIN_HTTP_URL.test(value) || fullUri(value);
}

/** The formats the build's standalone validators take (scripts/compile-schemas.js). */
export const SCHEMA_FORMATS = { ...fullFormats, uri };

/** ajv-formats' formats on `ajv`, with this `uri`. */
export function addSchemaFormats(ajv: Ajv): void {
  const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
  addFormats(ajv);
  ajv.addFormat('uri', uri);
}
