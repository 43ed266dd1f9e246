// Test helpers: a Bank on a temp data dir, the demo client's credentials, and a signing client over supertest.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { Bank, BankOptions, createBank } from '../../src/bank/bank';
import { BankConfig, DEFAULTS } from '../../src/bank/config';
import { Clock } from '../../src/wire/clock';
import { createLogger } from '../../src/wire/logger';
import { signDetached } from '../../src/wire/jws';
import { PublicJwk, signingKeyFromJwk } from '../../src/wire/keys';
import { SignedFlow, signatureBase } from '../../src/wire/signature-base';
import { checkContractOf } from './contract';

export const ROOT = path.resolve(__dirname, '..', '..');

export interface DemoCredentials {
  client_id: string;
  client_secret: string;
  api_key: string;
  private_jwk: PublicJwk;
}

export const demo: DemoCredentials = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/demo-connector/credentials.json'), 'utf8'));

export function tempDir(prefix = 'sandbox-bank-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function testConfig(overrides: Partial<BankConfig> = {}): BankConfig {
  return {
    ...DEFAULTS,
    dataDir: tempDir(),
    clientsFile: path.join(ROOT, 'fixtures/clients.json'),
    logLevel: 'error',
    ...overrides,
  };
}

/** A Bank on a temp data dir; every answer of its app is checked against /openapi.json (helpers/contract.ts). */
export async function startBank(overrides: Partial<BankConfig> = {}, options: BankOptions = {}): Promise<Bank> {
  const bank = await createBank(testConfig(overrides), { logger: createLogger('error', true), ...options });
  checkContractOf(bank.app);
  return bank;
}

/** Valid IBAN for a country and BBAN (computes the mod-97 check digits). */
export function makeIban(country: string, bban: string): string {
  const numeric = (bban + country + '00').replace(/[A-Z]/g, (char) => String(char.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

export const IBANS = {
  debtor: 'DE89370400440532013000',
  creditor: 'FR1420041010050500013M02606',
  creditor2: 'GB82WEST12345698765432',
  badChecksum: 'DE00370400440532013000',
};

let referenceCounter = 0;

export function uniqueReference(prefix = 'ORD'): string {
  referenceCounter += 1;
  return `${prefix}-${Date.now().toString(36)}-${referenceCounter}-${randomBytes(3).toString('hex')}`;
}

export function sampleOrder(overrides: Record<string, unknown> = {}, amount = '100.00'): Record<string, unknown> {
  return {
    reference: uniqueReference(),
    initiated_at: '2026-11-22T09:00:00Z',
    reason: 'Invoice 2026-11',
    type: 'DIRECT_DEBIT',
    debtor: { name: 'Alice Debtor', iban: IBANS.debtor },
    creditors: [{ name: 'Bob Creditor', iban: IBANS.creditor, bank_code: 'BNPAFRPP', amount, reason: 'Invoice 2026-11' }],
    total_amount: amount,
    currency: 'EUR',
    metadata: { initiator: 'test-suite' },
    ...overrides,
  };
}

export function isoNow(clock?: Clock): string {
  return new Date(clock ? clock.now() : Date.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

const demoSigningKey = signingKeyFromJwk(demo.private_jwk);

export interface SignOptions {
  jwk?: PublicJwk;
  clientId?: string;
}

/** Signs a request the way the profile says, using the project's own signature-base code. */
export function signRequest(flow: SignedFlow, method: string, target: string, headers: Record<string, string>, body: string, options: SignOptions = {}): string {
  const key = options.jwk ? signingKeyFromJwk(options.jwk) : demoSigningKey;
  const base = signatureBase(flow, { method, target, headers, body });
  return signDetached(base, key.privateKey, { alg: key.alg, kid: key.kid, typ: 'JOSE' });
}

export interface CreateOptions {
  token?: string;
  headers?: Record<string, string | undefined>;
  idempotencyKey?: string;
  rawBody?: string;
  clock?: Clock;
  sign?: SignOptions;
}

/** Every header of a signed create (profile section 1), for any transport. */
export function signedCreateHeaders(body: string, token: string, options: CreateOptions = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'x-client-id': options.sign?.clientId ?? demo.client_id,
    'x-request-id': randomUUID(),
    'x-timestamp': isoNow(options.clock),
    'x-nonce': newNonce(),
    'x-idempotency-key': options.idempotencyKey ?? `idem-${randomUUID()}`,
  };
  headers['x-signature'] = signRequest('create', 'POST', '/payment-orders', headers, body, options.sign);
  headers.authorization = `Bearer ${token}`;
  headers['content-type'] = 'application/json';
  return headers;
}

export class DemoClient {
  private cachedToken: string | null = null;

  constructor(readonly bank: Bank) {}

  async token(): Promise<string> {
    if (this.cachedToken) return this.cachedToken;
    const response = await request(this.bank.app)
      .post('/oauth/token')
      .auth(demo.client_id, demo.client_secret)
      .type('form')
      .send({ grant_type: 'client_credentials' });
    if (response.status !== 200) throw new Error(`token failed: ${response.status} ${response.text}`);
    this.cachedToken = response.body.access_token as string;
    return this.cachedToken;
  }

  /** Headers for a signed create, before overrides. */
  async createHeaders(body: string, options: CreateOptions = {}): Promise<Record<string, string>> {
    return signedCreateHeaders(body, options.token ?? (await this.token()), { ...options, clock: options.clock ?? this.bank.clock });
  }

  async create(order: unknown, options: CreateOptions = {}) {
    const body = options.rawBody ?? JSON.stringify(order);
    const headers = await this.createHeaders(body, options);
    return sendWith(request(this.bank.app).post('/payment-orders'), { ...headers, ...options.headers }, body);
  }

  async statusHeaders(target: string, options: CreateOptions = {}): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      'x-client-id': options.sign?.clientId ?? demo.client_id,
      'x-timestamp': isoNow(options.clock ?? this.bank.clock),
      'x-nonce': newNonce(),
    };
    headers['x-signature'] = signRequest('status', 'GET', target, headers, '', options.sign);
    headers.authorization = `Bearer ${options.token ?? (await this.token())}`;
    return headers;
  }

  async status(reference: string, options: CreateOptions = {}) {
    const target = `/payment-orders/${encodeURIComponent(reference)}/status`;
    const headers = await this.statusHeaders(target, options);
    return sendWith(request(this.bank.app).get(target), { ...headers, ...options.headers });
  }
}

/** Sets headers (an undefined value removes the header) and sends the body as raw bytes. */
export function sendWith(test: request.Test, headers: Record<string, string | undefined>, body?: string) {
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) test.set(name, value);
  return body === undefined ? test : test.send(body);
}

/**
 * An app on a real port of 127.0.0.1 (the given one, or any), for raw sockets, slow readers and restarts on the
 * same port; `close` cuts every connection first.
 */
export async function listeningOnLocalhost(app: http.RequestListener, port = 0): Promise<{ server: http.Server; port: number; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
