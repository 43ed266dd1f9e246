// The Bank's HTTP client toward one Connector: signed per the profile, one keep-alive agent, Bearer token.
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { newNonce } from '../../wire/random-ids';
import type { AxiosInstance } from 'axios';
import { Clock } from '../../wire/clock';
import { signDetached } from '../../wire/jws';
import { SigningKey } from '../../wire/keys';
import { SignedFlow, signatureBase } from '../../wire/signature-base';
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
}

const TOKEN_REFRESH_MARGIN_MS = 30_000;

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** axios is loaded on the first outgoing call: it is ~60 ms of startup that a Bank nobody pulls for never needs. */
let axiosModule: typeof import('axios').default | null = null;
function loadAxios(): typeof import('axios').default {
  axiosModule ??= (require('axios') as typeof import('axios')).default;
  return axiosModule;
}

export class ConnectorClient {
  private instance: AxiosInstance | null = null;
  private cachedToken: { value: string; expiresAt: number } | null = null;

  constructor(
    readonly settings: ConnectorSettings,
    private readonly identity: OutboundIdentity,
    private readonly timeoutMs: number,
    private readonly maxSockets: number,
  ) {}

  private get http(): AxiosInstance {
    this.instance ??= loadAxios().create({
      timeout: this.timeoutMs,
      maxRedirects: 0,
      responseType: 'text',
      transformResponse: (data: unknown) => data,
      validateStatus: () => true,
      httpAgent: new http.Agent({ keepAlive: true, maxSockets: this.maxSockets }),
      httpsAgent: new https.Agent({ keepAlive: true, maxSockets: this.maxSockets, ...this.settings.tls }),
    });
    return this.instance;
  }

  /** Signed headers for one request; a fresh timestamp and nonce each time. */
  signedHeaders(flow: SignedFlow, method: string, url: URL, body: Buffer, idempotencyKey: string, requestId?: string): Record<string, string> {
    const headers: Record<string, string> = {
      'x-client-id': this.identity.bankClientId,
      'x-timestamp': isoSeconds(this.identity.clock.now()),
      'x-nonce': newNonce(),
      'x-idempotency-key': idempotencyKey,
    };
    if (requestId) headers['x-request-id'] = requestId;
    const base = signatureBase(flow, { method, target: url.pathname + url.search, headers, body });
    const { signer } = this.identity;
    headers['x-signature'] = signDetached(base, signer.privateKey, { alg: signer.alg, kid: signer.kid, typ: 'JOSE' });
    headers['content-type'] = 'application/json';
    return headers;
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
    const started = performance.now();
    try {
      const response = await this.http.request<string>({ method, url: url.toString(), headers, data: body });
      return { status: response.status, body: String(response.data ?? ''), latencyMs: Math.round(performance.now() - started), error: null };
    } catch (error) {
      const message = loadAxios().isAxiosError(error) ? `${error.code ?? 'ERROR'}: ${error.message}` : String(error);
      return { status: null, body: '', latencyMs: Math.round(performance.now() - started), error: message };
    }
  }

  /** Static token, or client_credentials at the Connector's token URL, cached until shortly before expiry. */
  private async token(): Promise<string | null> {
    const { settings } = this;
    if (settings.staticToken) return settings.staticToken;
    if (!settings.tokenUrl) return null;
    const now = this.identity.clock.now();
    if (this.cachedToken && this.cachedToken.expiresAt - TOKEN_REFRESH_MARGIN_MS > now) return this.cachedToken.value;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    const basic = Buffer.from(`${encodeURIComponent(settings.tokenClientId ?? '')}:${encodeURIComponent(settings.tokenClientSecret ?? '')}`).toString('base64');
    const response = await this.http.post<string>(settings.tokenUrl, form.toString(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    });
    if (response.status !== 200) throw new Error(`token request to ${settings.tokenUrl} answered ${response.status}`);
    const parsed = JSON.parse(response.data) as { access_token?: string; expires_in?: number };
    if (!parsed.access_token) throw new Error(`token response from ${settings.tokenUrl} has no access_token`);
    this.cachedToken = { value: parsed.access_token, expiresAt: now + (parsed.expires_in ?? 300) * 1000 };
    return parsed.access_token;
  }

  close(): void {
    if (!this.instance) return;
    (this.instance.defaults.httpAgent as http.Agent).destroy();
    (this.instance.defaults.httpsAgent as https.Agent).destroy();
  }
}
