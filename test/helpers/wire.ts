// Wire-level helpers for the inbound tests: raw HTTP requests (missing Content-Type, repeated headers, raw bytes),
// problem-details assertions and store snapshots.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import type express from 'express';
import type { Bank } from '../../src/bank/bank';
import { signDetached } from '../../src/wire/jws';
import { signingKeyFromJwk } from '../../src/wire/keys';
import { SignedFlow, signatureBase } from '../../src/wire/signature-base';
import { demo, isoNow, newNonce, SignOptions } from './bank';

/** A header value, or several values sent as repeated header lines. */
export type HeaderValue = string | string[];

export interface RawRequest {
  method: string;
  /** Request target exactly as it goes on the wire (path and query). */
  path: string;
  headers: Record<string, HeaderValue | undefined>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

/**
 * Sends one request over a fresh loopback listener with node:http, with nothing added but Host, Connection and
 * Content-Length (unless Content-Length or Transfer-Encoding is given): no default Content-Type, and an array value
 * sends the header once per element.
 */
export async function rawRequest(app: express.Express, request: RawRequest): Promise<RawResponse> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = value;
  const framed = Object.keys(headers).some((name) => ['content-length', 'transfer-encoding'].includes(name.toLowerCase()));
  if (body !== undefined && !framed) {
    headers['content-length'] = String(body.length);
  }
  try {
    return await new Promise<RawResponse>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: bytes,
            text: bytes.toString('utf8'),
            json: <T>() => JSON.parse(bytes.toString('utf8')) as T,
          });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Signs over raw bytes (a Buffer body, e.g. invalid UTF-8) with the project's own signer. */
export function signBytes(flow: SignedFlow, method: string, target: string, headers: Record<string, string>, body: Buffer | string, options: SignOptions = {}): string {
  const key = signingKeyFromJwk(options.jwk ?? demo.private_jwk);
  const base = signatureBase(flow, { method, target, headers, body });
  return signDetached(base, key.privateKey, { alg: key.alg, kid: key.kid, typ: 'JOSE' });
}

export const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'instance', 'code', 'request_id'] as const;

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  request_id: string;
  errors?: { path: string; message: string }[];
  [extension: string]: unknown;
}

/** The parts of a supertest or raw response that the problem checks read. */
export interface AnyResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Asserts an RFC 9457 problem with the profile's members (section 5) and returns it.
 * `requestId`: the X-Request-Id that was sent, which request_id must echo.
 */
export function expectProblem(response: AnyResponse, status: number, code: string, requestId?: string): Problem {
  const context = `${response.status} ${response.text}`;
  expect({ status: response.status, code: safeJson(response.text)?.code }).toEqual({ status, code });
  expect(String(response.headers['content-type'])).toMatch(/^application\/problem\+json(;|$)/);
  const body = JSON.parse(response.text) as Problem;
  for (const member of PROBLEM_MEMBERS) expect([member, body[member] === undefined ? 'absent' : 'present', context]).toEqual([member, 'present', context]);
  expect(body.status).toBe(status);
  expect(typeof body.type).toBe('string');
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(typeof body.instance).toBe('string');
  expect(typeof body.request_id).toBe('string');
  expect(body.request_id.length).toBeGreaterThan(0);
  if (requestId !== undefined) expect(body.request_id).toBe(requestId);
  return body;
}

export function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export const TABLES = ['orders', 'order_status_history', 'idempotency_records', 'nonces'] as const;
export type TableCounts = Record<(typeof TABLES)[number], number>;

export function tableCounts(bank: Bank): TableCounts {
  const counts = {} as TableCounts;
  for (const table of TABLES) counts[table] = bank.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  return counts;
}

export function nonceStored(bank: Bank, clientId: string, nonce: string): boolean {
  return bank.db.prepare('SELECT 1 FROM nonces WHERE client_id = ? AND nonce = ?').pluck().get(clientId, nonce) !== undefined;
}

export function orderCount(bank: Bank, clientId: string, reference: string): number {
  return bank.db.prepare('SELECT COUNT(*) FROM orders WHERE client_id = ? AND reference = ?').pluck().get(clientId, reference) as number;
}

export interface SignedHeaderOptions {
  /** Values signed into the base (and sent), instead of fresh defaults. */
  clientId?: string;
  requestId?: string;
  timestamp?: string;
  nonce?: string;
  idempotencyKey?: string;
  /** Signing key (default: the demo client's). */
  jwk?: SignOptions['jwk'];
  /** Full Authorization value (default `Bearer <token>`). */
  authorization?: string;
}

/** Headers of a correctly signed create over exactly `body`; override entries afterwards to break one thing. */
export function signedCreateHeaders(bank: Bank, token: string, body: Buffer | string, options: SignedHeaderOptions = {}): Record<string, HeaderValue | undefined> {
  const headers: Record<string, string> = {
    'x-client-id': options.clientId ?? demo.client_id,
    'x-request-id': options.requestId ?? `req-${Math.random().toString(36).slice(2)}-${Date.now()}`,
    'x-timestamp': options.timestamp ?? isoNow(bank.clock),
    'x-nonce': options.nonce ?? newNonce(),
    'x-idempotency-key': options.idempotencyKey ?? `idem-${newNonce()}`,
  };
  headers['x-signature'] = signBytes('create', 'POST', '/payment-orders', headers, body, { jwk: options.jwk });
  headers.authorization = options.authorization ?? `Bearer ${token}`;
  headers['content-type'] = 'application/json';
  return headers;
}

/** Headers of a correctly signed reverse-polling request for `target` (path and query exactly as sent). */
export function signedStatusHeaders(bank: Bank, token: string, target: string, options: SignedHeaderOptions = {}): Record<string, HeaderValue | undefined> {
  const headers: Record<string, string> = {
    'x-client-id': options.clientId ?? demo.client_id,
    'x-timestamp': options.timestamp ?? isoNow(bank.clock),
    'x-nonce': options.nonce ?? newNonce(),
  };
  headers['x-signature'] = signBytes('status', 'GET', target, headers, '', { jwk: options.jwk });
  headers.authorization = options.authorization ?? `Bearer ${token}`;
  return headers;
}

export function postCreate(bank: Bank, headers: Record<string, HeaderValue | undefined>, body: Buffer | string): Promise<RawResponse> {
  return rawRequest(bank.app, { method: 'POST', path: '/payment-orders', headers, body });
}

export function getStatus(bank: Bank, target: string, headers: Record<string, HeaderValue | undefined>, body?: Buffer | string): Promise<RawResponse> {
  return rawRequest(bank.app, { method: 'GET', path: target, headers, body });
}

export function statusTarget(reference: string): string {
  return `/payment-orders/${encodeURIComponent(reference)}/status`;
}

/** ISO instant, second precision, `offsetS` from the bank clock. */
export function isoAt(bank: Bank, offsetS: number): string {
  return new Date(bank.clock.now() + offsetS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
