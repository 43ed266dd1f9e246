// The Bank's HTTP client toward one Connector: signed per the profile, one keep-alive agent, Bearer token.
// The signing, the agents and the token cache are the exchange's own (wire/signed-client).
import { randomUUID } from 'node:crypto';
import { cachedLast } from '../../wire/cached-last';
import { Clock } from '../../wire/clock';
import { SigningKey } from '../../wire/keys';
import { HttpAnswer, SentExchange, SignedClient, TokenCache } from '../../wire/signed-client';
import { SignedFlow } from '../../wire/signature-base';
import { AttemptFaults, CLEAN_ATTEMPT, corruptedSignature, faultMark } from '../domain/faults';
import { ConnectorSettings } from './connectors';

/** What a callback attempt got: the signed client's answer (HttpAnswer) is one. */
export interface ConnectorResponse {
  status: number | null;
  body: string;
  latencyMs: number;
  error: string | null;
}

export interface OutboundIdentity {
  bankClientId: string;
  signer: SigningKey;
  clock: Clock;
  /** The journal: gives each Connector's client the observer that records its calls (pull, callback, token). */
  journal?: { outgoingRecorder(clientId: string): (exchange: SentExchange) => void };
}

const TOKEN_REFRESH_MARGIN_MS = 30_000;
/** A pull page of 1,000 orders is about 1 MB; nothing the contract sends comes near this. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The error of a callback attempt that a fault profile dropped (conformance.md section 4). */
export const DROPPED_BY_FAULT_PROFILE = 'dropped by fault profile';

export class ConnectorClient {
  private readonly client: SignedClient;
  private readonly tokens: TokenCache | null;
  /** The journal's observer, also told of the requests a fault profile dropped (never sent). */
  private readonly recordExchange?: (exchange: SentExchange) => void;
  /** Every unit callback (and every batch) of a Connector goes to one URL: parsed once, read only from then on. */
  private readonly callbackUrl = cachedLast((target) => new URL(target));
  /** Requests under way, and whether the client was replaced or removed: its sockets close once those end. */
  private sending = 0;
  private retired = false;

  constructor(
    readonly settings: ConnectorSettings,
    identity: OutboundIdentity,
    timeoutMs: number,
    maxSockets: number,
  ) {
    const onExchange = identity.journal?.outgoingRecorder(settings.clientId);
    this.recordExchange = onExchange;
    // An answer beyond the limit is an error instead of the Bank's memory. The time-out is axios's (no answer head
    // within it, or an answer body idle that long), not a whole-exchange deadline: an answer still coming is read
    // to its end, and a trickling Connector only holds its own sockets (docs/outbound.md).
    this.client = new SignedClient({ clientId: identity.bankClientId, signer: identity.signer, clock: identity.clock, timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES, maxSockets, tls: settings.tls, onExchange });
    this.tokens = settings.tokenUrl
      ? new TokenCache(this.client, { tokenUrl: settings.tokenUrl, clientId: settings.tokenClientId ?? '', clientSecret: settings.tokenClientSecret ?? '' }, identity.clock, TOKEN_REFRESH_MARGIN_MS)
      : null;
  }

  /** Signed headers for one request; a fresh timestamp and nonce each time. */
  signedHeaders(flow: SignedFlow, method: string, url: URL, body: Buffer, idempotencyKey: string, requestId?: string): Record<string, string> {
    const extra: Record<string, string> = { 'x-idempotency-key': idempotencyKey };
    if (requestId) extra['x-request-id'] = requestId;
    return { ...this.client.signedHeaders(flow, method, url, body, extra), 'content-type': 'application/json' };
  }

  /**
   * A pull; `faults` (a fault profile's) may corrupt its signature or send it twice. The answer is the one the
   * journal was given, so the poller and the journal share one parse of the page (answerJson).
   */
  async pull(status: string, limit: number, offset: string, faults: AttemptFaults = CLEAN_ATTEMPT): Promise<HttpAnswer> {
    const url = new URL(`${this.settings.baseUrl}/payment-orders`);
    url.search = new URLSearchParams({ status, limit: String(limit), offset }).toString();
    const idempotencyKey = `pull-${randomUUID()}`;
    const requestId = randomUUID();
    const token = await this.token();
    const sign = () => {
      const headers = this.signedHeaders('pull', 'GET', url, Buffer.alloc(0), idempotencyKey, requestId);
      if (token) headers.authorization = `Bearer ${token}`;
      return headers;
    };
    return this.sendWithFaults('GET', url, sign, undefined, faults);
  }

  /** One callback attempt; `faults` (a fault profile's) may drop it, corrupt its signature or send it twice. */
  async postCallback(target: string, idempotencyKey: string, body: Buffer, faults: AttemptFaults = CLEAN_ATTEMPT): Promise<ConnectorResponse> {
    const url = this.callbackUrl(target);
    const sign = () => this.signedHeaders('callback', 'POST', url, body, idempotencyKey);
    if (faults.drop) return this.dropped('POST', url, sign(), body, faults);
    return this.sendWithFaults('POST', url, sign, body, faults);
  }

  /**
   * Sends a request signed by `sign` (its signature corrupted for bad_signature), then, for duplicate, the same
   * request again with a fresh timestamp and nonce (a byte-identical copy would only meet the replay check).
   * The first answer is the attempt's; each exchange is marked with its faults in the journal.
   */
  private async sendWithFaults(method: 'GET' | 'POST', url: URL, sign: () => Record<string, string>, body: Buffer | undefined, faults: AttemptFaults): Promise<HttpAnswer> {
    const headers = () => {
      const signed = sign();
      if (faults.badSignature) signed['x-signature'] = corruptedSignature(signed['x-signature']);
      return signed;
    };
    const first = await this.send(method, url, headers(), body, faultMark(faults.marks));
    if (faults.duplicate) await this.send(method, url, headers(), body, faultMark([...faults.marks, 'duplicate']));
    return first;
  }

  /** A dropped request is never sent: the journal shows what would have gone, with no answer. */
  private dropped(method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body: Buffer, faults: AttemptFaults): HttpAnswer {
    const answer = { status: null, headers: {}, body: '', latencyMs: 0, error: DROPPED_BY_FAULT_PROFILE };
    try {
      this.recordExchange?.({ method, url: url.toString(), headers, body, answer, fault: faultMark(faults.marks) });
    } catch {
      // the journal never changes what the attempt got
    }
    return answer;
  }

  private async send(method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body?: Buffer, fault?: string): Promise<HttpAnswer> {
    this.sending += 1;
    try {
      return await this.client.send(method, url, headers, body, fault);
    } finally {
      this.sending -= 1;
      if (this.retired && this.sending === 0) this.client.close();
    }
  }

  /** The token the pull carries (a conformance run sends its own pulls with it). */
  pullToken(): Promise<string | null> {
    return this.token();
  }

  /** Static token, or client_credentials at the Connector's token URL (cached), or none. */
  private async token(): Promise<string | null> {
    if (this.settings.staticToken) return this.settings.staticToken;
    return this.tokens ? this.tokens.token() : null;
  }

  close(): void {
    this.client.close();
  }

  /**
   * Closes once the requests under way have answered (the client was patched or deleted): a callback in flight
   * is neither cut nor recorded as a failure it was not.
   */
  retire(): void {
    this.retired = true;
    if (this.sending === 0) this.client.close();
  }
}
