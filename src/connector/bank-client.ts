// The reference Connector's calls to the Bank: OAuth token, push create, reverse polling, the Bank's JWKS.
// What it shows a Connector team:
// - get a token by client_credentials (client_secret_basic) and reuse it until shortly before it expires;
// - sign every call per the profile: a detached JWS over the signature base, fresh X-Timestamp and X-Nonce;
// - give a create a deterministic X-Idempotency-Key, so a retry after a timeout replays the Bank's answer
//   instead of creating a second order;
// - check the create answer against the contract (4.1.1: a 200 has a body whose reference is ours, a 202 has
//   none) before recording it: 200 applies the status, 202 means "awaiting a callback", and both PENDING and
//   202 schedule reverse polling as the fallback;
// - present the client certificate (mTLS) on reverse polling when one is configured.
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { newNonce } from '../wire/random-ids';
import axios, { AxiosInstance } from 'axios';
import type { Logger } from 'winston';
import { Clock, toIsoSeconds } from '../wire/clock';
import { signDetached } from '../wire/jws';
import { Jwks, PublicJwk, SigningKey, signingKeyFromJwk } from '../wire/keys';
import { SignedFlow, signatureBase } from '../wire/signature-base';
import { ConnectorConfig } from './config';
import { parseCreateAnswer } from './status-objects';
import { ConnectorStatus, ConnectorStore } from './store';

export interface ConnectorCredentials {
  client_id: string;
  client_secret: string;
  api_key?: string;
  private_jwk: PublicJwk;
}

export interface TlsMaterial {
  cert?: Buffer;
  key?: Buffer;
  ca?: Buffer;
}

export interface BankAnswer {
  /** null when no HTTP answer came back (network error, timeout). */
  httpStatus: number | null;
  body: unknown;
  retryAfterS: number | null;
  error: string | null;
}

export interface CreateResult extends BankAnswer {
  /** The order's status in the Connector after recording the answer. */
  status: ConnectorStatus | null;
}

/** The payment order of contract 2.1 (the create body). */
export interface PaymentOrderBody {
  reference: string;
  initiated_at: string;
  [field: string]: unknown;
}

const TIMEOUT_MS = 10_000;
const TOKEN_REFRESH_MARGIN_MS = 60_000;

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function retryAfterSeconds(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return null;
  return Number(value);
}

export class BankClient {
  private readonly http: AxiosInstance;
  private readonly signer: SigningKey;
  private cachedToken: { value: string; expiresAt: number } | null = null;

  constructor(
    private readonly config: ConnectorConfig,
    private readonly credentials: ConnectorCredentials,
    private readonly store: ConnectorStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    tls: TlsMaterial = {},
  ) {
    this.signer = signingKeyFromJwk(credentials.private_jwk);
    this.http = axios.create({
      timeout: TIMEOUT_MS,
      maxRedirects: 0,
      responseType: 'text',
      transformResponse: (data: unknown) => data,
      validateStatus: () => true,
      httpAgent: new http.Agent({ keepAlive: true }),
      // The CA verifies the Bank's server certificate; cert and key are our client certificate (mTLS).
      httpsAgent: new https.Agent({ keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key }),
    });
  }

  get clientId(): string {
    return this.credentials.client_id;
  }

  /** client_credentials with client_secret_basic, cached until shortly before expiry. */
  async accessToken(): Promise<string> {
    const now = this.clock.now();
    if (this.cachedToken && this.cachedToken.expiresAt - TOKEN_REFRESH_MARGIN_MS > now) return this.cachedToken.value;
    const basic = Buffer.from(`${encodeURIComponent(this.credentials.client_id)}:${encodeURIComponent(this.credentials.client_secret)}`).toString('base64');
    const response = await this.http.post<string>(`${this.config.bankUrl}/oauth/token`, 'grant_type=client_credentials', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    });
    if (response.status !== 200) throw new Error(`token request answered ${response.status}`);
    const parsed = parseJson(response.data) as { access_token?: string; expires_in?: number } | null;
    if (!parsed?.access_token) throw new Error('token response has no access_token');
    this.cachedToken = { value: parsed.access_token, expiresAt: now + (parsed.expires_in ?? 300) * 1000 };
    return parsed.access_token;
  }

  /** Security headers of one signed call; a fresh timestamp and nonce every time. */
  signedHeaders(flow: SignedFlow, method: string, target: string, body: string, extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = {
      'x-client-id': this.credentials.client_id,
      'x-timestamp': toIsoSeconds(this.clock.now()),
      'x-nonce': newNonce(),
      ...extra,
    };
    const base = signatureBase(flow, { method, target, headers, body });
    headers['x-signature'] = signDetached(base, this.signer.privateKey, { alg: this.signer.alg, kid: this.signer.kid, typ: 'JOSE' });
    return headers;
  }

  private async send(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string): Promise<BankAnswer> {
    try {
      const response = await this.http.request<string>({ method, url, headers, data: body });
      if (response.status === 401) this.cachedToken = null;
      const retryAfterS = retryAfterSeconds(response.headers['retry-after']);
      return { httpStatus: response.status, body: parseJson(String(response.data ?? '')), retryAfterS, error: null };
    } catch (error) {
      const message = axios.isAxiosError(error) ? `${error.code ?? 'ERROR'}: ${error.message}` : String(error);
      return { httpStatus: null, body: null, retryAfterS: null, error: message };
    }
  }

  /** POST /payment-orders, then records the answer. Safe to call again for the same order (same idempotency key). */
  async createOrder(order: PaymentOrderBody): Promise<CreateResult> {
    const now = this.clock.now();
    // Stored before sending, so a callback that overtakes the create answer finds the order.
    this.store.insertOrder(order, 'push', now);
    const body = JSON.stringify(order);
    const url = new URL(`${this.config.bankUrl}/payment-orders`);
    const headers = this.signedHeaders('create', 'POST', url.pathname, body, {
      'x-request-id': randomUUID(),
      'x-idempotency-key': `create-${order.reference}`,
    });
    try {
      headers.authorization = `Bearer ${await this.accessToken()}`;
    } catch (error) {
      return { httpStatus: null, body: null, retryAfterS: null, error: `token: ${(error as Error).message}`, status: this.store.order(order.reference)?.status ?? null };
    }
    headers['content-type'] = 'application/json';
    const answer = await this.send('POST', url.toString(), headers, body);
    return { ...answer, status: this.recordCreateAnswer(order.reference, answer) };
  }

  private recordCreateAnswer(reference: string, answer: BankAnswer): ConnectorStatus | null {
    const now = this.clock.now();
    const context = { reference, http_status: answer.httpStatus };
    if (answer.httpStatus === 202) {
      if (answer.body !== null) return this.invalidAnswer(reference, '202 with a body');
      this.logger.info('create accepted (202): awaiting the final status by callback', context);
      return this.store.applyStatus(reference, { status: 'AWAITING' }, 'create', now).status;
    }
    if (answer.httpStatus === 200) {
      const parsed = parseCreateAnswer(answer.body, reference);
      if (!parsed.value) return this.invalidAnswer(reference, `200 body: ${parsed.errors.map((error) => `${error.path} ${error.message}`).join('; ') || 'missing'}`);
      const { status, bankReference, reasonCode, reasonMessage } = parsed.value;
      this.logger.info('create answered (200)', { ...context, status, bank_reference: bankReference });
      const result = this.store.applyStatus(reference, { status, bankReference, reasonCode, reasonMessage }, 'create', now);
      if (result.outcome === 'conflict') this.store.addAlert(reference, `create answer ${status} conflicts: ${result.detail}`, now);
      return result.status;
    }
    this.logger.warn('create rejected', { ...context, error: answer.error, problem: answer.body });
    return this.store.order(reference)?.status ?? null;
  }

  /** Contract 4.1.1: any deviation from the answer rules rejects the integration. Alert, never guess. */
  private invalidAnswer(reference: string, what: string): ConnectorStatus | null {
    const message = `create answer breaks contract 4.1.1: ${what}`;
    this.logger.error(message, { reference });
    this.store.addAlert(reference, message, this.clock.now());
    return this.store.order(reference)?.status ?? null;
  }

  /** GET {BANK_STATUS_URL}/payment-orders/{orderId}/status, signed per the status flow. */
  async pollStatus(reference: string): Promise<BankAnswer> {
    const url = new URL(`${this.config.bankStatusUrl}/payment-orders/${encodeURIComponent(reference)}/status`);
    // The signed @target-uri is the path exactly as it travels (a base URL may carry a path prefix).
    const headers = this.signedHeaders('status', 'GET', url.pathname, '');
    try {
      headers.authorization = `Bearer ${await this.accessToken()}`;
    } catch (error) {
      return { httpStatus: null, body: null, retryAfterS: null, error: `token: ${(error as Error).message}` };
    }
    return this.send('GET', url.toString(), headers);
  }

  /** The Bank's published verification keys. */
  async fetchJwks(): Promise<Jwks> {
    const response = await this.http.get<string>(this.config.bankJwksUrl);
    if (response.status !== 200) throw new Error(`${this.config.bankJwksUrl} answered ${response.status}`);
    const jwks = parseJson(response.data) as Jwks | null;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`${this.config.bankJwksUrl} is not a JWKS`);
    return jwks;
  }

  close(): void {
    (this.http.defaults.httpAgent as http.Agent).destroy();
    (this.http.defaults.httpsAgent as https.Agent).destroy();
  }
}
