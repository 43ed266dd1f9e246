// The oracle: the checks every answer passes (a 4xx problem with an expected code), and after a run, that the Bank
// still answers, nothing but verified nonces changed and no unhandled error was logged.
import request from 'supertest';
import { PROBLEM_TYPES } from '../../../src/wire/problems';
import { WireRequest } from './requests';
import { nonceRows, snapshotStore } from './store-snapshot';
import { sendRequest, WireResponse } from './transport';
import { FuzzTarget } from './types';

type Code = keyof typeof PROBLEM_TYPES;

/** Every code a bad request may legitimately get: the profile's section 5 table (all but `internal`). */
export const CLIENT_ERROR_CODES = new Set<string>(Object.keys(PROBLEM_TYPES).filter((code) => code !== 'internal'));

/** Codes that are only reached after the signature verified and the nonce was spent (profile section 5 order). */
export const AFTER_NONCE_CODES = new Set<string>(['idempotency_key_reused', 'idempotency_in_progress', 'duplicate_reference', 'body_malformed', 'body_invalid', 'order_not_found']);

const REQUEST_ID = /^[\x21-\x7E]{1,200}$/;
const STACK_LIKE = /\n\s+at |\((?:\/|file:)[^)]*\.[jt]s:\d+:\d+\)|node_modules\//;

function fail(req: WireRequest, response: WireResponse, why: string): never {
  const headers = req.headers.map(([name, value]) => `${name}: ${value.length > 120 ? `${value.slice(0, 120)}…(${value.length})` : value}`).join('\n    ');
  const body = req.body === undefined ? '(none)' : req.body.length > 300 ? `${req.body.subarray(0, 300).toString('latin1')}…(${req.body.length} bytes)` : req.body.toString('latin1');
  throw new Error(
    `${why}\n  kind: ${req.kind}\n  request: ${req.method} ${req.path.length > 200 ? `${req.path.slice(0, 200)}…(${req.path.length})` : req.path}\n    ${headers}\n  body: ${body}\n  answer: ${response.status} ${JSON.stringify(response.headers)}\n  ${response.text.slice(0, 600)}`,
  );
}

/** Profile v1.1 section 3: the token endpoint answers RFC 6749 §5.2 JSON, with these errors only. */
const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'unsupported_grant_type', 'unauthorized_client', 'invalid_dpop_proof']);

function parseBody(req: WireRequest, response: WireResponse, contentType: RegExp): Record<string, unknown> {
  if (!contentType.test(String(response.headers['content-type']))) fail(req, response, `Content-Type does not match ${contentType}`);
  try {
    return JSON.parse(response.text) as Record<string, unknown>;
  } catch {
    fail(req, response, 'the error body is not JSON');
  }
}

/** RFC 9457 problem+json (profile section 5): every member, the code's status, type and title. */
function checkProblemBody(req: WireRequest, response: WireResponse): Record<string, unknown> {
  const body = parseBody(req, response, /^application\/problem\+json(;|$)/);
  for (const member of ['type', 'title', 'detail', 'instance', 'code', 'request_id']) {
    if (typeof body[member] !== 'string') fail(req, response, `problem member ${member} is missing or not a string`);
  }
  const code = body.code as string;
  if (!CLIENT_ERROR_CODES.has(code)) fail(req, response, `code ${code} is not one of the profile's client-error codes`);
  if (body.status !== response.status || PROBLEM_TYPES[code as Code].status !== response.status) fail(req, response, `status ${response.status} does not match code ${code}`);
  if (body.type !== `urn:sandbox-bank:problem:${code}`) fail(req, response, 'type does not name the code');
  if (body.title !== PROBLEM_TYPES[code as Code].title) fail(req, response, 'title is not the code title');
  if (STACK_LIKE.test(String(body.detail))) fail(req, response, 'detail looks like a stack trace');
  return body;
}

/** RFC 6749 §5.2 JSON on the token endpoint (profile v1.1 section 3): error, error_description, code, request_id. */
function checkOAuthBody(req: WireRequest, response: WireResponse): Record<string, unknown> {
  const body = parseBody(req, response, /^application\/json(;|$)/);
  for (const member of ['error', 'error_description', 'code', 'request_id']) {
    if (typeof body[member] !== 'string') fail(req, response, `token error member ${member} is missing or not a string`);
  }
  if (!OAUTH_ERRORS.has(body.error as string)) fail(req, response, `error ${String(body.error)} is not an RFC 6749 / RFC 9449 token error`);
  if (!CLIENT_ERROR_CODES.has(body.code as string)) fail(req, response, `code ${String(body.code)} is not one of the profile's client-error codes`);
  if (STACK_LIKE.test(String(body.error_description))) fail(req, response, 'error_description looks like a stack trace');
  return body;
}

/** A 4xx with the profile's error body, consistent headers, and one of the expected codes. */
export function checkAnswer(t: FuzzTarget, req: WireRequest, response: WireResponse): string {
  t.stats.requests += 1;
  t.stats.byKind.set(req.kind, (t.stats.byKind.get(req.kind) ?? 0) + 1);
  if (response.status < 400 || response.status > 499) fail(req, response, `expected a 4xx, got ${response.status}`);
  const tokenEndpoint = req.path.split('?')[0] === '/oauth/token';
  const body = tokenEndpoint ? checkOAuthBody(req, response) : checkProblemBody(req, response);
  const code = body.code as string;
  const requestId = body.request_id as string;
  if (requestId.length === 0 || response.headers['x-request-id'] !== requestId) fail(req, response, 'X-Request-Id header and request_id differ');
  const sentIds = req.headers.filter(([name]) => name.toLowerCase() === 'x-request-id').map(([, value]) => value.replace(/^[ \t]+|[ \t]+$/g, ''));
  if (sentIds.length === 1 && REQUEST_ID.test(sentIds[0]) && requestId !== sentIds[0]) fail(req, response, 'request_id does not echo X-Request-Id');
  // RFC 6749 §5.2: at the token endpoint only a client that used the Authorization header gets a challenge.
  const challengeExpected = !tokenEndpoint || req.headers.some(([name]) => name.toLowerCase() === 'authorization');
  if (response.status === 401 && challengeExpected !== Boolean(response.headers['www-authenticate'])) {
    fail(req, response, challengeExpected ? '401 without WWW-Authenticate' : 'a client_secret_post 401 with a challenge');
  }
  if (response.status === 405 && !response.headers.allow) fail(req, response, '405 without Allow');
  if (response.status === 429 && !response.headers['retry-after']) fail(req, response, '429 without Retry-After');
  if (req.expect.length > 0 && !req.expect.includes(code)) fail(req, response, `expected ${req.expect.join(' or ')}, got ${code}`);
  t.stats.byCode.set(code, (t.stats.byCode.get(code) ?? 0) + 1);
  if (req.flow && AFTER_NONCE_CODES.has(code)) {
    const clientIds = req.headers.filter(([name]) => name === 'x-client-id');
    const nonces = req.headers.filter(([name]) => name === 'x-nonce');
    if (clientIds.length === 1 && nonces.length === 1) t.stats.expectedSpent.add(`${clientIds[0][1]}|${nonces[0][1]}`);
    else fail(req, response, `${code} for a request without exactly one X-Client-Id and X-Nonce`);
  }
  return code;
}

export async function sendAndCheck(t: FuzzTarget, req: WireRequest, via?: 'raw' | 'supertest' | 'socket'): Promise<string> {
  return checkAnswer(t, req, await sendRequest(t, req, via));
}

/** The bank still answers, nothing but verified nonces changed, and no unhandled error was logged. */
export async function checkAfterRun(t: FuzzTarget, snapshot: string, noncesBefore: Set<string>): Promise<void> {
  const health = await request(t.base).get('/healthz');
  if (health.status !== 200) throw new Error(`healthz answered ${health.status}`);
  const ready = await request(t.base).get('/readyz');
  if (ready.status !== 200) throw new Error(`readyz answered ${ready.status}: ${ready.text}`);
  const after = snapshotStore(t.bank);
  if (after !== snapshot) throw new Error(`the store changed:\n${diffTables(snapshot, after)}`);
  const added = new Set([...nonceRows(t.bank)].filter((row) => !noncesBefore.has(row)));
  const unexpected = [...added].filter((row) => !t.stats.expectedSpent.has(row));
  const missing = [...t.stats.expectedSpent].filter((row) => !added.has(row));
  if (unexpected.length > 0 || missing.length > 0) {
    throw new Error(`nonces: ${unexpected.length} stored without a verified request (${unexpected.slice(0, 5).join(', ')}); ${missing.length} verified but not stored (${missing.slice(0, 5).join(', ')})`);
  }
  const unhandled = t.errorLogs.filter((line) => line.includes('unhandled error'));
  if (unhandled.length > 0) throw new Error(`${unhandled.length} unhandled errors logged, first: ${unhandled[0]}`);
}

function diffTables(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, unknown[]>;
  const b = JSON.parse(after) as Record<string, unknown[]>;
  const lines: string[] = [];
  for (const table of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const left = JSON.stringify(a[table]);
    const right = JSON.stringify(b[table]);
    if (left !== right) lines.push(`  ${table}: ${a[table]?.length ?? 0} -> ${b[table]?.length ?? 0} rows; first new: ${JSON.stringify((b[table] ?? []).find((row) => !left.includes(JSON.stringify(row))))?.slice(0, 400)}`);
  }
  return lines.join('\n');
}
