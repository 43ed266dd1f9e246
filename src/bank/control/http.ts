// What every control-plane endpoint shares (control-plane.md, preamble): strict query parsing (unknown or bad
// parameters are 400 query_invalid), cursor lists `{data, next_cursor}` newest first, JSON bodies validated
// against schemas/control/<name>.schema.json (400 body_malformed / body_invalid), RFC 3339 times.
import fs from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import type { Logger } from 'winston';
import type { ValidateFunction } from 'ajv';
import { ProblemError } from '../../wire/problems';
import { parseInstant } from '../../wire/rfc3339';
import { SCHEMA_DIR, violationsOf } from '../../wire/schemas';
import { parseJsonBody } from '../application/order-validation';

/** A query parameter parser: the value, or throws (its message becomes the problem's detail). */
export type QueryParser<T> = (value: string, name: string) => T;

function queryInvalid(detail: string): ProblemError {
  return new ProblemError('query_invalid', detail);
}

export const queryText: QueryParser<string> = (value, name) => {
  if (value === '' || value.length > 200) throw queryInvalid(`${name} must be 1 to 200 characters`);
  return value;
};

export function queryEnum<T extends string>(...allowed: T[]): QueryParser<T> {
  return (value, name) => {
    if (!(allowed as string[]).includes(value)) throw queryInvalid(`${name} must be one of ${allowed.join(', ')}`);
    return value as T;
  };
}

export const queryInstant: QueryParser<number> = (value, name) => {
  const ms = parseInstant(value);
  if (ms === null) throw queryInvalid(`${name} must be an RFC 3339 UTC instant ending in Z`);
  return ms;
};

export function queryInteger(min: number, max: number): QueryParser<number> {
  return (value, name) => {
    if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) throw queryInvalid(`${name} must be a whole number from ${min} to ${max}`);
    return Number(value);
  };
}

export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 1000;

/** The list parameters every list endpoint takes. */
export const LIST_QUERY = { limit: queryInteger(1, LIST_MAX_LIMIT), cursor: queryText };

type Parsed<S extends Record<string, QueryParser<unknown>>> = { [K in keyof S]?: S[K] extends QueryParser<infer T> ? T : never };

/** Parses req.query against `spec`: every parameter known, single-valued and well formed. */
export function parseQuery<S extends Record<string, QueryParser<unknown>>>(req: Request, spec: S): Parsed<S> {
  const parsed: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(req.query)) {
    // Own members only: `__proto__`, `constructor` or `valueOf` name Object.prototype's, not a parameter.
    const parser = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (typeof parser !== 'function') throw queryInvalid(`unknown query parameter "${name}"; allowed: ${Object.keys(spec).join(', ') || 'none'}`);
    if (typeof raw !== 'string') throw queryInvalid(`${name} must be given once`);
    parsed[name] = parser(raw, name);
  }
  return parsed as Parsed<S>;
}

/** Opaque cursors: the position after the last item of a page (an id or a sort key), base64url JSON. */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeCursor<T>(cursor: string | undefined, isPosition: (value: unknown) => value is T): T | null {
  if (cursor === undefined) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (isPosition(value)) return value;
  } catch {
    // falls through to the problem
  }
  throw queryInvalid('cursor is not one this endpoint gave out');
}

export interface ListPage<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * Builds a page from up to `limit + 1` fetched rows: the extra row only says whether there is a next page, and so
 * does `cut`, when the reader stopped early.
 */
export function listPage<R, T>(rows: R[], limit: number, view: (row: R) => T, positionOf: (row: R) => unknown, cut = false): ListPage<T> {
  const more = cut || rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return { data: shown.map(view), next_cursor: more ? encodeCursor(positionOf(shown[shown.length - 1])) : null };
}

const validators = new Map<string, ValidateFunction>();

/** The validator of schemas/control/<name>.schema.json, compiled on first use (no cost at start). */
function controlValidator(name: string): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) {
    const { default: Ajv } = require('ajv') as typeof import('ajv');
    const { addSchemaFormats } = require('../../wire/schema-formats') as typeof import('../../wire/schema-formats');
    // strictRequired off: oneOf/if branches name properties their parent schema defines.
    const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
    addSchemaFormats(ajv);
    validate = ajv.compile(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, 'control', `${name}.schema.json`), 'utf8')));
    validators.set(name, validate);
  }
  return validate;
}

/** The request body as JSON matching schemas/control/<name>.schema.json (an empty body reads as {}). */
export function controlBody<T>(req: Request, name: string): T {
  const raw = req.body instanceof Buffer ? req.body : Buffer.alloc(0);
  const value = raw.length === 0 ? {} : parseJsonBody(raw);
  const validate = controlValidator(name);
  if (!validate(value)) throw new ProblemError('body_invalid', `the body does not match schemas/control/${name}.schema.json`, { errors: violationsOf(validate) });
  return value as T;
}

/** RFC 3339 with milliseconds for times in control-plane answers (never epoch numbers). */
export function instant(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** The Bank's logger with this request's `request_id` on every line (docs/operations.md, "Logs"). */
export function requestLog(logger: Logger, res: Response): Logger {
  return logger.child({ request_id: res.locals.requestId as string });
}
