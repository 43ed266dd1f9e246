// The Bank's HTTP client toward one Connector: signed per the profile, one keep-alive agent, Bearer token.
// The signing, the agents and the token cache are the exchange's own (wire/signed-client).
import { randomUUID } from 'node:crypto';
import { Clock } from '../../wire/clock';
import { SigningKey } from '../../wire/keys';
import { SentExchange, SignedClient, TokenCache } from '../../wire/signed-client';
import { SignedFlow } from '../../wire/signature-base';
import { ConnectorSettings } from './connectors';

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

export class ConnectorClient {
  private readonly client: SignedClient;
  private readonly tokens: TokenCache | null;

  constructor(
    readonly settings: ConnectorSettings,
    identity: OutboundIdentity,
    timeoutMs: number,
    maxSockets: number,
  ) {
    const onExchange = identity.journal?.outgoingRecorder(settings.clientId);
    this.client = new SignedClient({ clientId: identity.bankClientId, signer: identity.signer, clock: identity.clock, timeoutMs, maxSockets, tls: settings.tls, onExchange });
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

  async pull(status: string, limit: number, offset: string): Promise<ConnectorResponse> {
    const url = new URL(`${this.settings.baseUrl}/payment-orders`);
    url.search = new URLSearchParams({ status, limit: String(limit), offset }).toString();
    const headers = this.signedHeaders('pull', 'GET', url, Buffer.alloc(0), `pull-${randomUUID()}`, randomUUID());
    const token = await this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    return this.send('GET', url, headers);
  }

  async postCallback(target: string, idempotencyKey: string, body: Buffer): Promise<ConnectorResponse> {
    const url = new URL(target);
    return this.send('POST', url, this.signedHeaders('callback', 'POST', url, body, idempotencyKey), body);
  }

  private async send(method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body?: Buffer): Promise<ConnectorResponse> {
    const { status, body: text, latencyMs, error } = await this.client.send(method, url, headers, body);
    return { status, body: text, latencyMs, error };
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
}
