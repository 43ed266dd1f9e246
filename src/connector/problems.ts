// Errors the reference Connector answers, as RFC 9457 problem details with the same `code` vocabulary as the
// Bank (profile section 5). What it shows a Connector team: every 4xx/5xx leaves through one handler, with a
// machine-readable code the Bank can log, and a callback is either accepted (200) or rejected as a whole.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'winston';
import { PROBLEM_TYPES, ProblemError, Violation } from '../wire/problems';

/** The Bank's codes (one vocabulary on both sides of the wire) plus the three only a Connector answers. */
export const PROBLEMS = {
  ...PROBLEM_TYPES,
  query_invalid: { status: 400, title: 'A query parameter is missing or malformed' },
  final_status_conflict: { status: 409, title: 'A final status never changes' },
  jwks_unavailable: { status: 503, title: "The Bank's JWKS could not be fetched" },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

/** One finding in a rejected body: a JSON pointer and what is wrong there. */
export type ProblemDetail = Violation;

export class Problem extends Error {
  readonly status: number;

  constructor(readonly code: ProblemCode, readonly detail: string, readonly errors?: ProblemDetail[]) {
    super(`${code}: ${detail}`);
    this.status = PROBLEMS[code].status;
  }
}

/**
 * Express error handler: renders a Problem, or a ProblemError of the shared edge (wire/http-edge: unknown
 * route), or anything else as a 500 without internals. request_id is the X-Request-Id the access log settled on
 * (app.ts: the caller's when it is a plain token, else a new one), so every problem carries one.
 */
export function problemHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    let problem: Problem;
    if (error instanceof Problem) problem = error;
    else if (error instanceof ProblemError) problem = new Problem(error.code, error.detail, error.options.errors);
    else {
      problem = new Problem('internal', 'the connector failed to process this request');
      logger.error('unhandled error', { path: req.path, error: (error as Error)?.stack ?? String(error) });
    }
    res.locals.problemCode = problem.code;
    // A caller gone mid-request gets nothing: there is no one to write to.
    if (res.headersSent || req.socket.destroyed) return;
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
