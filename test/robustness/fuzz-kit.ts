// Shared machinery of the fuzz suites (fuzz.test.ts in `npm test`, long/fuzz-long.test.ts in `npm run test:long`):
// a Bank on a listening loopback socket with a second client, seeded orders and spent nonces; generators that start
// from a correctly signed request and break it in one or several ways; senders (supertest, node:http with repeated
// headers, a raw socket for bytes no client library sends); and the checks every answer must pass.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import net, { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import request from 'supertest';
import winston from 'winston';
import type { Bank } from '../../src/bank/bank';
import type { BankConfig } from '../../src/bank/config';
import { PROBLEM_TYPES } from '../../src/wire/problems';
import { isJsonMediaType } from '../../src/bank/http/steps/check_size_and_media_type';
import { signDetached } from '../../src/wire/jws';
import { PublicJwk, signingKeyFromJwk } from '../../src/wire/keys';
import { SignedFlow, signatureBase } from '../../src/wire/signature-base';
import { TokenService } from '../../src/bank/security/tokens';
import { demo, IBANS, isoNow, newNonce, sampleOrder, startBank } from '../helpers/bank';
import { makeTestClient, TestClient, writeClientsFile } from '../helpers/clients';
import { DpopKey } from '../helpers/dpop';

// ---------------------------------------------------------------------------------------------------------------
// Codes

type Code = keyof typeof PROBLEM_TYPES;

/** Every code a bad request may legitimately get: the profile's section 5 table (all but `internal`). */
export const CLIENT_ERROR_CODES = new Set<string>(Object.keys(PROBLEM_TYPES).filter((code) => code !== 'internal'));

/** Codes that are only reached after the signature verified and the nonce was spent (profile section 5 order). */
export const AFTER_NONCE_CODES = new Set<string>(['idempotency_key_reused', 'idempotency_in_progress', 'duplicate_reference', 'body_malformed', 'body_invalid', 'order_not_found']);

// ---------------------------------------------------------------------------------------------------------------
// The target: a Bank on a socket, a second client, seeded state

export interface Tokens {
  demo: string;
  other: string;
  /** Bank-format token for demo-connector, signed by another key under the Bank's kid. */
  forgedKey: string;
  /** Correctly signed by the Bank, expired an hour ago. */
  expired: string;
  /** Correctly signed by the Bank, with another issuer. */
  wrongIssuer: string;
  /** Correctly signed by the Bank for a client that is not registered. */
  ghost: string;
  /** A DPoP-bound token of demo-connector. */
  dpopBound: string;
}

export interface Seeds {
  /** References of demo-connector's orders (one of them PENDING and due: any leak to the handler would settle it). */
  demoRefs: string[];
  otherRefs: string[];
  /** A reference used by both clients (admin lookup without client_id is ambiguous). */
  sharedRef: string;
  /** An idempotency key of demo-connector and the body it was first used with. */
  demoIdemKey: string;
  demoIdemBody: string;
  /** Nonces already spent by demo-connector (verified requests). */
  spentNonces: string[];
}

export interface FuzzStats {
  requests: number;
  byCode: Map<string, number>;
  byKind: Map<string, number>;
  /** `${client}|${nonce}` of every answered request that passed the nonce check. */
  expectedSpent: Set<string>;
}

export interface FuzzTarget {
  mode: 'relaxed' | 'strict';
  bank: Bank;
  server: http.Server;
  port: number;
  base: string;
  agent: http.Agent;
  other: TestClient;
  adminToken: string | null;
  tokens: Tokens;
  seeds: Seeds;
  /** winston lines at level error (an "unhandled error" is a 500 in the making). */
  errorLogs: string[];
  stats: FuzzStats;
  bodyLimit: number;
  close(): Promise<void>;
}

export const ADMIN_TOKEN = 'fuzz-admin-token-0123456789';
export const BODY_LIMIT = 4096;

function captureLogger(lines: string[]): winston.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString('utf8'));
      callback();
    },
  });
  return winston.createLogger({ level: 'error', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
}

export async function startFuzzTarget(mode: 'relaxed' | 'strict', options: { adminToken?: string | null; overrides?: Partial<BankConfig> } = {}): Promise<FuzzTarget> {
  const other = makeTestClient('fuzz-other');
  const clientsFile = writeClientsFile([other]);
  const errorLogs: string[] = [];
  const adminToken = options.adminToken === undefined ? ADMIN_TOKEN : options.adminToken;
  const bank = await startBank(
    {
      sandboxMode: mode,
      clientsFile,
      bodyLimitBytes: BODY_LIMIT,
      statusRatePerS: 1_000_000,
      statusRateBurst: 1_000_000,
      adminToken,
      connectorUrl: null,
      ...options.overrides,
    },
    { logger: captureLogger(errorLogs) },
  );
  const server = http.createServer(bank.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

  const tokenFor = async (clientId: string, secret: string, dpop?: DpopKey): Promise<string> => {
    let test = request(base).post('/oauth/token').auth(clientId, secret).type('form');
    if (dpop) test = test.set('DPoP', dpop.proof({ htm: 'POST', htu: `http://127.0.0.1:${port}/oauth/token`, iat: Math.floor(Date.now() / 1000) }));
    const response = await test.send({ grant_type: 'client_credentials' });
    if (response.status !== 200) throw new Error(`token for ${clientId}: ${response.status} ${response.text}`);
    return response.body.access_token as string;
  };
  const otherKey = signingKeyFromJwk(other.private_jwk);
  const issuer = bank.config.issuer;
  const tokens: Tokens = {
    demo: await tokenFor(demo.client_id, demo.client_secret),
    other: await tokenFor(other.client_id, other.client_secret),
    forgedKey: new TokenService({ ...otherKey, kid: bank.signer.kid }, bank.clock, issuer, 3600).issue(demo.client_id, null).access_token,
    expired: new TokenService(bank.signer, { now: () => Date.now() - 2 * 3600_000 }, issuer, 3600).issue(demo.client_id, null).access_token,
    wrongIssuer: new TokenService(bank.signer, bank.clock, 'another-bank', 3600).issue(demo.client_id, null).access_token,
    ghost: new TokenService(bank.signer, bank.clock, issuer, 3600).issue('ghost-client', null).access_token,
    dpopBound: await tokenFor(demo.client_id, demo.client_secret, new DpopKey()),
  };

  const target: FuzzTarget = {
    mode, bank, server, port, base, agent, other, adminToken, tokens, errorLogs,
    seeds: { demoRefs: [], otherRefs: [], sharedRef: '', demoIdemKey: '', demoIdemBody: '', spentNonces: [] },
    stats: { requests: 0, byCode: new Map(), byKind: new Map(), expectedSpent: new Set() },
    bodyLimit: BODY_LIMIT,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      bank.close();
    },
  };
  await seed(target);
  return target;
}

/** Valid orders, an idempotency record and spent nonces, before the snapshot. */
async function seed(t: FuzzTarget): Promise<void> {
  const stamp = Date.now().toString(36);
  const shared = `SEED-SHARED-${stamp}`;
  const demoOrders = [
    order({ reference: `SEED-D1-${stamp}` }),
    order({ reference: `SEED-D2-${stamp}`, metadata: { sandbox_scenario: 'PENDING:1:SUCCESS' } }),
    order({ reference: `SEED-D3-${stamp}` }, '12.03'),
    order({ reference: shared }),
  ];
  for (const [index, body] of demoOrders.entries()) {
    const draft = baseCreate(t, 'demo', body);
    const response = await sendRequest(t, finalize(t, draft), 'raw');
    if (index === 0) {
      t.seeds.demoIdemKey = draft.fields['x-idempotency-key'];
      t.seeds.demoIdemBody = draft.body.toString('latin1');
    }
    if (t.mode === 'relaxed' && response.status !== 200) throw new Error(`seed create: ${response.status} ${response.text}`);
    if (response.status === 200) t.seeds.demoRefs.push(String(body.reference));
  }
  for (const body of [order({ reference: `SEED-O1-${stamp}` }), order({ reference: shared })]) {
    const response = await sendRequest(t, finalize(t, baseCreate(t, 'other', body)), 'raw');
    if (response.status === 200) t.seeds.otherRefs.push(String(body.reference));
  }
  if (t.seeds.demoRefs.includes(shared) && t.seeds.otherRefs.includes(shared)) t.seeds.sharedRef = shared;
  // Verified status requests for an unknown order spend their nonce (relaxed mode; strict refuses plain HTTP first).
  if (t.mode === 'relaxed') {
    for (let index = 0; index < 40; index += 1) {
      const draft = baseStatus(t, 'NO-SUCH-ORDER', 'demo');
      const response = await sendRequest(t, finalize(t, draft), 'raw');
      if (response.status !== 404) throw new Error(`seed status: ${response.status} ${response.text}`);
      t.seeds.spentNonces.push(draft.fields['x-nonce']);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Store snapshots

/** Every table but nonces, row by row (BLOBs as hex): a rejected request must leave all of it untouched. */
export function snapshotStore(bank: Bank): string {
  const tables = bank.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'nonces' ORDER BY name").pluck().all() as string[];
  const dump: Record<string, unknown[]> = {};
  for (const table of tables) {
    dump[table] = bank.db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all().map((row) =>
      Object.fromEntries(Object.entries(row as Record<string, unknown>).map(([key, value]) => [key, Buffer.isBuffer(value) ? value.toString('hex') : value])),
    );
  }
  return JSON.stringify(dump);
}

export function nonceRows(bank: Bank): Set<string> {
  return new Set((bank.db.prepare('SELECT client_id, nonce FROM nonces').all() as { client_id: string; nonce: string }[]).map((row) => `${row.client_id}|${row.nonce}`));
}

// ---------------------------------------------------------------------------------------------------------------
// Orders

export function order(overrides: Record<string, unknown> = {}, amount = '100.00'): Record<string, unknown> {
  const reference = `FZ-${randomBytes(9).toString('base64url').replace(/[_-]/g, 'x')}`;
  return sampleOrder({ reference, type: 'CREDIT_TRANSFER', metadata: { initiator: 'fuzz' }, ...overrides }, amount);
}

// ---------------------------------------------------------------------------------------------------------------
// Drafts: a signed request described by its parts, signed at the end, then edited

export type Who = 'demo' | 'other';

export type HeaderEdit = { op: 'drop'; name: string } | { op: 'set'; name: string; value: string } | { op: 'dup'; name: string; value?: string };

export interface Draft {
  kind: string;
  flow: 'create' | 'status';
  method: string;
  /** Request target as sent. */
  path: string;
  /** What the signature covers (defaults: method, path, body). */
  signMethod?: string;
  signTarget?: string;
  signBody?: Buffer;
  fields: Record<string, string>;
  body: Buffer;
  jwk: PublicJwk;
  authorization?: string;
  contentType?: string;
  requestId?: string;
  edits: HeaderEdit[];
  sigEdit?: (signature: string) => string;
  /** Codes the answer may carry; empty = any client error. */
  expect: string[];
  /** Needs exact header control (repeats, no default Content-Type): never through supertest. */
  rawOnly?: boolean;
}

export function baseCreate(t: FuzzTarget, who: Who = 'demo', body: Record<string, unknown> = order()): Draft {
  const clientId = who === 'demo' ? demo.client_id : t.other.client_id;
  return {
    kind: 'create',
    flow: 'create',
    method: 'POST',
    path: '/payment-orders',
    fields: {
      'x-client-id': clientId,
      'x-request-id': `fz-${randomUUID()}`,
      'x-timestamp': isoNow(t.bank.clock),
      'x-nonce': newNonce(),
      'x-idempotency-key': `idem-${randomUUID()}`,
    },
    body: Buffer.from(JSON.stringify(body)),
    jwk: who === 'demo' ? demo.private_jwk : t.other.private_jwk,
    authorization: `Bearer ${who === 'demo' ? t.tokens.demo : t.tokens.other}`,
    contentType: 'application/json',
    edits: [],
    expect: [],
  };
}

/** `orderId` is the path segment exactly as sent (already percent-encoded, or deliberately not). */
export function baseStatus(t: FuzzTarget, orderId: string, who: Who = 'demo'): Draft {
  const clientId = who === 'demo' ? demo.client_id : t.other.client_id;
  return {
    kind: 'status',
    flow: 'status',
    method: 'GET',
    path: `/payment-orders/${orderId}/status`,
    fields: { 'x-client-id': clientId, 'x-timestamp': isoNow(t.bank.clock), 'x-nonce': newNonce() },
    body: Buffer.alloc(0),
    jwk: who === 'demo' ? demo.private_jwk : t.other.private_jwk,
    authorization: `Bearer ${who === 'demo' ? t.tokens.demo : t.tokens.other}`,
    requestId: `fz-${randomUUID()}`,
    edits: [],
    expect: [],
  };
}

export interface WireRequest {
  kind: string;
  method: string;
  path: string;
  /** In order; a name may repeat. */
  headers: [string, string][];
  body?: Buffer;
  expect: string[];
  flow?: 'create' | 'status';
  rawOnly?: boolean;
  /** Exact bytes for the raw-socket sender (then method/path/headers are informative only). */
  bytes?: Buffer;
}

export function sign(flow: SignedFlow, method: string, target: string, fields: Record<string, string>, body: Buffer, jwk: PublicJwk): string {
  const key = signingKeyFromJwk(jwk);
  return signDetached(signatureBase(flow, { method, target, headers: fields, body }), key.privateKey, { alg: key.alg, kid: key.kid, typ: 'JOSE' });
}

export function finalize(t: FuzzTarget, draft: Draft): WireRequest {
  // The seeded idempotency key with the seeded body would be a valid replay (200): never send that pair.
  if (draft.fields['x-idempotency-key'] === t.seeds.demoIdemKey && draft.body.toString('latin1') === t.seeds.demoIdemBody) {
    draft.body = Buffer.concat([draft.body, Buffer.from(' ')]);
  }
  const signature = sign(draft.flow, draft.signMethod ?? draft.method, draft.signTarget ?? draft.path, draft.fields, draft.signBody ?? draft.body, draft.jwk);
  let headers: [string, string][] = Object.entries(draft.fields);
  if (draft.requestId !== undefined && draft.flow === 'status') headers.push(['x-request-id', draft.requestId]);
  headers.push(['x-signature', draft.sigEdit ? draft.sigEdit(signature) : signature]);
  if (draft.authorization !== undefined) headers.push(['authorization', draft.authorization]);
  if (draft.contentType !== undefined) headers.push(['content-type', draft.contentType]);
  for (const edit of draft.edits) {
    if (edit.op === 'drop') headers = headers.filter(([name]) => name !== edit.name);
    else if (edit.op === 'set') {
      if (headers.some(([name]) => name === edit.name)) headers = headers.map(([name, value]) => [name, name === edit.name ? edit.value : value]);
      else headers.push([edit.name, edit.value]);
    } else {
      const current = headers.find(([name]) => name === edit.name)?.[1] ?? 'x';
      headers.push([edit.name, edit.value ?? current]);
    }
  }
  const hasBody = draft.body.length > 0 || draft.method === 'POST';
  return { kind: draft.kind, method: draft.method, path: draft.path, headers, body: hasBody ? draft.body : undefined, expect: draft.expect, flow: draft.flow, rawOnly: draft.rawOnly || draft.edits.some((edit) => edit.op === 'dup') };
}

// ---------------------------------------------------------------------------------------------------------------
// Senders

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function headerObject(headers: [string, string][]): http.OutgoingHttpHeaders {
  const object: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    const existing = object[key];
    object[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return object;
}

/** node:http on a keep-alive agent: exact headers (arrays repeat a header), no defaults but Host and framing. */
export function sendHttp(t: FuzzTarget, req: WireRequest): Promise<WireResponse> {
  const headers = headerObject(req.headers);
  if (req.body !== undefined && headers['content-length'] === undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(req.body.length);
  return new Promise<WireResponse>((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port: t.port, method: req.method, path: req.path, headers, agent: t.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

/** supertest against the listening server; only for requests without repeated headers. */
export async function sendSupertest(t: FuzzTarget, req: WireRequest): Promise<WireResponse> {
  const agent = request(t.base) as unknown as Record<string, (path: string) => request.Test>;
  const method = req.method.toLowerCase();
  if (typeof agent[method] !== 'function') return sendHttp(t, req);
  // Bytes go as they are: superagent would otherwise JSON- or form-serialise a Buffer after its Content-Type.
  let test = agent[method](req.path).serialize((data: unknown) => data as string);
  for (const [name, value] of req.headers) test = test.set(name, value);
  const response = await (req.body === undefined ? test : test.send(req.body));
  return { status: response.status, headers: response.headers as http.IncomingHttpHeaders, text: response.text ?? '' };
}

/** Exact bytes over a fresh socket (Connection: close expected); parses one HTTP/1.1 answer. */
export function sendBytes(t: FuzzTarget, bytes: Buffer): Promise<WireResponse | { closed: true; error: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(t.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return resolve({ closed: true, error: error ?? `no complete answer: ${JSON.stringify(all.toString('latin1').slice(0, 200))}` });
      const head = all.subarray(0, split).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0])?.[1] ?? 0);
      const headers: http.IncomingHttpHeaders = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = all.subarray(split + 4);
      const length = Number(headers['content-length']);
      if (Number.isFinite(length)) body = body.subarray(0, length);
      resolve({ status, headers, text: body.toString('utf8') });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => finish(error.message));
    socket.on('close', () => finish());
    socket.setTimeout(10_000, () => {
      socket.destroy();
      finish('timeout');
    });
    socket.end(bytes);
  });
}

/** The request as bytes on the wire (header values as latin1, so any byte 0x80-0xFF can be sent). */
export function wireBytes(req: WireRequest, port: number): Buffer {
  const lines = [`${req.method} ${req.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  const names = req.headers.map(([name]) => name.toLowerCase());
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  if (req.body !== undefined && !names.includes('content-length') && !names.includes('transfer-encoding')) lines.push(`Content-Length: ${req.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), req.body ?? Buffer.alloc(0)]);
}

let alternate = 0;

export async function sendRequest(t: FuzzTarget, req: WireRequest, via?: 'raw' | 'supertest' | 'socket'): Promise<WireResponse> {
  if (req.bytes || via === 'socket') {
    const answer = await sendBytes(t, req.bytes ?? wireBytes(req, t.port));
    if ('closed' in answer) throw new Error(`${req.kind}: connection closed without an answer (${answer.error})`);
    return answer;
  }
  alternate += 1;
  const useSupertest = via === 'supertest' || (via === undefined && !req.rawOnly && alternate % 2 === 0);
  return useSupertest ? sendSupertest(t, req) : sendHttp(t, req);
}

// ---------------------------------------------------------------------------------------------------------------
// The checks every answer passes

const REQUEST_ID = /^[\x21-\x7E]{1,200}$/;
const STACK_LIKE = /\n\s+at |\((?:\/|file:)[^)]*\.[jt]s:\d+:\d+\)|node_modules\//;

function fail(req: WireRequest, response: WireResponse, why: string): never {
  const headers = req.headers.map(([name, value]) => `${name}: ${value.length > 120 ? `${value.slice(0, 120)}…(${value.length})` : value}`).join('\n    ');
  const body = req.body === undefined ? '(none)' : req.body.length > 300 ? `${req.body.subarray(0, 300).toString('latin1')}…(${req.body.length} bytes)` : req.body.toString('latin1');
  throw new Error(
    `${why}\n  kind: ${req.kind}\n  request: ${req.method} ${req.path.length > 200 ? `${req.path.slice(0, 200)}…(${req.path.length})` : req.path}\n    ${headers}\n  body: ${body}\n  answer: ${response.status} ${JSON.stringify(response.headers)}\n  ${response.text.slice(0, 600)}`,
  );
}

/** A 4xx with the profile's problem body (section 5), consistent headers, and one of the expected codes. */
export function checkAnswer(t: FuzzTarget, req: WireRequest, response: WireResponse): string {
  t.stats.requests += 1;
  t.stats.byKind.set(req.kind, (t.stats.byKind.get(req.kind) ?? 0) + 1);
  if (response.status < 400 || response.status > 499) fail(req, response, `expected a 4xx, got ${response.status}`);
  if (!/^application\/problem\+json(;|$)/.test(String(response.headers['content-type']))) fail(req, response, 'Content-Type is not application/problem+json');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.text) as Record<string, unknown>;
  } catch {
    fail(req, response, 'the problem body is not JSON');
  }
  for (const member of ['type', 'title', 'detail', 'instance', 'code', 'request_id']) {
    if (typeof body[member] !== 'string') fail(req, response, `problem member ${member} is missing or not a string`);
  }
  const code = body.code as string;
  if (!CLIENT_ERROR_CODES.has(code)) fail(req, response, `code ${code} is not one of the profile's client-error codes`);
  if (body.status !== response.status || PROBLEM_TYPES[code as Code].status !== response.status) fail(req, response, `status ${response.status} does not match code ${code}`);
  if (body.type !== `urn:sandbox-bank:problem:${code}`) fail(req, response, 'type does not name the code');
  if (body.title !== PROBLEM_TYPES[code as Code].title) fail(req, response, 'title is not the code title');
  if (STACK_LIKE.test(String(body.detail))) fail(req, response, 'detail looks like a stack trace');
  const requestId = body.request_id as string;
  if (requestId.length === 0 || response.headers['x-request-id'] !== requestId) fail(req, response, 'X-Request-Id header and request_id differ');
  const sentIds = req.headers.filter(([name]) => name.toLowerCase() === 'x-request-id').map(([, value]) => value.replace(/^[ \t]+|[ \t]+$/g, ''));
  if (sentIds.length === 1 && REQUEST_ID.test(sentIds[0]) && requestId !== sentIds[0]) fail(req, response, 'request_id does not echo X-Request-Id');
  if (response.status === 401 && !response.headers['www-authenticate']) fail(req, response, '401 without WWW-Authenticate');
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

// ---------------------------------------------------------------------------------------------------------------
// Generators: values

const VISIBLE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&\'*+-.^_`|~/:;=?@[]{}()<>,"\\';
const visibleChar = fc.constantFrom(...VISIBLE.split(''));
/** Characters a header value may carry through node:http (no CR/LF/NUL); latin1 bytes included. */
const headerChar = fc.oneof({ weight: 6, arbitrary: visibleChar }, fc.constantFrom(' ', '\t', '\x80', '\xa0', '\xc3', '\xe9', '\xff'));
const headerString = (min: number, max: number) => fc.array(headerChar, { minLength: min, maxLength: max }).map((chars) => chars.join(''));
/** Header values as node:http sends them and the parser keeps them (no leading/trailing blanks). */
const trimmedHeaderString = (min: number, max: number) => headerString(min, max).map((value) => value.replace(/^[ \t]+|[ \t]+$/g, '')).filter((value) => value.length > 0);

const CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const VISIBLE_ASCII = (max: number) => new RegExp(`^[\\x21-\\x7E]{1,${max}}$`);

export const badClientId = fc.oneof(
  trimmedHeaderString(1, 40).filter((value) => !CLIENT_ID.test(value)),
  fc.stringMatching(/^[A-Za-z0-9._-]{65,90}$/),
  fc.constantFrom('demo connector', 'demo/../x', '../../etc/passwd', 'démo', '%2e%2e', 'demo-connector\xff'),
);
export const badRequestId = fc.oneof(trimmedHeaderString(1, 40).filter((value) => !VISIBLE_ASCII(200).test(value)), fc.stringMatching(/^[a-z0-9]{201,260}$/));
export const badIdempotencyKey = fc.oneof(trimmedHeaderString(1, 40).filter((value) => !VISIBLE_ASCII(255).test(value)), fc.stringMatching(/^[a-z0-9]{256,300}$/));
export const badTimestamp = fc.oneof(
  trimmedHeaderString(1, 30).filter((value) => !RFC3339.test(value)),
  fc.constantFrom(
    '2026-11-22 10:00:00Z', '2026-11-22T10:00:00', '2026-11-22T10:00:00+00:00', '2026-11-22T10:00Z', '1763805600', '2026-13-45T99:99:99Z',
    '2026-02-30T10:00:00Z', 'now', '2026-11-22T10:00:00.Z', '2026-11-22T10:00:00.1234567890Z', '+02026-11-22T10:00:00Z', '2026-11-22t10:00:00z',
  ),
).filter((value) => !RFC3339.test(value) || Number.isNaN(Date.parse(value)));
export const badNonce = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,15}$/),
  fc.stringMatching(/^[A-Za-z0-9_-]{129,160}$/),
  trimmedHeaderString(16, 40).filter((value) => !NONCE.test(value)),
);
export const badContentType = fc.oneof(
  fc.constantFrom(
    'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=iso-8859-1', 'application/jsonx', 'application/json;',
    'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/problem+json', 'json', '*/*', 'application/*', 'text/json',
  ),
  trimmedHeaderString(1, 40),
).filter((value) => !isJsonMediaType(value));
export const garbage = trimmedHeaderString(1, 60);

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const uuidLike = () => randomUUID().replace(/-/g, '');

export function flipBit(signature: string, index: number, bit: number): string {
  const [protectedHeader, , sig] = signature.split('.');
  const bytes = Buffer.from(sig, 'base64url');
  bytes[index % bytes.length] ^= 1 << (bit % 8);
  return `${protectedHeader}..${bytes.toString('base64url')}`;
}

/** Ways to break X-Signature; each still verifies nothing. */
export const signatureBreaker: fc.Arbitrary<[string, (signature: string) => string]> = fc.oneof(
  fc.tuple(fc.nat(), fc.nat({ max: 7 })).map(([index, bit]): [string, (s: string) => string] => ['flip signature bit', (s) => flipBit(s, index, bit)]),
  fc.constantFrom<[string, (s: string) => string]>(
    ['alg none', (s) => `${b64(JSON.stringify({ alg: 'none', kid: demo.private_jwk.kid, typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['alg HS256', (s) => `${b64(JSON.stringify({ alg: 'HS256', kid: demo.private_jwk.kid, typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['alg RS256 on an EC key', (s) => `${b64(JSON.stringify({ alg: 'RS256', kid: demo.private_jwk.kid, typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['unknown kid', (s) => `${b64(JSON.stringify({ alg: 'ES256', kid: 'no-such-kid', typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['no kid', (s) => `${b64(JSON.stringify({ alg: 'ES256', typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['b64 false', (s) => `${b64(JSON.stringify({ alg: 'ES256', kid: demo.private_jwk.kid, b64: false }))}..${s.split('.')[2]}`],
    ['header not JSON', (s) => `${b64('{"alg":')}..${s.split('.')[2]}`],
    ['header an array', (s) => `${b64('[1,2]')}..${s.split('.')[2]}`],
    ['attached payload', (s) => `${s.split('.')[0]}.${b64('{}')}.${s.split('.')[2]}`],
    ['truncated', (s) => s.slice(0, s.length - 10)],
    ['signature empty', (s) => `${s.split('.')[0]}..`],
    ['two parts', (s) => s.replace('..', '.')],
    ['four parts', (s) => `${s}.x`],
    ['not base64url', (s) => `${s.split('.')[0]}..${s.split('.')[2].slice(0, 20)}+/=`],
    ['signature zeroed', (s) => `${s.split('.')[0]}..${b64(Buffer.alloc(64))}`],
    ['duplicated signature bytes', (s) => `${s.split('.')[0]}..${s.split('.')[2]}${s.split('.')[2]}`],
  ),
  garbage.filter((value) => value.trim() !== '').map((value): [string, (s: string) => string] => ['garbage signature', () => value]),
);

// ---------------------------------------------------------------------------------------------------------------
// Generators: mutations of a signed request. Each one alone makes the request invalid, whatever else is applied.

export type Mutation = { name: string; apply: (draft: Draft, t: FuzzTarget) => void };

const SIGNED_CREATE = ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'];
const SIGNED_STATUS = ['x-client-id', 'x-timestamp', 'x-nonce'];

function missingCode(name: string): string {
  if (name === 'x-signature') return 'signature_missing';
  if (name === 'authorization') return 'auth_missing';
  return 'header_missing';
}

function expectOnly(draft: Draft, ...codes: string[]) {
  draft.expect = codes;
}

function skewedIso(t: FuzzTarget, offsetS: number): string {
  return new Date(t.bank.clock.now() + offsetS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function requiredHeaders(flow: 'create' | 'status'): string[] {
  return flow === 'create' ? [...SIGNED_CREATE, 'x-signature', 'authorization', 'content-type'] : [...SIGNED_STATUS, 'x-signature', 'authorization'];
}

/** Header-level mutations, shared by create and reverse polling. */
export function headerMutations(flow: 'create' | 'status'): fc.Arbitrary<Mutation> {
  const required = requiredHeaders(flow);
  const signed = flow === 'create' ? SIGNED_CREATE : SIGNED_STATUS;
  const syntax: Record<string, fc.Arbitrary<string>> = {
    'x-client-id': badClientId,
    'x-request-id': badRequestId,
    'x-timestamp': badTimestamp,
    'x-nonce': badNonce,
    'x-idempotency-key': badIdempotencyKey,
  };
  return fc.oneof(
    // A required header dropped, or sent empty.
    fc.constantFrom(...required).map((name): Mutation => ({
      name: `drop ${name}`,
      apply: (d) => {
        d.edits.push({ op: 'drop', name });
        if (name === 'content-type') d.rawOnly = true;
        expectOnly(d, missingCode(name));
      },
    })),
    fc.constantFrom(...required).map((name): Mutation => ({
      name: `empty ${name}`,
      apply: (d) => {
        d.edits.push({ op: 'set', name, value: '' });
        expectOnly(d, name === 'content-type' ? 'unsupported_media_type' : missingCode(name));
      },
    })),
    // A malformed non-security header (the value is what goes on the wire: no re-signing needed to break it).
    fc.constantFrom(...signed).chain((name) => syntax[name].map((value): Mutation => ({
      name: `malformed ${name}`,
      apply: (d) => {
        d.fields[name] = value;
        expectOnly(d, 'header_invalid');
      },
    }))),
    // A signed header changed after signing, to another well-formed value.
    fc.constantFrom(...signed).chain((name) => fc.integer({ min: 1, max: 250 }).map((shift): Mutation => ({
      name: `altered ${name} after signing`,
      apply: (d, t) => {
        const changed: Record<string, string> = {
          'x-client-id': t.other.client_id,
          'x-request-id': `fz-${randomUUID()}`,
          'x-timestamp': skewedIso(t, shift % 2 === 0 ? shift : -shift),
          'x-nonce': newNonce(),
          'x-idempotency-key': `idem-${randomUUID()}`,
        };
        d.edits.push({ op: 'set', name, value: changed[name] });
        expectOnly(d, name === 'x-client-id' ? 'auth_invalid' : 'signature_invalid');
      },
    }))),
    fc.constant<Mutation>({
      name: 'unknown client',
      apply: (d) => {
        d.fields['x-client-id'] = `ghost-${uuidLike().slice(0, 12)}`;
        expectOnly(d, 'client_unknown');
      },
    }),
    // X-Signature broken.
    signatureBreaker.map(([name, edit]): Mutation => ({
      name,
      apply: (d) => {
        d.sigEdit = edit;
        expectOnly(d, 'signature_invalid', 'signature_missing');
      },
    })),
    fc.constantFrom<Mutation>(
      {
        name: "signed with another client's key",
        apply: (d, t) => {
          // Chosen from the caller, not toggled from the current key: applied twice it must stay foreign.
          d.jwk = d.fields['x-client-id'] === demo.client_id ? t.other.private_jwk : demo.private_jwk;
          expectOnly(d, 'signature_invalid');
        },
      },
      {
        name: "a fresh key under the client's kid",
        apply: (d) => {
          const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
          d.jwk = { ...(pair.privateKey.export({ format: 'jwk' }) as PublicJwk), kid: d.jwk.kid, alg: 'ES256' };
          expectOnly(d, 'signature_invalid');
        },
      },
      {
        name: 'signed over another method',
        apply: (d) => {
          d.signMethod = d.method === 'GET' ? 'POST' : 'GET';
          expectOnly(d, 'signature_invalid');
        },
      },
      {
        name: 'signed over another target',
        apply: (d) => {
          d.signTarget = `${d.path}?signed=other`;
          expectOnly(d, 'signature_invalid');
        },
      },
      {
        name: 'sent with a query that was not signed',
        apply: (d) => {
          d.signTarget = d.signTarget ?? d.path;
          d.path = `${d.path}?unsigned=1`;
          expectOnly(d, 'signature_invalid');
        },
      },
      {
        name: 'signed over another body',
        apply: (d) => {
          d.signBody = Buffer.concat([d.body, Buffer.from(' ')]);
          expectOnly(d, 'signature_invalid');
        },
      },
    ),
    // Timestamp outside the window, correctly signed.
    fc.tuple(fc.integer({ min: 2, max: 100_000_000 }), fc.boolean()).map(([beyond, future]): Mutation => ({
      name: `timestamp ${future ? '+' : '-'}(window + ${beyond} s)`,
      apply: (d, t) => {
        const seconds = t.bank.config.timestampWindowS + beyond;
        d.fields['x-timestamp'] = skewedIso(t, future ? seconds : -seconds);
        expectOnly(d, 'timestamp_out_of_window');
      },
    })),
    // A nonce this client already spent, correctly signed.
    fc.nat().map((index): Mutation => ({
      name: 'replayed nonce',
      apply: (d, t) => {
        if (t.seeds.spentNonces.length === 0 || d.fields['x-client-id'] !== demo.client_id) {
          // Strict mode has no verified status requests to take nonces from: fall back to a stale timestamp.
          d.fields['x-timestamp'] = skewedIso(t, -(t.bank.config.timestampWindowS + 3600));
          expectOnly(d, 'timestamp_out_of_window');
          return;
        }
        d.fields['x-nonce'] = t.seeds.spentNonces[index % t.seeds.spentNonces.length];
        expectOnly(d, 'nonce_replayed');
      },
    })),
    // Authorization that is not this client's valid credential.
    fc.oneof(
      fc.constantFrom<[string, (t: FuzzTarget) => string]>(
        ["another client's token", (t) => `Bearer ${t.tokens.other}`],
        ['token signed by another key under the bank kid', (t) => `Bearer ${t.tokens.forgedKey}`],
        ['expired token', (t) => `Bearer ${t.tokens.expired}`],
        ['token of another issuer', (t) => `Bearer ${t.tokens.wrongIssuer}`],
        ['token of an unregistered client', (t) => `Bearer ${t.tokens.ghost}`],
        ['DPoP-bound token as Bearer', (t) => `Bearer ${t.tokens.dpopBound}`],
        ['DPoP scheme without a proof', (t) => `DPoP ${t.tokens.dpopBound}`],
        ['Bearer token under the DPoP scheme', (t) => `DPoP ${t.tokens.demo}`],
        ["another client's API key", (t) => `X-API-Key ${t.other.api_key}`],
        ['wrong API key', () => `X-API-Key sbk_${uuidLike()}`],
        ['Basic credentials', () => `Basic ${Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64')}`],
        ['scheme only', () => 'Bearer'],
        ['two credentials', (t) => `Bearer ${t.tokens.demo} ${t.tokens.demo}`],
        ['token with its signature cut', (t) => `Bearer ${t.tokens.demo.split('.').slice(0, 2).join('.')}.`],
        ['token header swapped to alg none', (t) => `Bearer ${b64(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${t.tokens.demo.split('.')[1]}.`],
        ['unknown scheme', (t) => `Token ${t.tokens.demo}`],
        ['proto scheme', (t) => `constructor ${t.tokens.demo}`],
      ),
      fc.tuple(fc.nat(), fc.constantFrom('A', 'B', '_', '-', '0')).map(([index, char]): [string, (t: FuzzTarget) => string] => [
        'token with one character changed',
        (t) => {
          // Never the last character of a segment: there base64url also carries unused bits, and a change that only
          // touches those leaves the bytes (and so the token) as they were (reported: non-canonical base64url).
          const token = t.tokens.demo;
          let at = index % token.length;
          while (token[at] === '.' || at === token.length - 1 || token[at + 1] === '.') at = (at + 1) % token.length;
          const replacement = token[at] === char ? (char === 'A' ? 'B' : 'A') : char;
          return `Bearer ${token.slice(0, at)}${replacement}${token.slice(at + 1)}`;
        },
      ]),
      garbage.map((value): [string, () => string] => ['garbage authorization', () => value]),
    ).map(([name, value]): Mutation => ({
      name,
      apply: (d, t) => {
        let authorization = value(t);
        // On reverse polling the client's own API key is valid: never send it; on create it is refused.
        if (flow === 'status' && authorization === `X-API-Key ${demo.api_key}`) authorization = 'X-API-Key nope';
        d.authorization = authorization;
        expectOnly(d, 'auth_invalid', 'auth_missing');
      },
    })),
  );
}

/** The draft's body as an object (a fresh order when an earlier mutation left something else). */
function parsedBody(d: Draft): Record<string, unknown> {
  try {
    const value = JSON.parse(d.body.toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not JSON any more
  }
  return order();
}

/** `b` with one more own field first (defineProperty, so that "__proto__" is a field, as JSON.parse makes it). */
function withField(b: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, member] of [[key, value] as const, ...Object.entries(b)]) {
    if (name === key && member !== value) continue;
    Object.defineProperty(out, name, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function firstCreditor(b: Record<string, unknown>): Record<string, unknown> {
  const first = Array.isArray(b.creditors) ? (b.creditors[0] as unknown) : undefined;
  return typeof first === 'object' && first !== null && !Array.isArray(first) ? (first as Record<string, unknown>) : {};
}

/** Create-only mutations of the body (signed correctly over the new bytes) and of Content-Type. */
export function bodyMutations(): fc.Arbitrary<Mutation> {
  const required = ['reference', 'initiated_at', 'reason', 'type', 'debtor', 'creditors', 'total_amount', 'currency'];
  const stringFields = ['reference', 'initiated_at', 'reason', 'type', 'total_amount', 'currency'];
  const nonString = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 3 }));
  const nonObject = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string(), fc.array(fc.integer(), { maxLength: 3 }));
  const nonArray = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string(), fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }));
  const badAmount = fc.oneof(
    fc.constantFrom('abc', '1.234', '-5.00', '1e3', '01.00', '', ' 1.00', '1,00', '1.', '.5', '+1.00', '1 000.00', '0x10', 'NaN', 'Infinity', '1234567890123456.00', '١٢٣'),
    fc.string({ maxLength: 12 }).filter((value) => !/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,2})?$/.test(value)),
  );
  const iso = new Set(Intl.supportedValuesOf('currency'));
  const badCurrency = fc.oneof(
    fc.constantFrom('eur', 'EU', 'EURO', 'E1R', '€', ''),
    fc.stringMatching(/^[A-Z]{3}$/).filter((code) => !iso.has(code)),
  );
  const badReference = fc.oneof(
    fc.constantFrom('', '-leading-dash', '../etc/passwd', '..', 'a b', 'ref/with/slash', '%2e%2e', 'ref\u0000nul', 'ref?q=1', 'é'),
    fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{128,200}$/),
  );
  const badIban = fc.constantFrom('de89370400440532013000', 'DE89', 'DE89 3704 0044 0532 0130 00', 'XX', '', '1234567890123456', 'DE8937040044053201300012345678901234567890');
  const deep = (depth: number, leaf: unknown, kind: 'array' | 'object') => {
    let value: unknown = leaf;
    for (let level = 0; level < depth; level += 1) value = kind === 'array' ? [value] : { a: value };
    return value;
  };
  type BodyEdit = [string, (body: Record<string, unknown>) => Record<string, unknown> | Buffer, string[]];
  const invalid = ['body_invalid', 'body_too_large'];
  const edits: fc.Arbitrary<BodyEdit> = fc.oneof(
    fc.constantFrom(...required).map((field): BodyEdit => [`without ${field}`, (b) => ({ ...b, [field]: undefined }), invalid]),
    fc.tuple(fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'Reference', 'status', 'bank_reference')), fc.jsonValue({ maxDepth: 3 }))
      .filter(([key]) => ![...required, 'metadata'].includes(key))
      .map(([key, value]): BodyEdit => [`extra field ${JSON.stringify(key)}`, (b) => withField(b, key, value ?? null), invalid]),
    fc.tuple(fc.constantFrom(...stringFields), nonString).map(([field, value]): BodyEdit => [`${field} not a string`, (b) => ({ ...b, [field]: value }), invalid]),
    fc.tuple(fc.constantFrom('debtor', 'metadata'), nonObject).map(([field, value]): BodyEdit => [`${field} not an object`, (b) => ({ ...b, [field]: value }), invalid]),
    nonArray.map((value): BodyEdit => ['creditors not an array', (b) => ({ ...b, creditors: value }), invalid]),
    fc.constant<BodyEdit>(['no creditors', (b) => ({ ...b, creditors: [] }), invalid]),
    fc.tuple(fc.constantFrom('name', 'iban', 'bank_code', 'amount', 'reason'), fc.boolean()).map(([field, drop]): BodyEdit => [
      `creditor ${drop ? 'without' : 'with null'} ${field}`,
      (b) => ({ ...b, creditors: [{ ...firstCreditor(b), [field]: drop ? undefined : null }] }),
      invalid,
    ]),
    fc.tuple(fc.constantFrom('total_amount', 'creditor amount'), badAmount).map(([where, amount]): BodyEdit => [
      `invalid ${where} ${JSON.stringify(amount)}`,
      (b) => (where === 'total_amount' ? { ...b, total_amount: amount } : { ...b, creditors: [{ ...firstCreditor(b), amount }] }),
      invalid,
    ]),
    fc.integer({ min: 1, max: 99_999 }).map((cents): BodyEdit => [
      'total differs from the creditors',
      (b) => ({ ...b, total_amount: ((10_000 + cents) / 100).toFixed(2) }),
      invalid,
    ]),
    fc.constant<BodyEdit>(['zero amounts', (b) => ({ ...b, total_amount: '0.00', creditors: [{ ...firstCreditor(b), amount: '0.00' }] }), invalid]),
    badCurrency.map((currency): BodyEdit => [`currency ${JSON.stringify(currency)}`, (b) => ({ ...b, currency }), invalid]),
    badReference.map((reference): BodyEdit => [`reference ${JSON.stringify(reference.slice(0, 20))}`, (b) => ({ ...b, reference }), invalid]),
    badIban.map((iban): BodyEdit => [`debtor iban ${JSON.stringify(iban)}`, (b) => ({ ...b, debtor: { name: 'Alice', iban } }), invalid]),
    fc.constantFrom('TRANSFER', 'direct_debit', '', 'CREDIT_TRANSFER ').map((type): BodyEdit => [`type ${JSON.stringify(type)}`, (b) => ({ ...b, type }), invalid]),
    fc.constantFrom('2026-11-22', '2026-11-22T09:00:00+01:00', 'yesterday', '2026-02-30T09:00:00Z', '').map((at): BodyEdit => [`initiated_at ${JSON.stringify(at)}`, (b) => ({ ...b, initiated_at: at }), invalid]),
    fc.constantFrom('NOPE', 'FAILED:NOT_A_CODE', 'PENDING:x:SUCCESS', 'ASYNC:-1:SUCCESS', 'PENDING:1:PENDING', '').map((scenario): BodyEdit => [
      `scenario ${JSON.stringify(scenario)}`,
      (b) => ({ ...b, metadata: { sandbox_scenario: scenario } }),
      invalid,
    ]),
    fc.tuple(fc.string({ minLength: 1, maxLength: 10 }), fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }))).map(([key, value]): BodyEdit => [
      'metadata value not a string',
      (b) => ({ ...b, metadata: { [key]: value } }),
      invalid,
    ]),
    fc.constant<BodyEdit>(['metadata key empty', (b) => ({ ...b, metadata: { '': 'x' } }), invalid]),
    fc.integer({ min: 51, max: 80 }).map((count): BodyEdit => [`metadata with ${count} keys`, (b) => ({ ...b, metadata: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v'])) }), invalid]),
    // Deep nesting, where only strings or no field at all are allowed.
    fc.tuple(fc.integer({ min: 2, max: 1500 }), fc.constantFrom<'array' | 'object'>('array', 'object'), fc.constantFrom('metadata', 'extra', 'creditors', 'debtor')).map(([depth, kind, where]): BodyEdit => [
      `${kind} nested ${depth} deep in ${where}`,
      (b) => {
        if (where === 'metadata') return { ...b, metadata: { deep: deep(depth, 'x', kind) } };
        if (where === 'extra') return { ...b, nested: deep(depth, 1, kind) };
        if (where === 'creditors') return { ...b, creditors: deep(depth, [], 'array') };
        return { ...b, debtor: deep(depth, { name: 'x', iban: IBANS.debtor }, kind) };
      },
      invalid,
    ]),
    // Huge strings: over the schema's largest maxLength (1000, metadata values), at times over the body limit too.
    fc.tuple(fc.constantFrom('reason', 'debtor name', 'creditor reason', 'metadata value', 'reference', 'bank_code'), fc.integer({ min: 1001, max: 6000 })).map(([where, length]): BodyEdit => [
      `${where} of ${length} characters`,
      (b) => {
        const long = 'x'.repeat(length);
        const creditor = firstCreditor(b);
        if (where === 'reason') return { ...b, reason: long };
        if (where === 'debtor name') return { ...b, debtor: { name: long, iban: IBANS.debtor } };
        if (where === 'creditor reason') return { ...b, creditors: [{ ...creditor, reason: long }] };
        if (where === 'metadata value') return { ...b, metadata: { initiator: long } };
        if (where === 'reference') return { ...b, reference: `R${long}` };
        return { ...b, creditors: [{ ...creditor, bank_code: long.slice(0, 36 + (length % 100)) }] };
      },
      invalid,
    ]),
    fc.integer({ min: 1001, max: 1100 }).map((count): BodyEdit => [`${count} creditors`, (b) => ({ ...b, creditors: Array.from({ length: count }, () => ({})) }), invalid]),
    // Not an order at all.
    fc.jsonValue({ maxDepth: 4 }).map((value): BodyEdit => ['random JSON', () => Buffer.from(JSON.stringify(value ?? null)), invalid]),
    fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('', '{', '}', '{"reference":', 'null', '[]', '{}', '""', 'true', '{"a":1,}', "{'a':1}", 'NaN', '{"a":1}{"b":2}', '\u0000', '{"total_amount": 1e999}'),
    ).map((text): BodyEdit => ['random text', () => Buffer.from(text), ['body_malformed', 'body_invalid', 'body_too_large']]),
    fc.tuple(fc.integer({ min: 1, max: 2040 }), fc.boolean()).map(([depth, balanced]): BodyEdit => [
      `raw nesting ${depth}${balanced ? '' : ' unbalanced'}`,
      () => Buffer.from(`${'['.repeat(depth)}${balanced ? ']'.repeat(depth) : ']'.repeat(depth - 1)}`),
      ['body_malformed', 'body_invalid'],
    ]),
    // The same key twice: the last one (invalid) wins in JSON.parse.
    fc.constantFrom('reference', 'total_amount', 'currency', 'type').map((field): BodyEdit => [
      `duplicate key ${field}`,
      (b) => Buffer.from(JSON.stringify(b).replace(/\}$/, `,${JSON.stringify(field)}:12345}`)),
      invalid,
    ]),
    // Invalid UTF-8 inside a string or between tokens.
    fc.tuple(fc.constantFrom([0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xfe, 0xff]), fc.boolean()).map(([bytes, inString]): BodyEdit => [
      `invalid UTF-8 ${Buffer.from(bytes).toString('hex')}`,
      (b) => {
        const json = Buffer.from(JSON.stringify(b));
        const at = inString ? json.indexOf('Invoice') + 3 : 1;
        return Buffer.concat([json.subarray(0, at), Buffer.from(bytes), json.subarray(at)]);
      },
      ['body_malformed'],
    ]),
    fc.constant<BodyEdit>(['UTF-16 body', (b) => Buffer.from(JSON.stringify(b), 'utf16le'), ['body_malformed']]),
    // Over the body limit (Content-Length says so up front).
    fc.integer({ min: BODY_LIMIT + 1, max: 4 * BODY_LIMIT }).map((size): BodyEdit => [
      `body of ${size} bytes`,
      (b) => ({ ...b, metadata: { pad: 'p'.repeat(size) } }),
      ['body_too_large'],
    ]),
  );
  return fc.oneof(
    { weight: 9, arbitrary: edits.map(([name, edit, codes]): Mutation => ({
      name,
      apply: (d) => {
        const result = edit(parsedBody(d));
        d.body = Buffer.isBuffer(result) ? result : Buffer.from(JSON.stringify(result));
        expectOnly(d, ...codes);
      },
    })) },
    // A new key for an existing reference; an existing key with another body.
    { weight: 1, arbitrary: fc.constantFrom<Mutation>(
      {
        name: 'duplicate reference',
        apply: (d, t) => {
          // Not the reference of the seeded idempotency record: with its key that could replay instead.
          d.body = Buffer.from(JSON.stringify({ ...parsedBody(d), reference: t.seeds.demoRefs[t.seeds.demoRefs.length - 1] }));
          expectOnly(d, 'duplicate_reference');
        },
      },
      {
        name: 'idempotency key reused with another body',
        apply: (d, t) => {
          d.fields['x-idempotency-key'] = t.seeds.demoIdemKey;
          if (d.body.toString('latin1') === t.seeds.demoIdemBody) d.body = Buffer.concat([d.body, Buffer.from(' ')]);
          expectOnly(d, 'idempotency_key_reused');
        },
      },
    ) },
    // Content-Type that is not JSON.
    { weight: 1, arbitrary: badContentType.map((value): Mutation => ({
      name: 'Content-Type not JSON',
      apply: (d) => {
        d.contentType = value;
        expectOnly(d, 'unsupported_media_type');
      },
    })) },
  );
}

/** Order ids (as sent in the path) that name no order of demo-connector. */
export function foreignOrderIds(t: FuzzTarget): fc.Arbitrary<string> {
  const own = new Set(t.seeds.demoRefs);
  const safe = (raw: string) => {
    try {
      return !own.has(decodeURIComponent(raw));
    } catch {
      return true;
    }
  };
  return fc.oneof(
    fc.constantFrom('..', '.', '%2e%2e', '%2E%2E', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', '%00', 'a%00b', '%ZZ', '%', '%E0%A4%A', '%C0%AF', '%FF', '%ED%A0%80', '~', '*', 'NaN', 'null', 'undefined', '__proto__', 'constructor', "'%20OR%201=1--", '%27', 'a;b', 'SELECT', '%F0%9F%92%A9'),
    fc.constant(null).map(() => encodeURIComponent(t.seeds.otherRefs[0] ?? 'none')),
    fc.constant(null).map(() => encodeURIComponent(`${t.seeds.demoRefs[0]}x`)),
    fc.constant(null).map(() => encodeURIComponent((t.seeds.demoRefs[0] ?? 'x').toLowerCase())),
    fc.string({ minLength: 1, maxLength: 60 }).map(encodeURIComponent),
    fc.stringMatching(/^[A-Za-z0-9._~%:@!$&'()*+,;=-]{1,80}$/),
    fc.integer({ min: 1000, max: 7000 }).map((length) => 'L'.repeat(length)),
  ).filter((id) => id.length > 0 && !id.includes('/') && !id.includes('?') && !id.includes('#') && safe(id));
}

// ---------------------------------------------------------------------------------------------------------------
// Generators: whole requests

export interface RequestArb {
  name: string;
  arb: fc.Arbitrary<(t: FuzzTarget) => WireRequest>;
}

function applied(base: (t: FuzzTarget) => Draft, mutations: Mutation[], exact: boolean) {
  return (t: FuzzTarget): WireRequest => {
    const draft = base(t);
    for (const mutation of mutations) mutation.apply(draft, t);
    draft.kind = `${draft.kind}: ${mutations.map((mutation) => mutation.name).join(' + ')}`;
    if (!exact) draft.expect = [];
    return finalize(t, draft);
  };
}

/** One mutation (exact expected code) or several at once (any client error). */
function mutated(base: (t: FuzzTarget) => Draft, mutation: fc.Arbitrary<Mutation>): fc.Arbitrary<(t: FuzzTarget) => WireRequest> {
  return fc.oneof(
    { weight: 4, arbitrary: mutation.map((one) => applied(base, [one], true)) },
    { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 4 }).map((many) => applied(base, many, false)) },
  );
}

export function createRequests(): RequestArb {
  const mutation = fc.oneof({ weight: 1, arbitrary: headerMutations('create') }, { weight: 1, arbitrary: bodyMutations() });
  return { name: 'POST /payment-orders', arb: mutated((t) => baseCreate(t, 'demo'), mutation) };
}

export function statusRequests(t: FuzzTarget): RequestArb {
  const ids = foreignOrderIds(t);
  const own = fc.constantFrom(...(t.seeds.demoRefs.length > 0 ? t.seeds.demoRefs : ['NONE'])).map(encodeURIComponent);
  const mutation = headerMutations('status');
  const arb = fc.oneof(
    // An order that is not this client's, otherwise a perfect request: 404 order_not_found (or 404 route for ../).
    { weight: 2, arbitrary: ids.map((id) => (target: FuzzTarget): WireRequest => {
      const draft = baseStatus(target, id);
      draft.kind = `status: foreign order id ${id.length > 40 ? `${id.slice(0, 40)}…` : id}`;
      draft.expect = target.mode === 'strict' ? ['mtls_required'] : ['order_not_found'];
      return finalize(target, draft);
    }) },
    // The client's own order, broken in the request itself.
    { weight: 4, arbitrary: fc.tuple(fc.oneof(own, ids), fc.oneof({ weight: 4, arbitrary: mutation.map((one) => [one]) }, { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) })).map(([id, mutations]) => (target: FuzzTarget) => {
      const request = applied((x) => baseStatus(x, id), mutations, mutations.length === 1)(target);
      if (target.mode === 'strict') request.expect = ['mtls_required'];
      return request;
    }) },
    // Another method on the status path.
    { weight: 1, arbitrary: fc.tuple(fc.oneof(own, ids), fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'LOCK', 'PURGE')).map(([id, method]) => (target: FuzzTarget) => {
      const draft = baseStatus(target, id);
      draft.method = method;
      draft.kind = `status: ${method}`;
      draft.expect = ['method_not_allowed'];
      return finalize(target, draft);
    }) },
    // Path shapes around the status route.
    { weight: 1, arbitrary: fc.constantFrom('/payment-orders/x/../status', '/payment-orders/../status/x', '/payment-orders//status', '/payment-orders/a/b/status', '/payment-orders/a/status/', '/payment-orders/a/status/x', '/payment-orders/%2e%2e/%2e%2e/status', '/payment-orders/x/STATUS', '/Payment-Orders/x/status').map((path) => (target: FuzzTarget) => {
      const draft = baseStatus(target, 'x');
      draft.path = path;
      draft.kind = `status: path ${path}`;
      draft.expect = ['route_not_found', 'order_not_found', 'mtls_required'];
      return finalize(target, draft);
    }) },
  );
  return { name: 'GET /payment-orders/{id}/status', arb };
}

const FORM = 'application/x-www-form-urlencoded';

interface TokenParts {
  contentType: string | undefined;
  grant: string | null;
  basic: 'valid' | 'wrong-secret' | 'unknown' | 'no-colon' | 'bad-escape' | 'not-base64' | 'none';
  other: 'none' | 'bearer' | 'garbage';
  post: 'none' | 'valid' | 'wrong-secret' | 'id-only';
  dpop: 'none' | 'garbage' | 'wrong-htm' | 'wrong-htu' | 'stale' | 'private-key' | 'wrong-typ';
  extra: string;
  oversize: number;
}

/** POST /oauth/token, never a valid request, with the code the handler's order of checks gives. */
export function tokenRequests(): RequestArb {
  const parts = fc.record<TokenParts>({
    contentType: fc.oneof({ weight: 5, arbitrary: fc.constant(FORM) }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'application/json', 'text/plain', `${FORM}x`, 'multipart/form-data') }),
    grant: fc.oneof({ weight: 5, arbitrary: fc.constant('client_credentials') }, { weight: 2, arbitrary: fc.constantFrom(null, '', 'password', 'authorization_code', 'CLIENT_CREDENTIALS', 'client_credentials ') }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
    basic: fc.constantFrom('valid', 'valid', 'wrong-secret', 'unknown', 'no-colon', 'bad-escape', 'not-base64', 'none'),
    other: fc.constantFrom('none', 'none', 'none', 'bearer', 'garbage'),
    post: fc.constantFrom('none', 'none', 'valid', 'wrong-secret', 'id-only'),
    dpop: fc.constantFrom('none', 'none', 'garbage', 'wrong-htm', 'wrong-htu', 'stale', 'private-key', 'wrong-typ'),
    extra: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((value) => `&x=${encodeURIComponent(value)}`) }),
    oversize: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: BODY_LIMIT + 1, max: 3 * BODY_LIMIT }) }),
  });
  const arb = parts.filter((p) => !isValidToken(p)).map((p) => (t: FuzzTarget): WireRequest => {
    const headers: [string, string][] = [];
    if (p.contentType !== undefined) headers.push(['content-type', p.contentType]);
    const basicValue: Record<TokenParts['basic'], string | null> = {
      valid: Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64'),
      'wrong-secret': Buffer.from(`${demo.client_id}:not-the-secret`).toString('base64'),
      unknown: Buffer.from(`ghost:${demo.client_secret}`).toString('base64'),
      'no-colon': Buffer.from(demo.client_id).toString('base64'),
      'bad-escape': Buffer.from(`demo%ZZ:${demo.client_secret}`).toString('base64'),
      'not-base64': '***',
      none: null,
    };
    const basic = basicValue[p.basic];
    if (basic !== null) headers.push(['authorization', `Basic ${basic}`]);
    else if (p.other === 'bearer') headers.push(['authorization', `Bearer ${t.tokens.demo}`]);
    else if (p.other === 'garbage') headers.push(['authorization', 'Digest username="x"']);
    const form = new URLSearchParams();
    if (p.grant !== null) form.set('grant_type', p.grant);
    if (p.post === 'valid' || p.post === 'wrong-secret' || p.post === 'id-only') form.set('client_id', demo.client_id);
    if (p.post === 'valid') form.set('client_secret', demo.client_secret);
    if (p.post === 'wrong-secret') form.set('client_secret', 'nope');
    let body = form.toString() + p.extra;
    if (p.oversize > 0) body += `&pad=${'p'.repeat(p.oversize)}`;
    if (p.dpop !== 'none') {
      const key = new DpopKey();
      const htu = `http://127.0.0.1:${t.port}/oauth/token`;
      const iat = Math.floor(Date.now() / 1000);
      const proofs: Record<Exclude<TokenParts['dpop'], 'none'>, () => string> = {
        garbage: () => 'not.a.proof',
        'wrong-htm': () => key.proof({ htm: 'GET', htu, iat }),
        'wrong-htu': () => key.proof({ htm: 'POST', htu: 'https://elsewhere.example/oauth/token', iat }),
        stale: () => key.proof({ htm: 'POST', htu, iat: iat - t.bank.config.timestampWindowS - 3600 }),
        'private-key': () => key.proof({ htm: 'POST', htu, iat, header: { jwk: key.privateJwk } }),
        'wrong-typ': () => key.proof({ htm: 'POST', htu, iat, header: { typ: 'JWT' } }),
      };
      headers.push(['dpop', proofs[p.dpop]()]);
    }
    const expected = expectedTokenCode(p, body, basic !== null);
    if (expected === null) throw new Error(`generated a valid token request: ${JSON.stringify(p)}`);
    const name = `token: ${Object.entries(p).filter(([key, value]) => key !== 'extra' && value !== 'none' && value !== 0).map(([key, value]) => `${key}=${String(value)}`).join(' ')}`;
    return { kind: name, method: 'POST', path: '/oauth/token', headers, body: Buffer.from(body), expect: [expected], rawOnly: p.contentType === undefined };
  });
  return { name: 'POST /oauth/token', arb };
}

function isValidToken(p: TokenParts): boolean {
  const grantOk = p.grant === 'client_credentials';
  const formOk = p.contentType === FORM;
  const credsOk = p.basic === 'valid' ? p.post === 'none' : p.basic === 'none' && p.other === 'none' && p.post === 'valid';
  return formOk && grantOk && credsOk && p.dpop === 'none' && p.oversize === 0 && !p.extra.includes('grant_type') && !p.extra.includes('client_');
}

/** Mirrors src/http/token/handler.ts's order: size, media type, grant, client authentication, DPoP. */
function expectedTokenCode(p: TokenParts, body: string, hasBasic: boolean): string | null {
  if (Buffer.byteLength(body) > BODY_LIMIT) return 'body_too_large';
  if (p.contentType === undefined || !/^application\/x-www-form-urlencoded\s*(;.*)?$/i.test(p.contentType)) return 'unsupported_media_type';
  const form = new URLSearchParams(body);
  const grant = form.get('grant_type');
  if (!grant || grant !== 'client_credentials') return 'body_invalid';
  const inBody = form.has('client_id') || form.has('client_secret');
  if (hasBasic) {
    if (inBody) return 'body_invalid';
    if (p.basic !== 'valid') return 'auth_invalid';
  } else if (p.other !== 'none') {
    return 'auth_invalid';
  } else {
    if (!form.get('client_id') || !form.get('client_secret')) return 'auth_missing';
    if (form.get('client_id') !== demo.client_id || form.get('client_secret') !== demo.client_secret) return 'auth_invalid';
  }
  if (p.dpop !== 'none') return 'auth_invalid';
  return null;
}

const KNOWN_ROUTES = ['/healthz', '/readyz', '/.well-known/jwks.json', '/oauth/token', '/payment-orders'];
/** Methods node:http sends, minus HEAD (no body to check) and CONNECT (a tunnel, not a request). */
export const METHODS = http.METHODS.filter((method) => method !== 'HEAD' && method !== 'CONNECT');

function isUnknownRoute(path: string): boolean {
  const plain = path.split('?')[0];
  const lower = plain.toLowerCase().replace(/\/+$/, '');
  if (KNOWN_ROUTES.includes(lower) || lower === '' || lower.startsWith('/sandbox')) return false;
  return !/^\/payment-orders\/[^/]+\/status$/.test(plain);
}

/** Health, readiness and JWKS with other methods; unknown routes with any method. */
export function otherRequests(): RequestArb {
  const segment = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{1,16}$/);
  const unknownPath = fc.oneof(
    fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
    fc.tuple(fc.constantFrom('/payment-orders', '/oauth', '/.well-known', '/healthz', '/api', '/v1', '/callbacks', '/readyz', '/payment-order', '/status'), fc.array(segment, { minLength: 1, maxLength: 3 })).map(([prefix, segments]) => `${prefix}/${segments.join('/')}`),
    fc.constantFrom('/..', '/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/payment-orders%2F', '/.env', '/favicon.ico', '/%00', '/healthz%00', '/readyz.json', '/.well-known/jwks', '/.well-known/openid-configuration', '/payment-orders/status', '/payment-orders/x/status/y', '//', '/%ZZ', '/index.html'),
  ).filter(isUnknownRoute);
  const arb = fc.oneof(
    fc.tuple(fc.constantFrom('/healthz', '/readyz', '/.well-known/jwks.json'), fc.constantFrom(...METHODS.filter((method) => method !== 'GET')), fc.option(fc.string({ maxLength: 200 }), { nil: undefined })).map(([path, method, body]) => (): WireRequest => ({
      kind: `${method} ${path}`, method, path, headers: [['content-type', 'application/json']], body: body === undefined ? undefined : Buffer.from(body), expect: ['route_not_found', 'method_not_allowed'],
    })),
    fc.tuple(fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'), fc.constantFrom('/oauth/token', '/payment-orders')).map(([method, path]) => (): WireRequest => ({
      kind: `${method} ${path}`, method, path, headers: [], expect: ['method_not_allowed'],
    })),
    fc.tuple(unknownPath, fc.constantFrom(...METHODS), fc.option(fc.uint8Array({ maxLength: 300 }), { nil: undefined })).map(([path, method, body]) => (): WireRequest => ({
      kind: `unknown route ${method}`, method, path, headers: [['x-client-id', demo.client_id]], body: body === undefined ? undefined : Buffer.from(body), expect: ['route_not_found', 'method_not_allowed'],
    })),
  );
  return { name: 'health, JWKS and unknown routes', arb };
}

/** /sandbox/* without a valid admin token (any method, any path below it). */
export function sandboxRequests(t: FuzzTarget): RequestArb {
  const sub = fc.oneof(
    fc.constantFrom('/orders', '/callbacks', '/poll', '/orders/x', '/callbacks?state=dead', '/orders?limit=5', '/', '', '/nope', '/orders/%ZZ', '/orders/..%2F..'),
    fc.stringMatching(/^\/[A-Za-z0-9._~%-]{0,20}$/),
  );
  const auth = fc.oneof(
    fc.constant<string | undefined>(undefined),
    fc.constantFrom('Bearer wrong', `Bearer ${ADMIN_TOKEN}x`, `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`, ADMIN_TOKEN, `Bearer  ${ADMIN_TOKEN} x`, 'Bearer'),
    fc.constant(null).map(() => `Bearer ${t.tokens.demo}`),
    garbage,
  );
  const arb = fc.tuple(sub, fc.constantFrom(...METHODS), auth).map(([path, method, authorization]) => (target: FuzzTarget): WireRequest => ({
    kind: `sandbox ${method} without admin`,
    method,
    path: `/sandbox${path}`,
    headers: authorization === undefined ? [] : [['authorization', authorization]],
    expect: target.adminToken === null ? ['auth_invalid'] : authorization === undefined ? ['auth_missing'] : ['auth_invalid', 'auth_missing'],
  }));
  return { name: '/sandbox/* without admin', arb };
}

/** /sandbox/* with the admin token, asking for things that are not there. */
export function adminBadRequests(t: FuzzTarget): RequestArb {
  const own = new Set([...t.seeds.demoRefs, ...t.seeds.otherRefs]);
  const reference = fc.oneof(fc.stringMatching(/^[A-Za-z0-9._~%-]{1,40}$/), fc.constantFrom('%ZZ', '%', '%E0%A4%A', 'a%00', '%2e%2e', '..')).filter((ref) => {
    try {
      return !own.has(decodeURIComponent(ref));
    } catch {
      return true;
    }
  });
  const arb = fc.oneof(
    reference.map((ref) => (): WireRequest => ({ kind: 'admin: unknown order', method: 'GET', path: `/sandbox/orders/${ref}`, headers: [['authorization', `Bearer ${ADMIN_TOKEN}`]], expect: ['order_not_found'] })),
    fc.string({ minLength: 1, maxLength: 10 }).filter((state) => !['pending', 'delivered', 'dead'].includes(state)).map((state) => (): WireRequest => ({
      kind: 'admin: bad callback state', method: 'GET', path: `/sandbox/callbacks?state=${encodeURIComponent(state)}`, headers: [['authorization', `Bearer ${ADMIN_TOKEN}`]], expect: ['header_invalid'],
    })),
    fc.constant(null).map(() => (target: FuzzTarget): WireRequest => ({
      kind: 'admin: ambiguous reference', method: 'GET', path: `/sandbox/orders/${encodeURIComponent(target.seeds.sharedRef)}`, headers: [['authorization', `Bearer ${ADMIN_TOKEN}`]], expect: ['header_invalid'],
    })),
    fc.tuple(fc.constantFrom('PUT', 'DELETE', 'PATCH', 'POST'), fc.constantFrom('/orders', '/callbacks', '/orders/x', '/nope')).map(([method, path]) => (): WireRequest => ({
      kind: `admin: ${method} ${path}`, method, path: `/sandbox${path}`, headers: [['authorization', `Bearer ${ADMIN_TOKEN}`]], expect: ['route_not_found', 'method_not_allowed'],
    })),
  );
  return { name: '/sandbox/* with admin, bad requests', arb };
}

// ---------------------------------------------------------------------------------------------------------------
// Raw cases: repeated headers, bytes outside UTF-8 in headers, chunked bodies, odd request targets

const SINGLE_VALUED = ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key', 'x-signature', 'authorization', 'dpop', 'content-type'];

export function rawRequests(): RequestArb {
  const arb = fc.oneof(
    // The same single-valued header twice (same or another value, any case): always header_invalid.
    fc.tuple(fc.constantFrom(...SINGLE_VALUED), fc.boolean(), fc.boolean(), fc.constantFrom<'create' | 'status'>('create', 'status')).map(([name, same, upper, flow]) => (t: FuzzTarget): WireRequest => {
      const draft = flow === 'create' ? baseCreate(t) : baseStatus(t, 'NO-SUCH-ORDER');
      const request = finalize(t, draft);
      const existing = request.headers.find(([header]) => header === name)?.[1];
      const value = same && existing !== undefined ? existing : name === 'content-type' ? 'application/json' : name === 'x-nonce' ? newNonce() : `${existing ?? 'x'}x`;
      if (existing === undefined) request.headers.push([name, value]);
      request.headers.push([upper ? name.toUpperCase() : name, value]);
      request.kind = `repeated ${name} (${flow})`;
      request.rawOnly = true;
      // Repeats are refused in check_headers; for status in strict mode the transport check comes first.
      request.expect = t.mode === 'strict' && flow === 'status' ? ['mtls_required'] : ['header_invalid'];
      return request;
    }),
    // Bytes 0x80-0xFF (not UTF-8) in header values, over a raw socket.
    fc.tuple(fc.constantFrom('x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key', 'x-signature', 'authorization', 'content-type'), fc.constantFrom('\xff', '\xc3\x28', '\xe9', '\x80\x80', '\xed\xa0\x80'), fc.boolean()).map(([name, bytes, append]) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      request.headers = request.headers.map(([header, value]) => [header, header === name ? (append ? `${value}${bytes}` : `${bytes}${value.slice(1)}`) : value]);
      request.kind = `latin1 bytes in ${name}`;
      const codes: Record<string, string> = { 'x-signature': 'signature_invalid', authorization: 'auth_invalid', 'content-type': 'unsupported_media_type' };
      request.expect = [codes[name] ?? 'header_invalid'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    // Chunked bodies over the limit, and chunked bodies that are not JSON (signed over the bytes).
    fc.tuple(fc.integer({ min: BODY_LIMIT + 1, max: 10 * BODY_LIMIT }), fc.integer({ min: 1, max: 40 })).map(([size, parts]) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      const body = Buffer.alloc(size, 'a');
      const chunkSize = Math.ceil(size / parts);
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < size; offset += chunkSize) {
        const piece = body.subarray(offset, offset + chunkSize);
        chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from('0\r\n\r\n'));
      request.headers.push(['transfer-encoding', 'chunked']);
      request.body = Buffer.concat(chunks);
      request.kind = `chunked body of ${size} bytes in ${parts} chunks`;
      request.expect = ['body_too_large'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    fc.tuple(fc.string({ maxLength: 300 }), fc.integer({ min: 1, max: 5 })).map(([text, parts]) => (t: FuzzTarget): WireRequest => {
      const payload = Buffer.from(`{${text}`);
      const draft = baseCreate(t);
      draft.body = payload;
      const request = finalize(t, draft);
      const chunkSize = Math.max(1, Math.ceil(payload.length / parts));
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < payload.length; offset += chunkSize) {
        const piece = payload.subarray(offset, offset + chunkSize);
        chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from('0\r\n\r\n'));
      request.headers.push(['transfer-encoding', 'chunked']);
      request.body = Buffer.concat(chunks);
      request.kind = 'chunked body that is not JSON';
      request.expect = ['body_malformed', 'body_invalid'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    // Content-Length over the limit, with little or nothing behind it.
    fc.integer({ min: BODY_LIMIT + 1, max: 1_000_000_000 }).map((declared) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      request.headers.push(['content-length', String(declared)]);
      request.body = Buffer.from('{}');
      request.kind = `Content-Length ${declared}`;
      request.expect = ['body_too_large'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
    // Absolute-form and odd request targets, signed over the origin-form path.
    fc.constantFrom('absolute', 'fragment', 'double-slash').map((shape) => (t: FuzzTarget): WireRequest => {
      const request = finalize(t, baseCreate(t));
      request.path = shape === 'absolute' ? `http://127.0.0.1:${t.port}/payment-orders` : shape === 'fragment' ? '/payment-orders#x' : '//payment-orders';
      request.kind = `request target ${shape}`;
      request.expect = ['signature_invalid', 'route_not_found'];
      request.bytes = wireBytes(request, t.port);
      return request;
    }),
  );
  return { name: 'raw: repeated headers, latin1 bytes, chunked, targets', arb };
}

// ---------------------------------------------------------------------------------------------------------------
// Running

/** Request makers print as a placeholder in counterexamples (the failure message carries the request itself). */
function named(arb: fc.Arbitrary<(t: FuzzTarget) => WireRequest>): fc.Arbitrary<(t: FuzzTarget) => WireRequest> {
  return arb.map((make) => Object.assign((t: FuzzTarget) => make(t), { [fc.toStringMethod]: () => '<request>' }));
}

/** Sends `runs` batches of `batch` concurrent requests from `arb`, checking every answer. Returns requests sent. */
export async function runBatches(t: FuzzTarget, requests: RequestArb, runs: number, batch = 8, seed?: number): Promise<number> {
  const before = t.stats.requests;
  await fc.assert(
    fc.asyncProperty(fc.array(named(requests.arb), { minLength: batch, maxLength: batch }), async (makers) => {
      // allSettled: a failure must not leave requests in flight into the next property.
      const outcomes = await Promise.allSettled(makers.map(async (make) => sendAndCheck(t, make(t))));
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
  return t.stats.requests - before;
}

export function describeStats(t: FuzzTarget): string {
  const codes = [...t.stats.byCode.entries()].sort((a, b) => b[1] - a[1]).map(([code, count]) => `${code}=${count}`).join(' ');
  return `${t.mode}: ${t.stats.requests} requests; ${codes}`;
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
