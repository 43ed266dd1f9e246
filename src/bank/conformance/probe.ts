// How a conformance run talks to the Connector: the Bank's own signer and signed client (so what is tested is what
// ships), with the misbehaviour of a case applied at the very last step, on the request as it would have left.
// Every exchange is journaled like any other call and recorded, masked, for the reports. Each exchange has a
// deadline and an answer size limit, so a Connector that hangs, trickles or floods fails its case, never the run.
import { randomUUID } from 'node:crypto';
import { Clock } from '../../wire/clock';
import { b64url } from '../../wire/base64url';
import { peekHeader } from '../../wire/jws';
import { SigningKey } from '../../wire/keys';
import { parseJsonText } from '../../wire/json-text';
import { formatInstant } from '../../wire/rfc3339';
import { HttpAnswer, SentExchange, SignedClient, SigningOverrides, TlsMaterial } from '../../wire/signed-client';
import { contentDigest, SignedFlow } from '../../wire/signature-base';
import { BodyRecord, bodyText, curlCommand, cut, Masker } from '../application/journal-format';
import { RecordedExchange } from './model';
import type { ObservedRequest } from './case';

/** What a run needs to know of the client's Connector. */
export interface ProbeTarget {
  clientId: string;
  baseUrl: string;
  tls: TlsMaterial;
  /** The pull's Bearer token (static or fetched), or null when the Connector takes none. */
  token(): Promise<string | null>;
}

export interface ProbeSettings {
  bankClientId: string;
  signer: SigningKey;
  clock: Clock;
  /** Limit on one whole exchange. */
  deadlineMs: number;
  maxResponseBytes: number;
  /** Bytes of each body kept in the reports. */
  reportBodyLimit: number;
  /** Journals an outgoing exchange; answers its id. */
  journal(clientId: string, exchange: SentExchange): number | null;
}

/** A request ready to leave: what the Bank would send, before or after a misbehaviour. */
export interface Prepared {
  flow: SignedFlow;
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
  /** The base that was signed. */
  base: string;
}

export interface Answer {
  status: number | null;
  headers: Readonly<Record<string, unknown>>;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
  error: string | null;
  /** When the answer was complete (ms). */
  at: number;
}

export interface SignOptions extends SigningOverrides {
  /** Headers of the flow left out before signing (their base lines are empty). */
  omit?: readonly string[];
}

/**
 * Names what went wrong with an exchange that has no complete answer, from the HTTP client's error (kept after
 * it): the run's own deadline cancels the request (axios says only "canceled"), the body limit, a reset.
 */
export function explainFailure(error: string, limits: { deadlineMs: number; maxResponseBytes: number }): string {
  if (/ERR_CANCELED|ECONNABORTED|ETIMEDOUT|ABORT_ERR|TimeoutError/.test(error)) return `time-out: no complete answer within the ${limits.deadlineMs} ms deadline of an exchange (${error})`;
  if (/maxContentLength|body limit/.test(error)) return `body limit: the answer is larger than the ${limits.maxResponseBytes} bytes a run reads (${error})`;
  if (/ECONNRESET|socket hang up|EPIPE/.test(error)) return `connection reset: the Connector closed the connection without a complete answer (${error})`;
  if (/ECONNREFUSED/.test(error)) return `connection refused: nothing accepts connections at the Connector's address (${error})`;
  if (/HPE_/.test(error)) return `not HTTP: the answer could not be parsed as an HTTP response (${error})`;
  return error;
}

/**
 * A failure on the Connector's side that keeps a request from being sent at all (its token endpoint): a case
 * that meets it FAILED, a run that cannot pull at all is aborted with it; never reported as an error of the Bank's.
 */
export class ConnectorFault extends Error {
  override name = 'ConnectorFault';
}

/** What every probe of one run shares: how many requests went out and how many got an answer. */
interface Reach {
  sent: number;
  answered: number;
  firstError: string | null;
}

export class ConnectorProbe {
  private readonly client: SignedClient;
  /** The exchanges of this probe (a case's own, since cases run side by side). */
  readonly recorded: RecordedExchange[] = [];
  private readonly reach: Reach;

  constructor(
    readonly target: ProbeTarget,
    private readonly settings: ProbeSettings,
    shared?: { client: SignedClient; reach: Reach },
  ) {
    const { bankClientId, signer, clock, deadlineMs, maxResponseBytes } = settings;
    this.client = shared?.client ?? new SignedClient({ clientId: bankClientId, signer, clock, timeoutMs: deadlineMs, deadlineMs, maxResponseBytes, tls: target.tls });
    this.reach = shared?.reach ?? { sent: 0, answered: 0, firstError: null };
  }

  /** A probe on the same connections that records its own exchanges (one per case). */
  fork(): ConnectorProbe {
    return new ConnectorProbe(this.target, this.settings, { client: this.client, reach: this.reach });
  }

  /** Requests sent by the run through the signed client, and how many got an HTTP answer (none: the Connector is down). */
  get sent(): number {
    return this.reach.sent;
  }

  get answered(): number {
    return this.reach.answered;
  }

  get firstError(): string | null {
    return this.reach.firstError;
  }

  /** The limit on one whole exchange. */
  get deadlineMs(): number {
    return this.settings.deadlineMs;
  }

  /** The limit on one answer's body. */
  get maxResponseBytes(): number {
    return this.settings.maxResponseBytes;
  }

  /** The answer with its network error, if any, in words that name the problem (reports, verdicts, the journal). */
  explained<T extends { error: string | null }>(answer: T): T {
    return answer.error === null ? answer : { ...answer, error: explainFailure(answer.error, this.settings) };
  }

  get now(): number {
    return this.settings.clock.now();
  }

  url(path: string, query?: Record<string, string>): URL {
    const url = new URL(`${this.target.baseUrl}${path}`);
    if (query) url.search = new URLSearchParams(query).toString();
    return url;
  }

  /** A pull as the Bank's poller sends it, signed, with the Connector's token. */
  async pull(query: Record<string, string>, options: SignOptions = {}): Promise<Prepared> {
    const prepared = this.sign('pull', 'GET', this.url('/payment-orders', query), Buffer.alloc(0), { 'x-request-id': randomUUID(), 'x-idempotency-key': `pull-${randomUUID()}` }, options);
    const token = await this.pullToken();
    if (token) prepared.headers.authorization = `Bearer ${token}`;
    return prepared;
  }

  /** The pull's token within the exchange deadline; a token endpoint that fails or stalls is the Connector's fault. */
  private async pullToken(): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`time-out: no token within the ${this.settings.deadlineMs} ms deadline of an exchange`)), this.settings.deadlineMs);
    });
    try {
      return await Promise.race([this.target.token(), deadline]);
    } catch (error) {
      throw new ConnectorFault(`the Connector's token endpoint gave no token for the pull: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A unit or batch callback as the dispatcher sends it. */
  callback(kind: 'unit' | 'batch', body: unknown, idempotencyKey: string, options: SignOptions = {}): Prepared {
    const path = kind === 'unit' ? '/callbacks/orders/status' : '/callbacks/orders/status/batch';
    const bytes = Buffer.from(JSON.stringify(body));
    const prepared = this.sign('callback', 'POST', this.url(path), bytes, { 'x-idempotency-key': idempotencyKey }, options);
    prepared.headers['content-type'] = 'application/json';
    return prepared;
  }

  private sign(flow: SignedFlow, method: 'GET' | 'POST', url: URL, body: Buffer, extra: Record<string, string>, options: SignOptions): Prepared {
    const kept = Object.fromEntries(Object.entries(extra).filter(([name]) => !options.omit?.includes(name)));
    const { headers, base } = this.client.signRequest(flow, method, url, body, kept, options);
    return { flow, method, url, headers, body, base };
  }

  /** Sends a prepared request and records the exchange under `label`; never throws. */
  async send(prepared: Prepared, label: string, misbehaviour: string | null = null): Promise<Answer> {
    const { method, url, headers, body } = prepared;
    const answer = this.explained(await this.client.send(method, url, headers, method === 'GET' ? undefined : body));
    this.reach.sent += 1;
    if (answer.status !== null) this.reach.answered += 1;
    else this.reach.firstError ??= answer.error;
    const exchange: SentExchange = { method, url: url.toString(), headers, body: method === 'GET' ? undefined : body, answer };
    const journalId = this.settings.journal(this.target.clientId, exchange);
    this.recorded.push(this.record(exchange, prepared.base, label, misbehaviour, journalId));
    return { status: answer.status, headers: answer.headers, body: answer.body, json: parseJsonText(answer.body), error: answer.error, at: this.now };
  }

  /** Records an exchange made outside the signed client (the transport cases' own TLS connections). */
  recordRaw(exchange: SentExchange, label: string, misbehaviour: string): void {
    this.recorded.push(this.record(exchange, null, label, misbehaviour, this.settings.journal(this.target.clientId, exchange)));
  }

  /** Records a request the Connector made to the Bank, as the journal kept it (client.* cases). */
  recordObserved(request: ObservedRequest, label: string): void {
    this.recorded.push({
      label,
      direction: 'in',
      at: formatInstant(request.at),
      method: request.method,
      url: request.url,
      request: { headers: request.headers, body: request.body ?? '', truncated: false },
      jwsHeader: request.headers['x-signature'] ? peekHeader(request.headers['x-signature']) : null,
      signatureBase: null,
      response: { status: request.status, headers: request.responseHeaders, body: request.responseBody ?? '', truncated: false },
      error: null,
      latencyMs: request.answeredAt - request.at,
      curl: request.curl,
      journalId: request.journalId,
      misbehaviour: null,
    });
  }

  close(): void {
    this.client.close();
  }

  private bodyRecord(masker: Masker, bytes: Buffer, contentType: string): BodyRecord {
    if (bytes.length === 0) return { body: null, size: 0, truncated: false };
    const text = bodyText(bytes);
    if (text === null) return { body: bytes.subarray(0, this.settings.reportBodyLimit).toString('base64'), body_encoding: 'base64', size: bytes.length, truncated: bytes.length > this.settings.reportBodyLimit };
    const { text: kept, truncated } = cut(masker.scrub(masker.body(text, contentType)), this.settings.reportBodyLimit);
    return { body: kept, size: bytes.length, truncated };
  }

  private record(exchange: SentExchange, base: string | null, label: string, misbehaviour: string | null, journalId: number | null): RecordedExchange {
    const masker = new Masker();
    const answer: HttpAnswer = exchange.answer;
    const requestHeaders = masker.headers(exchange.headers);
    const requestBody = this.bodyRecord(masker, Buffer.from(exchange.body ?? ''), exchange.headers['content-type'] ?? '');
    const responseHeaders = masker.headers(plain(answer.headers));
    const responseBody = this.bodyRecord(masker, Buffer.from(answer.body), String(responseHeaders['content-type'] ?? ''));
    const url = new URL(exchange.url);
    const signature = exchange.headers['x-signature'];
    return {
      label,
      direction: 'out',
      at: formatInstant(this.now - answer.latencyMs),
      method: exchange.method,
      url: exchange.url,
      request: { headers: masker.scrubHeaders(requestHeaders), body: requestBody.body ?? '', truncated: requestBody.truncated },
      jwsHeader: signature ? peekHeader(signature) : null,
      signatureBase: base,
      response: answer.status === null ? null : { status: answer.status, headers: masker.scrubHeaders(responseHeaders), body: responseBody.body ?? '', truncated: responseBody.truncated },
      error: answer.error,
      latencyMs: answer.latencyMs,
      curl: curlCommand({ direction: 'out', method: exchange.method, url: exchange.url, path: url.pathname, headers: requestHeaders, body: requestBody }),
      journalId,
      misbehaviour,
    };
  }
}

function plain(headers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const toJSON = (headers as { toJSON?: () => Record<string, unknown> }).toJSON;
  return typeof toJSON === 'function' ? toJSON.call(headers) : { ...headers };
}

// ---------------------------------------------------------------------------------------------------------------
// Misbehaviours: each takes the request as it would have left and changes one thing, after signing.

export function withHeader(prepared: Prepared, name: string, value: string): Prepared {
  return { ...prepared, headers: { ...prepared.headers, [name]: value } };
}

export function withoutHeader(prepared: Prepared, name: string): Prepared {
  const headers = { ...prepared.headers };
  delete headers[name];
  return { ...prepared, headers };
}

/**
 * The body changed after signing, with a Content-Digest (when the request carries one) of the changed body: the
 * request gets past a digest check, so that only the signature over the base can refuse it. (Left on the signed
 * body, the digest would let a Connector that never verifies the signature refuse it as a digest mismatch.)
 */
export function withBody(prepared: Prepared, body: unknown): Prepared {
  const bytes = Buffer.from(JSON.stringify(body));
  const headers = { ...prepared.headers };
  if (headers['content-digest'] !== undefined) headers['content-digest'] = contentDigest(bytes);
  return { ...prepared, headers, body: bytes };
}

/** An unsecured JWS (RFC 7515 appendix A.5 style): header alg none, empty signature part. */
export function withAlgNone(prepared: Prepared): Prepared {
  const header = b64url(Buffer.from(JSON.stringify({ alg: 'none', typ: 'JOSE' })));
  return withHeader(prepared, 'x-signature', `${header}..`);
}
