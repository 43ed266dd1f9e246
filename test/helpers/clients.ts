// Extra Connectors for tests: fresh keys and secrets, a temp clients file that also keeps the demo client,
// and a signing session for any registered client.
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Bank } from '../../src/bank/bank';
import type { AuthMethod, ClientDefinition } from '../../src/bank/security/client-registry';
import type { PublicJwk } from '../../src/wire/keys';
import { isoNow, newNonce, ROOT, sendWith, signRequest, tempDir } from './bank';

export interface TestClient {
  client_id: string;
  client_secret: string;
  api_key: string;
  /** Private signing JWK (kid and alg set). */
  private_jwk: PublicJwk;
  definition: ClientDefinition;
}

export interface TestClientOptions {
  key?: 'EC' | 'RSA';
  /** alg written into the registered JWK; null registers the key without alg (any fitting alg). */
  alg?: 'ES256' | 'PS256' | 'RS256' | null;
  authMethods?: AuthMethod[];
  withApiKey?: boolean;
  /** The client secret (default: 32 random base64url characters). */
  clientSecret?: string;
}

function sha256Hash(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

export function makeTestClient(clientId: string, options: TestClientOptions = {}): TestClient {
  const kind = options.key ?? 'EC';
  const pair = kind === 'EC' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const defaultAlg = kind === 'EC' ? 'ES256' : 'PS256';
  const registeredAlg = options.alg === undefined ? defaultAlg : options.alg;
  const kid = `${clientId}-${randomBytes(6).toString('hex')}`;
  const privateJwk = { ...(pair.privateKey.export({ format: 'jwk' }) as PublicJwk), kid, alg: registeredAlg ?? defaultAlg };
  const publicJwk: PublicJwk = { ...(pair.publicKey.export({ format: 'jwk' }) as PublicJwk), kid, use: 'sig' };
  if (registeredAlg !== null) publicJwk.alg = registeredAlg;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const apiKey = `sbk_${randomBytes(24).toString('base64url')}`;
  const withApiKey = options.withApiKey ?? true;
  const definition: ClientDefinition = {
    client_id: clientId,
    name: clientId,
    jwks: { keys: [publicJwk] },
    client_secret_hash: sha256Hash(clientSecret),
    auth_methods: options.authMethods ?? ['bearer', 'dpop', 'api_key'],
  };
  if (withApiKey) definition.api_key_hash = sha256Hash(apiKey);
  return { client_id: clientId, client_secret: clientSecret, api_key: apiKey, private_jwk: privateJwk, definition };
}

/** Writes a clients file with the shipped demo client plus `extra`; returns its path. */
export function writeClientsFile(extra: readonly TestClient[], options: { includeDemo?: boolean } = {}): string {
  const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/clients.json'), 'utf8')) as { clients: ClientDefinition[] };
  const clients = [...(options.includeDemo === false ? [] : shipped.clients), ...extra.map((client) => client.definition)];
  const file = path.join(tempDir('sandbox-bank-clients-'), 'clients.json');
  fs.writeFileSync(file, JSON.stringify({ clients }, null, 2));
  return file;
}

export interface SessionRequestOptions {
  token?: string;
  idempotencyKey?: string;
  /** Header overrides after signing; undefined removes a header. */
  headers?: Record<string, string | undefined>;
  /** Sign as this client id (default: the session's). */
  signAs?: string;
}

/** Like DemoClient, for any registered client (Bearer token, ES256/PS256/RS256 signatures). */
export class ClientSession {
  private cachedToken: string | null = null;

  constructor(readonly bank: Bank, readonly client: Pick<TestClient, 'client_id' | 'client_secret' | 'private_jwk'>) {}

  async token(): Promise<string> {
    if (this.cachedToken) return this.cachedToken;
    const response = await request(this.bank.app)
      .post('/oauth/token')
      .auth(this.client.client_id, this.client.client_secret)
      .type('form')
      .send({ grant_type: 'client_credentials' });
    if (response.status !== 200) throw new Error(`token failed: ${response.status} ${response.text}`);
    this.cachedToken = response.body.access_token as string;
    return this.cachedToken;
  }

  async create(order: unknown, options: SessionRequestOptions = {}) {
    const body = JSON.stringify(order);
    const headers: Record<string, string> = {
      'x-client-id': options.signAs ?? this.client.client_id,
      'x-request-id': randomUUID(),
      'x-timestamp': isoNow(this.bank.clock),
      'x-nonce': newNonce(),
      'x-idempotency-key': options.idempotencyKey ?? `idem-${randomUUID()}`,
    };
    headers['x-signature'] = signRequest('create', 'POST', '/payment-orders', headers, body, { jwk: this.client.private_jwk });
    headers.authorization = `Bearer ${options.token ?? (await this.token())}`;
    headers['content-type'] = 'application/json';
    return sendWith(request(this.bank.app).post('/payment-orders'), { ...headers, ...options.headers }, body);
  }

  async status(reference: string, options: SessionRequestOptions = {}) {
    const target = `/payment-orders/${encodeURIComponent(reference)}/status`;
    const headers: Record<string, string> = {
      'x-client-id': options.signAs ?? this.client.client_id,
      'x-timestamp': isoNow(this.bank.clock),
      'x-nonce': newNonce(),
    };
    headers['x-signature'] = signRequest('status', 'GET', target, headers, '', { jwk: this.client.private_jwk });
    headers.authorization = `Bearer ${options.token ?? (await this.token())}`;
    return sendWith(request(this.bank.app).get(target), { ...headers, ...options.headers });
  }
}
