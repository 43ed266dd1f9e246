// Step 2: the flow's required non-security headers are present, single and well formed.
import { isNonce, parseTimestamp } from '../../../wire/freshness';
import { ProblemError } from '../../../wire/problems';
import { Step } from '../exchange';
import { REQUEST_ID } from '../../../wire/request-id';

const CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

const SYNTAX: Record<string, { test: (value: string) => boolean; expected: string }> = {
  'x-client-id': { test: (value) => CLIENT_ID.test(value), expected: '1 to 64 characters of [A-Za-z0-9._-]' },
  'x-request-id': { test: (value) => REQUEST_ID.test(value), expected: '1 to 200 visible ASCII characters' },
  'x-idempotency-key': { test: (value) => IDEMPOTENCY_KEY.test(value), expected: '1 to 255 visible ASCII characters' },
  'x-timestamp': { test: (value) => parseTimestamp(value) !== null, expected: 'an RFC 3339 UTC instant ending in Z' },
  'x-nonce': { test: isNonce, expected: '16 to 128 characters of [A-Za-z0-9_-]' },
  'content-type': { test: () => true, expected: 'application/json' },
};

/** Headers that must never be sent twice: a repeat would make the signed value ambiguous. */
const SINGLE_VALUED = new Set(['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key', 'x-signature', 'authorization', 'dpop', 'content-type']);

/**
 * The first single-valued header sent twice, in any spelling. Node folds repeated names (case-insensitively) into
 * one key of `headers`, so as many keys as raw names means nothing was repeated: the common case, without lower-casing
 * every name (~2 µs a create, issue 15).
 */
function repeatedHeader(rawHeaders: string[], headers: Readonly<Record<string, unknown>>): string | undefined {
  if (rawHeaders.length === 2 * Object.keys(headers).length) return undefined;
  const seen = new Set<string>();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index].toLowerCase();
    if (!SINGLE_VALUED.has(name)) continue;
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}

export const checkHeaders: Step = (exchange, _services, spec) => {
  const repeated = repeatedHeader(exchange.req.rawHeaders, exchange.req.headers);
  if (repeated) throw new ProblemError('header_invalid', `${repeated} must be sent once`);
  for (const name of spec.requiredHeaders) {
    const value = exchange.header(name);
    if (value === undefined || value === '') throw new ProblemError('header_missing', `${name} is required`);
    const syntax = SYNTAX[name];
    if (!syntax.test(value)) throw new ProblemError('header_invalid', `${name} must be ${syntax.expected}`);
  }
};
