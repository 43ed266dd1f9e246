// Errors the reference Connector answers, as RFC 9457 problem details with the same `code` vocabulary as the
// Bank (profile section 5). What it shows a Connector team: every 4xx/5xx leaves through one handler, with a
// machine-readable code the Bank can log, and a callback is either accepted (200) or rejected as a whole.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'winston';

export const PROBLEMS = {
  header_missing: { status: 400, title: 'A required header is missing' },
  header_invalid: { status: 400, title: 'A header is malformed' },
  query_invalid: { status: 400, title: 'A query parameter is missing or malformed' },
  body_malformed: { status: 400, title: 'The body is not JSON' },
  body_invalid: { status: 400, title: 'The body does not match the contract' },
  auth_missing: { status: 401, title: 'Authorization is missing' },
  auth_invalid: { status: 401, title: 'Authorization is not valid' },
  client_unknown: { status: 401, title: 'Unknown client' },
  signature_missing: { status: 401, title: 'X-Signature is missing' },
  signature_invalid: { status: 401, title: 'X-Signature does not verify' },
  timestamp_out_of_window: { status: 401, title: 'X-Timestamp is outside the accepted window' },
  nonce_replayed: { status: 401, title: 'X-Nonce was already used' },
  order_not_found: { status: 404, title: 'Order not found' },
  route_not_found: { status: 404, title: 'No such endpoint' },
  final_status_conflict: { status: 409, title: 'A final status never changes' },
  body_too_large: { status: 413, title: 'The body is too large' },
  unsupported_media_type: { status: 415, title: 'Content-Type must be application/json' },
  idempotency_key_reused: { status: 422, title: 'The idempotency key was used with a different body' },
  internal: { status: 500, title: 'Internal error' },
  jwks_unavailable: { status: 503, title: "The Bank's JWKS could not be fetched" },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

export interface ProblemDetail {
  path: string;
  message: string;
}

export class Problem extends Error {
  readonly status: number;

  constructor(readonly code: ProblemCode, readonly detail: string, readonly errors?: ProblemDetail[]) {
    super(`${code}: ${detail}`);
    this.status = PROBLEMS[code].status;
  }
}

/** Express error handler: renders a Problem (or anything else as a 500 without internals). */
export function problemHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    let problem: Problem;
    if (error instanceof Problem) problem = error;
    else if ((error as { type?: string })?.type === 'entity.too.large') problem = new Problem('body_too_large', 'the body is too large');
    else {
      problem = new Problem('internal', 'the connector failed to process this request');
      logger.error('unhandled error', { path: req.path, error: (error as Error)?.stack ?? String(error) });
    }
    res.locals.problemCode = problem.code;
    if (res.headersSent) return;
    const body: Record<string, unknown> = {
      type: `urn:reference-connector:problem:${problem.code}`,
      title: PROBLEMS[problem.code].title,
      status: problem.status,
      detail: problem.detail,
      instance: req.path,
      code: problem.code,
      request_id: res.locals.requestId,
    };
    if (problem.errors) body.errors = problem.errors;
    res.status(problem.status).type('application/problem+json').send(JSON.stringify(body));
  };
}
