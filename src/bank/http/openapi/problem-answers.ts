// Refusals as OpenAPI responses: an operation's problem codes, grouped by the HTTP status each has
// (wire/problems PROBLEM_TYPES), each group a problem+json response whose schema narrows `code` and `status` to
// that group, with one example per code. The token endpoint's RFC 6749 errors are built the same way.
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPES, ProblemCode, problemTypeUri } from '../../../wire/problems';
import { OAUTH_ERRORS, OAuthErrorCode } from '../token/oauth-errors';
import { OAuthErrorSpec } from './model';
import { componentRef, JsonObject } from './schema-components';
import { responseHeader } from './headers';

const EXAMPLE_REQUEST_ID = '6f1c2b9e-4a7d-4c1e-9d65-0b8f3c7e2a10';

/** What a refusal of each code says (detail) and which extensions it carries, as the Bank writes them. A code
 * without an entry shows its title as the detail. */
const EXAMPLE_DETAILS: Partial<Record<ProblemCode, { detail: string; extensions?: JsonObject }>> = {
  header_missing: { detail: 'x-idempotency-key is required' },
  header_invalid: { detail: 'x-nonce must be 16 to 128 characters of [A-Za-z0-9_-]' },
  body_malformed: { detail: 'the body is not valid JSON' },
  body_invalid: {
    detail: 'the order does not match schemas/payment-order.schema.json',
    extensions: { errors: [{ path: '/creditors/0/amount', message: 'must match pattern "^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,2})?$"' }] },
  },
  auth_missing: { detail: 'send Authorization: Bearer <token>, DPoP <token> or, where allowed, X-API-Key <key>' },
  auth_invalid: { detail: 'access token rejected: token expired', extensions: { reason: 'token_expired' } },
  client_unknown: { detail: 'no client "acme-connector" is registered' },
  signature_missing: { detail: 'X-Signature is required' },
  signature_invalid: {
    detail: 'the signature does not verify over the signature base',
    extensions: {
      reason: 'signature_mismatch',
      signature_base: '@method: POST\n@target-uri: /payment-orders\nx-client-id: demo-connector\nx-request-id: 6f1c2b9e-4a7d-4c1e-9d65-0b8f3c7e2a10\nx-timestamp: 2026-11-22T10:15:30Z\nx-nonce: m3yX9bQ2kP7vL0sR4tW8zA\nx-idempotency-key: order-ORD-2026-0001-create\ncontent-digest: sha-256=:GRAK9fU1fcGVr7jH3+FBtylWeZUDcGEE0SLUoJwqzBE=:',
      content_digest: 'sha-256=:GRAK9fU1fcGVr7jH3+FBtylWeZUDcGEE0SLUoJwqzBE=:',
      kid: 'demo-key-1',
      alg: 'ES256',
    },
  },
  timestamp_out_of_window: {
    detail: "X-Timestamp 2026-11-22T09:00:00Z is more than 300 s from the bank's clock (2026-11-22T10:15:30.412Z)",
    extensions: { bank_time: '2026-11-22T10:15:30.412Z', window_s: 300 },
  },
  nonce_replayed: { detail: 'X-Nonce was already used by this client within the acceptance window', extensions: { first_seen_at: '2026-11-22T10:15:01.003Z' } },
  mtls_required: { detail: 'present a client certificate issued by the sandbox CA' },
  order_not_found: { detail: 'no order "ORD-2026-0404" for client demo-connector' },
  route_not_found: { detail: 'no endpoint GET /payment-order' },
  method_not_allowed: { detail: 'use POST on this endpoint' },
  order_final: { detail: 'order ORD-2026-0001 is already SUCCESS; a final status never changes' },
  client_exists: { detail: 'a client with client_id acme-connector already exists' },
  run_in_progress: { detail: 'a conformance run for acme-connector is already in progress' },
  query_invalid: { detail: 'limit must be a whole number from 1 to 1000' },
  clock_backwards: { detail: 'the test clock of acme-connector is at 2026-11-22T11:00:00.000Z; it cannot move back to 2026-11-22T10:00:00.000Z' },
  not_found: { detail: 'no order "ORD-2026-0404" for client acme-connector' },
  wait_timeout: { detail: 'order "ORD-2026-0003" of acme-connector did not reach final within 30 s; it is PENDING' },
  duplicate_reference: { detail: 'an order with reference "ORD-2026-0001" already exists for this client; reuse its X-Idempotency-Key to replay the answer' },
  idempotency_in_progress: { detail: 'the first request with X-Idempotency-Key "order-ORD-2026-0001-create" is still being processed; retry shortly' },
  body_too_large: { detail: 'Content-Length 300000 exceeds the 262144-byte limit' },
  unsupported_media_type: { detail: 'Content-Type must be application/json (UTF-8), got "text/plain"' },
  idempotency_key_reused: { detail: 'X-Idempotency-Key "order-ORD-2026-0001-create" was already used with a different body' },
  rate_limited: { detail: 'over the create quota for this client; retry in 1 s' },
  internal: { detail: 'the bank failed to process this request; it has been logged under this request_id' },
};

export function problemExample(code: ProblemCode, instance: string): JsonObject {
  const { status, title } = PROBLEM_TYPES[code];
  const { detail, extensions } = EXAMPLE_DETAILS[code] ?? { detail: title };
  return { type: problemTypeUri(code), title, status, detail, instance, code, request_id: EXAMPLE_REQUEST_ID, ...extensions };
}

/** Response headers a problem of this status always or sometimes carries. */
function problemHeaders(status: number, codes: readonly ProblemCode[]): JsonObject {
  const headers: JsonObject = { 'X-Request-Id': responseHeader('XRequestId') };
  if (status === 401) headers['WWW-Authenticate'] = responseHeader('WWWAuthenticate');
  if (codes.includes('rate_limited') && codes.every((code) => code === 'rate_limited')) headers['Retry-After'] = responseHeader('RetryAfter');
  else if (codes.includes('rate_limited') || codes.includes('idempotency_in_progress')) headers['Retry-After'] = responseHeader('RetryAfterOptional');
  return headers;
}

function describeCodes(codes: readonly ProblemCode[]): string {
  return codes.map((code) => `\`${code}\`: ${PROBLEM_TYPES[code].title}`).join('; ');
}

/** The problem+json responses of an operation, keyed by status. `instance` is the path the examples show. */
export function problemResponses(codes: readonly ProblemCode[], instance: string): Record<string, JsonObject> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) {
    const status = PROBLEM_TYPES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonObject> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) responses[String(status)] = problemResponse(status, group, instance, describeCodes(group));
  return responses;
}

/**
 * What node's HTTP parser makes the Bank answer on any operation, with its own status and the profile's nearest
 * code (wire/client-errors.ts): a head or body that did not arrive in time, a head over node's size limit.
 */
export function parserRefusalResponses(instance: string): Record<string, JsonObject> {
  return {
    '408': problemResponse(408, ['header_invalid', 'body_malformed'], instance, 'The request head (`header_invalid`) or body (`body_malformed`) did not arrive within the server\'s time-out.'),
    '431': problemResponse(431, ['header_invalid'], instance, 'The request line and headers are over the server\'s size limit (16 KiB).'),
  };
}

function problemResponse(status: number, group: readonly ProblemCode[], instance: string, description: string): JsonObject {
  return {
    description,
    headers: problemHeaders(status, group),
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: {
          allOf: [
            { $ref: componentRef('problem') },
            { properties: { status: { const: status }, code: { enum: [...group] }, type: { enum: group.map(problemTypeUri) } } },
          ],
        },
        examples: Object.fromEntries(group.map((code) => [code, { summary: PROBLEM_TYPES[code].title, value: { ...problemExample(code, instance), status } }])),
      },
    },
  };
}

/** The profile code the Bank reports with an RFC 6749 error (token/oauth-errors.ts), when the group lists it. */
function exampleCode(error: string, codes: readonly ProblemCode[]): ProblemCode {
  const mapped = OAUTH_ERRORS[error as OAuthErrorCode]?.code;
  return mapped !== undefined && codes.includes(mapped) ? mapped : codes[0];
}

/** The token endpoint's errors (RFC 6749 §5.2): application/json {error, error_description, code, request_id}. */
export function oauthErrorResponses(specs: readonly OAuthErrorSpec[]): Record<string, JsonObject> {
  const responses: Record<string, JsonObject> = {};
  for (const spec of specs) {
    const headers: JsonObject = { 'X-Request-Id': responseHeader('XRequestId'), 'Cache-Control': responseHeader('CacheControl') };
    if (spec.status === 401) headers['WWW-Authenticate'] = responseHeader('WWWAuthenticateBasic');
    const examples = Object.fromEntries(
      spec.errors.map((error) => [error, { summary: error, value: { error, error_description: `see RFC 6749 §5.2: ${error}`, code: exampleCode(error, spec.codes), request_id: EXAMPLE_REQUEST_ID } }]),
    );
    responses[String(spec.status)] = {
      description: `RFC 6749 §5.2 error ${spec.errors.map((error) => `\`${error}\``).join(', ')} (profile code ${spec.codes.map((code) => `\`${code}\``).join(', ')})`,
      headers,
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: componentRef('oauth-error') }, { properties: { error: { enum: spec.errors }, code: { enum: spec.codes } } }] },
          examples,
        },
      },
    };
  }
  return responses;
}
