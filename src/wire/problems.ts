// RFC 9457 problem details with the profile's codes (section 5). Every 4xx/5xx leaves through here.

/** One body-validation finding: a JSON pointer and what is wrong there. */
export interface Violation {
  path: string;
  message: string;
}

export const PROBLEM_TYPES = {
  header_missing: { status: 400, title: 'A required header is missing' },
  header_invalid: { status: 400, title: 'A header is malformed' },
  body_malformed: { status: 400, title: 'The body is not JSON' },
  body_invalid: { status: 400, title: 'The body does not match the schema' },
  auth_missing: { status: 401, title: 'Authorization is missing' },
  auth_invalid: { status: 401, title: 'Authorization is not valid' },
  client_unknown: { status: 401, title: 'Unknown client' },
  signature_missing: { status: 401, title: 'X-Signature is missing' },
  signature_invalid: { status: 401, title: 'X-Signature does not verify' },
  timestamp_out_of_window: { status: 401, title: 'X-Timestamp is outside the accepted window' },
  nonce_replayed: { status: 401, title: 'X-Nonce was already used' },
  mtls_required: { status: 403, title: 'A client certificate is required' },
  order_not_found: { status: 404, title: 'Order not found' },
  route_not_found: { status: 404, title: 'No such endpoint' },
  method_not_allowed: { status: 405, title: 'Method not allowed on this endpoint' },
  order_final: { status: 409, title: 'The order is already final' },
  client_exists: { status: 409, title: 'A client with this client_id already exists' },
  run_in_progress: { status: 409, title: 'A conformance run for this client is already in progress' },
  query_invalid: { status: 400, title: 'A query parameter is not valid' },
  clock_backwards: { status: 400, title: 'A test clock cannot move back' },
  not_found: { status: 404, title: 'No such resource' },
  wait_timeout: { status: 408, title: 'The awaited state was not reached in time' },
  duplicate_reference: { status: 409, title: 'An order with this reference already exists' },
  idempotency_in_progress: { status: 409, title: 'A request with this idempotency key is still being processed' },
  body_too_large: { status: 413, title: 'The body is too large' },
  unsupported_media_type: { status: 415, title: 'The body must be uncompressed application/json' },
  idempotency_key_reused: { status: 422, title: 'The idempotency key was used with a different body' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
} as const;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** RFC 9110 15.5.2: every 401 names the schemes that would work. */
export const AUTH_CHALLENGE = 'Bearer realm="sandbox-bank", DPoP realm="sandbox-bank", algs="ES256 PS256 RS256"';

export function problemTypeUri(code: ProblemCode): string {
  return `urn:sandbox-bank:problem:${code}`;
}

export interface ProblemOptions {
  errors?: Violation[];
  /** Where a flow fixes another HTTP status for the code (the token endpoint's RFC 6749 answers). */
  status?: number;
  headers?: Record<string, string>;
  /** Extra members (for instance RFC 6749 `error` on the token endpoint). */
  extensions?: Record<string, unknown>;
}

/** A protocol error that maps to one wire code. Steps throw it; the error handler renders it. */
export class ProblemError extends Error {
  readonly status: number;

  constructor(readonly code: ProblemCode, readonly detail: string, readonly options: ProblemOptions = {}) {
    super(`${code}: ${detail}`);
    this.status = options.status ?? PROBLEM_TYPES[code].status;
  }
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ProblemCode;
  request_id: string;
  errors?: Violation[];
  [extension: string]: unknown;
}

export function problemBody(problem: ProblemError, instance: string, requestId: string): ProblemBody {
  const body: ProblemBody = {
    type: problemTypeUri(problem.code),
    title: PROBLEM_TYPES[problem.code].title,
    status: problem.status,
    detail: problem.detail,
    instance,
    code: problem.code,
    request_id: requestId,
    ...problem.options.extensions,
  };
  if (problem.options.errors) body.errors = problem.options.errors;
  return body;
}
