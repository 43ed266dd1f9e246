// The signed HTTP client each side calls the other with (profile sections 1, 2 and 4): one keep-alive agent per
// scheme (the https one presents the mTLS client certificate and trusts the given CA), every request signed
// with a detached JWS over the signature base with a fresh X-Timestamp and X-Nonce, and an OAuth
// client_credentials token cached until shortly before it expires. Answers are never thrown: a request that
// got no HTTP answer comes back with status null and the network error.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { AxiosInstance } from 'axios';
import { Clock } from './clock';
import { httpRequest, HttpRequestError, requestTarget, TCP_KEEP_ALIVE_MS } from './http-request';
import { parseJsonText } from './json-text';
import { signDetached } from './jws';
import { SigningKey } from './keys';
import { newNonce } from './random-ids';
import { formatInstantSeconds } from './rfc3339';
import { contentDigest, SignedFlow, signatureBase } from './signature-base';

/** PEM material: `ca` verifies the server, `cert` and `key` are the client certificate (mTLS). */
export interface TlsMaterial {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface SignedClientOptions {
  /** X-Client-Id of every signed request. */
  clientId: string;
  signer: SigningKey;
  clock: Clock;
  timeoutMs: number;
  /** Sockets per origin (default: node's, unlimited). */
  maxSockets?: number;
  tls?: TlsMaterial;
  /** Told of every request sent and what came back (the Bank's journal); never fails a call. */
  onExchange?: (exchange: SentExchange) => void;
  /**
   * A limit on the whole exchange, answer body included (`timeoutMs` is an idle limit: a peer that trickles
   * its body byte by byte never reaches it). Off by default.
   */
  deadlineMs?: number;
  /** Answers with a larger body end as an error instead (default: unlimited). */
  maxResponseBytes?: number;
}

export interface SigningOverrides {
  timestampMs?: number;
  nonce?: string;
  signer?: SigningKey;
}

export interface SignedRequest {
  headers: Record<string, string>;
  /** The signature base X-Signature signs. */
  base: string;
}

/** One request as sent (headers as given, before the HTTP library adds its own) and its answer. */
export interface SentExchange {
  method: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body?: Buffer | string;
  answer: HttpAnswer;
  /** The faults a test profile injected into this request (the Bank's fault profiles), for the observer to mark. */
  fault?: string;
}

export interface HttpAnswer {
  /** null when no HTTP answer came back (network error, timeout). */
  status: number | null;
  headers: Readonly<Record<string, unknown>>;
  /** The body as text, exactly as received ('' when none). */
  body: string;
  latencyMs: number;
  error: string | null;
}

const parsedAnswers = new WeakMap<HttpAnswer, unknown>();

/**
 * The answer's body as JSON (null when it is not JSON), parsed once for every reader of the same answer: a
 * pull page (~400 KB) is read by the poller and again by the journal for its order references.
 */
export function answerJson(answer: HttpAnswer): unknown {
  if (!parsedAnswers.has(answer)) parsedAnswers.set(answer, parseJson(answer.body));
  return parsedAnswers.get(answer);
}

/**
 * Whether axios would route a request to this protocol through a proxy (proxy-from-env: <protocol>_proxy or
 * all_proxy, in either case). Such requests, and any not to http: or https:, still go through axios, which knows
 * how; the others through httpRequest, which sends exactly what axios sent (issue 15: at a fraction of its cost).
 */
function proxyConfigured(protocol: string): boolean {
  const env = (name: string) => process.env[name.toLowerCase()] || process.env[name.toUpperCase()];
  return Boolean(env(`${protocol.replace(/:$/, '')}_proxy`) || env('all_proxy'));
}

/** axios is loaded on the first call through a proxy: ~60 ms of startup that a side which never needs it skips. */
let axiosModule: typeof import('axios').default | null = null;
function loadAxios(): typeof import('axios').default {
  axiosModule ??= (require('axios') as typeof import('axios')).default;
  return axiosModule;
}

export class SignedClient {
  private instance: AxiosInstance | null = null;
  private agents: { http: http.Agent; https: https.Agent } | null = null;
  /** proxyConfigured per protocol, read once: the environment is a slow lookup for every request. */
  private readonly proxied = new Map<string, boolean>();

  constructor(private readonly options: SignedClientOptions) {}

  /**
   * One keep-alive agent per scheme, shared by both paths: the https one presents the client certificate. The
   * PEMs go in as one secure context, not as ca/cert/key options: node's https agent would otherwise build every
   * request's pool key from their text (kilobytes hashed per request) and parse them again for every socket.
   */
  private keepAliveAgents(): { http: http.Agent; https: https.Agent } {
    if (this.agents) return this.agents;
    const { maxSockets } = this.options;
    const sockets = maxSockets === undefined ? {} : { maxSockets };
    // TCP keep-alive after 60 s idle, as axios set it for each request; node's agent sets its own (1 s by default)
    // each time a socket goes back to the pool, so the pool is given the same and httpRequest sets it once a socket.
    const keepAlive = { keepAlive: true, keepAliveMsecs: TCP_KEEP_ALIVE_MS };
    this.agents = {
      http: new http.Agent({ ...keepAlive, ...sockets }),
      https: new https.Agent({ ...keepAlive, ...sockets, ...this.secureOptions() }),
    };
    return this.agents;
  }

  /** The TLS material as a secure context; material node cannot read goes in as it is, to fail each https request. */
  private secureOptions(): https.AgentOptions {
    const material = this.options.tls;
    const pems = { ca: material?.ca, cert: material?.cert, key: material?.key };
    if (Object.values(pems).every((pem) => pem === undefined)) return {};
    try {
      return { secureContext: tls.createSecureContext(pems) };
    } catch {
      return pems;
    }
  }

  private agentFor(url: URL): http.Agent {
    const agents = this.keepAliveAgents();
    return url.protocol === 'https:' ? agents.https : agents.http;
  }

  /** No redirects, the body as text, every status an answer (the caller decides what it means). */
  private get http(): AxiosInstance {
    const agents = this.keepAliveAgents();
    this.instance ??= loadAxios().create({
      timeout: this.options.timeoutMs,
      maxRedirects: 0,
      responseType: 'text',
      transformResponse: (data: unknown) => data,
      validateStatus: () => true,
      httpAgent: agents.http,
      httpsAgent: agents.https,
    });
    return this.instance;
  }

  /**
   * The security headers of one request: X-Client-Id, a fresh X-Timestamp and X-Nonce, then `extra` (the
   * flow's X-Request-Id and X-Idempotency-Key), Content-Digest when there is a body, then X-Signature over the
   * signature base of all of them.
   */
  signedHeaders(flow: SignedFlow, method: string, url: URL, body: Buffer | string, extra: Record<string, string> = {}): Record<string, string> {
    return this.signRequest(flow, method, url, body, extra).headers;
  }

  /**
   * signedHeaders, with the signature base it signed. `overrides` set what is otherwise fresh or the client's
   * own (a conformance run signs with a stale timestamp, a reused nonce or another key on purpose).
   */
  signRequest(flow: SignedFlow, method: string, url: URL, body: Buffer | string, extra: Record<string, string> = {}, overrides: SigningOverrides = {}): SignedRequest {
    const headers: Record<string, string> = {
      'x-client-id': this.options.clientId,
      'x-timestamp': formatInstantSeconds(overrides.timestampMs ?? this.options.clock.now()),
      'x-nonce': overrides.nonce ?? newNonce(),
      ...extra,
    };
    const digest = contentDigest(body);
    // Profile v1.1 section 1: a request with a body also carries RFC 9530 Content-Digest, for standard libraries.
    if (body.length > 0) headers['content-digest'] = digest;
    const base = signatureBase(flow, { method, target: requestTarget(url), headers, body, digest });
    const signer = overrides.signer ?? this.options.signer;
    headers['x-signature'] = signDetached(base, signer.privateKey, { alg: signer.alg, kid: signer.kid, typ: 'JOSE' });
    return { headers, base };
  }

  /** Sends one request; never throws for a network error or any HTTP status. `fault` is passed to the observer. */
  async send(method: 'GET' | 'POST', url: URL | string, headers: Record<string, string>, body?: Buffer | string, fault?: string): Promise<HttpAnswer> {
    const answer = await this.request(method, url, headers, body);
    if (this.options.onExchange) {
      try {
        this.options.onExchange({ method, url: url.toString(), headers, body, answer, ...(fault ? { fault } : {}) });
      } catch {
        // an observer never changes what the call got
      }
    }
    return answer;
  }

  private async request(method: 'GET' | 'POST', url: URL | string, headers: Record<string, string>, body?: Buffer | string): Promise<HttpAnswer> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const { deadlineMs, maxResponseBytes } = this.options;
    const deadline = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
    try {
      const target = typeof url === 'string' ? new URL(url) : url;
      if (!/^https?:$/.test(target.protocol) || this.throughProxy(target.protocol)) return await this.requestThroughAxios(method, url, headers, body, deadline, started);
      const response = await httpRequest({
        method, url: target, headers, body, agent: this.agentFor(target), timeoutMs: this.options.timeoutMs, maxResponseBytes, signal: deadline,
      });
      return { status: response.status, headers: response.headers, body: response.body, latencyMs: latency(), error: null };
    } catch (error) {
      const message = error instanceof HttpRequestError ? `${error.code ?? 'ERROR'}: ${error.message}` : String(error);
      return { status: null, headers: {}, body: '', latencyMs: latency(), error: this.deadlineMessage(deadline) ?? message };
    }
  }

  private throughProxy(protocol: string): boolean {
    let proxied = this.proxied.get(protocol);
    if (proxied === undefined) this.proxied.set(protocol, (proxied = proxyConfigured(protocol)));
    return proxied;
  }

  /** The request through a proxy, by axios. */
  private async requestThroughAxios(method: 'GET' | 'POST', url: URL | string, headers: Record<string, string>, body: Buffer | string | undefined, deadline: AbortSignal | undefined, started: number): Promise<HttpAnswer> {
    const latency = () => Math.round(performance.now() - started);
    const { maxResponseBytes } = this.options;
    try {
      const limits = {
        ...(deadline === undefined ? {} : { signal: deadline }),
        ...(maxResponseBytes === undefined ? {} : { maxContentLength: maxResponseBytes }),
      };
      const response = await this.http.request<string>({ method, url: url.toString(), headers, data: body, ...limits });
      return { status: response.status, headers: response.headers, body: String(response.data ?? ''), latencyMs: latency(), error: null };
    } catch (error) {
      const message = loadAxios().isAxiosError(error) ? `${error.code ?? 'ERROR'}: ${error.message}` : String(error);
      return { status: null, headers: {}, body: '', latencyMs: latency(), error: this.deadlineMessage(deadline) ?? message };
    }
  }

  /** A request stopped by the deadline's signal is reported only as "canceled": say what happened. */
  private deadlineMessage(deadline: AbortSignal | undefined): string | null {
    return deadline?.aborted === true ? `ETIMEDOUT: timeout, no complete answer within ${this.options.deadlineMs} ms` : null;
  }

  /** Closes the keep-alive sockets. */
  close(): void {
    if (!this.agents) return;
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

export interface ClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/** OAuth client_credentials with client_secret_basic, the token reused until `refreshMarginMs` before expiry. */
export class TokenCache {
  private cached: { value: string; expiresAt: number } | null = null;

  constructor(
    private readonly client: SignedClient,
    private readonly credentials: ClientCredentials,
    private readonly clock: Clock,
    private readonly refreshMarginMs: number,
  ) {}

  /** A valid access token; throws an Error saying why none could be had. */
  async token(): Promise<string> {
    const now = this.clock.now();
    if (this.cached && this.cached.expiresAt - this.refreshMarginMs > now) return this.cached.value;
    const { tokenUrl, clientId, clientSecret } = this.credentials;
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
    const answer = await this.client.send('POST', tokenUrl, { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` }, 'grant_type=client_credentials');
    if (answer.status === null) throw new Error(`token request to ${tokenUrl} failed: ${answer.error}`);
    if (answer.status !== 200) throw new Error(`token request to ${tokenUrl} answered ${answer.status}${oauthErrorText(answer.body)}`);
    const parsed = parseJson(answer.body) as { access_token?: string; expires_in?: number } | null;
    if (!parsed?.access_token) throw new Error(`token response from ${tokenUrl} has no access_token`);
    this.cached = { value: parsed.access_token, expiresAt: now + (parsed.expires_in ?? 300) * 1000 };
    return parsed.access_token;
  }

  /** Forgets the token (the other side answered 401: it no longer accepts it). */
  clear(): void {
    this.cached = null;
  }
}

/** Longest error_description quoted from a token server: enough to say why, never a page of its HTML. */
const TOKEN_ERROR_TEXT_MAX = 200;

/**
 * What an RFC 6749 §5.2 error answer says (`: invalid_client (unknown client or wrong client secret)`), or ''
 * for any other body: the operator must see why the token was refused, not only the status.
 */
function oauthErrorText(body: string): string {
  const parsed = parseJson(body) as { error?: unknown; error_description?: unknown } | null;
  if (typeof parsed?.error !== 'string') return '';
  const description = typeof parsed.error_description === 'string' ? ` (${parsed.error_description.slice(0, TOKEN_ERROR_TEXT_MAX)})` : '';
  return `: ${parsed.error.slice(0, TOKEN_ERROR_TEXT_MAX)}${description}`;
}

/** The answer's JSON, or null for one that is not JSON (treated as empty). */
function parseJson(text: string): unknown {
  return parseJsonText(text) ?? null;
}
