// The reference Connector's calls to the Bank: OAuth token, push create, reverse polling, the Bank's JWKS.
// What it shows a Connector team:
// - get a token by client_credentials (client_secret_basic) and reuse it until shortly before it expires;
// - sign every call per the profile: a detached JWS over the signature base, fresh X-Timestamp and X-Nonce;
// - give a create a deterministic X-Idempotency-Key, so a retry after a timeout replays the Bank's answer
//   instead of creating a second order;
// - retry a create that got a 5xx, a 429, a 409 idempotency_in_progress or no answer at all (network error,
//   time-out) with the SAME key and the SAME body bytes (fresh timestamp, nonce and signature), with exponential
//   backoff, waiting at least the Retry-After of a 429, a 503 or that 409; never retry another 4xx (the Bank has
//   decided: the same request would get the same answer);
// - a 409 idempotency_in_progress means the Bank is still processing an earlier attempt (typically one whose
//   answer we gave up waiting for): the Bank has the order or is about to. If the retries run out while it still
//   answers that, schedule reverse polling, so the outcome is fetched later instead of the order staying READY;
// - check the create answer against the contract (4.1.1: a 200 has a body whose reference is ours, a 202 has
//   none) before recording it: 200 applies the status, 202 means "awaiting a callback", and both PENDING and
//   202 schedule reverse polling as the fallback;
// - present the client certificate (mTLS) on reverse polling when one is configured.
// The signing, the keep-alive agents and the token cache are the exchange's shared client (wire/signed-client).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'winston';
import { Clock } from '../wire/clock';
import { Jwks, PublicJwk, signingKeyFromJwk } from '../wire/keys';
import { HttpAnswer, SignedClient, TlsMaterial, TokenCache } from '../wire/signed-client';
import { ConnectorConfig } from './config';
import { parseCreateAnswer } from './status-objects';
import { ConnectorStatus, ConnectorStore, isFinalStatus } from './store';

export interface ConnectorCredentials {
  client_id: string;
  client_secret: string;
  api_key?: string;
  private_jwk: PublicJwk;
}

export interface BankAnswer {
  /** null when no HTTP answer came back (network error, timeout). */
  httpStatus: number | null;
  /** The body as JSON (its text when it is not JSON); null for an empty body, or for the JSON literal null. */
  body: unknown;
  /** Whether the answer had any body bytes: a 202 must have none (contract 4.1.1), not even `null`. */
  hasBody?: boolean;
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
/** Growth of the wait between create retries. */
const CREATE_RETRY_FACTOR = 2;
/** A Retry-After longer than this is not a passing hiccup: the create stops retrying and reports the answer. */
const MAX_RETRY_AFTER_MS = 60_000;

export type Sleep = (ms: number) => Promise<void>;

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * 409 idempotency_in_progress: the Bank is still processing an earlier request under this key (profile section
 * 6). Not a decision: the stored answer comes once that request finishes.
 */
export function isIdempotencyInProgress(answer: { httpStatus: number | null; body?: unknown }): boolean {
  return answer.httpStatus === 409 && (answer.body as { code?: unknown } | null | undefined)?.code === 'idempotency_in_progress';
}

/**
 * A create answer worth sending again: 5xx, 429, 409 idempotency_in_progress, or none at all. Any other 4xx is
 * the Bank's decision.
 */
export function isRetryableCreateAnswer(answer: { httpStatus: number | null; body?: unknown }): boolean {
  const { httpStatus } = answer;
  return httpStatus === null || httpStatus === 429 || httpStatus >= 500 || isIdempotencyInProgress(answer);
}

/**
 * The wait before create retry number `retry` (1, 2, ...): initialMs x 2^(retry-1), or the Retry-After of a 429,
 * a 503 or a 409 idempotency_in_progress when longer; null when the Bank asks for more than MAX_RETRY_AFTER_MS.
 */
export function createRetryDelayMs(initialMs: number, retry: number, answer: Pick<BankAnswer, 'httpStatus' | 'retryAfterS'> & { body?: unknown }): number | null {
  const backoff = initialMs * CREATE_RETRY_FACTOR ** (retry - 1);
  const honoursRetryAfter = answer.httpStatus === 429 || answer.httpStatus === 503 || isIdempotencyInProgress(answer);
  if (!honoursRetryAfter || answer.retryAfterS === null) return backoff;
  const retryAfterMs = answer.retryAfterS * 1000;
  return retryAfterMs > MAX_RETRY_AFTER_MS ? null : Math.max(backoff, retryAfterMs);
}

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
  private readonly client: SignedClient;
  private readonly tokens: TokenCache;

  constructor(
    private readonly config: ConnectorConfig,
    private readonly credentials: ConnectorCredentials,
    private readonly store: ConnectorStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    tls: TlsMaterial = {},
    private readonly sleep: Sleep = realSleep,
  ) {
    const signer = signingKeyFromJwk(credentials.private_jwk);
    // The CA verifies the Bank's server certificate; cert and key are our client certificate (mTLS).
    this.client = new SignedClient({ clientId: credentials.client_id, signer, clock, timeoutMs: TIMEOUT_MS, tls });
    const tokenRequest = { tokenUrl: `${config.bankUrl}/oauth/token`, clientId: credentials.client_id, clientSecret: credentials.client_secret };
    this.tokens = new TokenCache(this.client, tokenRequest, clock, TOKEN_REFRESH_MARGIN_MS);
  }

  get clientId(): string {
    return this.credentials.client_id;
  }

  /** client_credentials with client_secret_basic, cached until shortly before expiry. */
  accessToken(): Promise<string> {
    return this.tokens.token();
  }

  private async send(method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body?: string): Promise<BankAnswer> {
    const answer: HttpAnswer = await this.client.send(method, url, headers, body);
    if (answer.status === null) return { httpStatus: null, body: null, retryAfterS: null, error: answer.error };
    // A 401 means the Bank no longer takes our token: fetch a new one next time.
    if (answer.status === 401) this.tokens.clear();
    return { httpStatus: answer.status, body: parseJson(answer.body), hasBody: answer.body !== '', retryAfterS: retryAfterSeconds(answer.headers['retry-after']), error: null };
  }

  /**
   * POST /payment-orders, retried on 5xx, 429, 409 idempotency_in_progress or no answer (CREATE_RETRIES, backoff
   * from CREATE_RETRY_INITIAL_MS), then records the last answer. Safe to call again for the same order (same
   * idempotency key, same body).
   */
  async createOrder(order: PaymentOrderBody): Promise<CreateResult> {
    // Stored before sending, so a callback that overtakes the create answer finds the order; marked in flight until
    // its answer is recorded, so a start after a stop or a crash that lost the answer reverse-polls it.
    this.store.transaction(() => {
      this.store.insertOrder(order, 'push', this.clock.now());
      this.store.createSent(order.reference, this.clock.now());
    });
    // Serialised once: every attempt sends these exact bytes under this exact key.
    const body = JSON.stringify(order);
    const idempotencyKey = `create-${order.reference}`;
    let answer = await this.sendCreate(body, idempotencyKey);
    for (let retry = 1; retry <= this.config.createRetries && isRetryableCreateAnswer(answer) && !answer.tokenFailed; retry += 1) {
      const delayMs = createRetryDelayMs(this.config.createRetryInitialMs, retry, answer);
      const context = { reference: order.reference, idempotency_key: idempotencyKey, retry, of: this.config.createRetries, http_status: answer.httpStatus, error: answer.error ?? undefined };
      if (delayMs === null) {
        this.logger.warn('create not retried: the Bank asks to wait longer than a retry may', { ...context, retry_after_s: answer.retryAfterS });
        break;
      }
      this.logger.warn('create retry: same idempotency key and body', { ...context, delay_ms: delayMs });
      await this.sleep(delayMs);
      answer = await this.sendCreate(body, idempotencyKey);
    }
    const { tokenFailed: _tokenFailed, ...result } = answer;
    const status = answer.tokenFailed ? (this.store.order(order.reference)?.status ?? null) : this.recordCreateAnswer(order.reference, answer);
    this.store.createAnswered(order.reference);
    return { ...result, status };
  }

  /** One signed create attempt: fresh X-Request-Id, X-Timestamp, X-Nonce and signature over the same key and body. */
  private async sendCreate(body: string, idempotencyKey: string): Promise<BankAnswer & { tokenFailed?: true }> {
    const url = new URL(`${this.config.bankUrl}/payment-orders`);
    const headers = this.client.signedHeaders('create', 'POST', url, body, {
      'x-request-id': randomUUID(),
      'x-idempotency-key': idempotencyKey,
    });
    try {
      headers.authorization = `Bearer ${await this.accessToken()}`;
    } catch (error) {
      // Nothing was sent: not a create to retry (the token endpoint's own failure is reported as is).
      return { httpStatus: null, body: null, retryAfterS: null, error: `token: ${(error as Error).message}`, tokenFailed: true };
    }
    headers['content-type'] = 'application/json';
    return this.send('POST', url, headers, body);
  }

  private recordCreateAnswer(reference: string, answer: BankAnswer): ConnectorStatus | null {
    const now = this.clock.now();
    const context = { reference, http_status: answer.httpStatus };
    if (answer.httpStatus === 202) {
      if (answer.hasBody) return this.invalidAnswer(reference, '202 with a body');
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
    const unknownOutcome = isIdempotencyInProgress(answer) ? 'create still in progress at the Bank after the last retry' : answer.httpStatus === null ? 'create unanswered after the last retry' : null;
    if (unknownOutcome && !isFinalStatus(this.store.order(reference)?.status ?? null)) {
      // The Bank holds an earlier attempt of this create and has not finished it (409 in progress), or may hold it
      // (no answer: it can have stored the order and lost the connection): an outcome may exist that no 200 answer
      // will tell us (a final answered 200 sends no callback). Fetch it by reverse polling; should the Bank not
      // have the order, polling gets 404 and raises an alert.
      this.store.schedulePolling(reference, now);
      this.logger.warn(`${unknownOutcome}: reverse polling scheduled`, { ...context, error: answer.error ?? undefined, problem: answer.body ?? undefined });
      return this.store.order(reference)?.status ?? null;
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
    const headers = this.client.signedHeaders('status', 'GET', url, '');
    try {
      headers.authorization = `Bearer ${await this.accessToken()}`;
    } catch (error) {
      return { httpStatus: null, body: null, retryAfterS: null, error: `token: ${(error as Error).message}` };
    }
    return this.send('GET', url, headers);
  }

  /** The Bank's published verification keys. */
  async fetchJwks(): Promise<Jwks> {
    const url = this.config.bankJwksUrl;
    const answer = await this.client.send('GET', url, {});
    if (answer.status === null) throw new Error(answer.error ?? `${url} did not answer`);
    if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
    const jwks = parseJson(answer.body) as Jwks | null;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`${url} is not a JWKS`);
    return jwks;
  }

  close(): void {
    this.client.close();
  }
}
