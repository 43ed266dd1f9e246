// The journal (control-plane.md section 4): every exchange on both listeners and every call the Bank makes, with
// secrets masked, bodies cut at JOURNAL_BODY_LIMIT, the problem code of a refusal and the order references
// involved. WireMock's request journal is the model; this one covers both directions.
//
// Cost: recording happens on the request path, so it only keeps references to what the exchange already holds
// (the raw body, the header objects, the response chunks) and queues them. Masking, serialising and the INSERTs
// run later, for everything queued in one transaction every few milliseconds (FLUSH_DELAY_MS, or at once past
// FLUSH_AT entries), and before every read, so a reader always sees every exchange that has finished. One
// transaction per batch instead of one per request is what keeps the journal cheap: a commit writes the table's
// and its indexes' pages once for the whole batch (measured: about 10% of the CPU time of a create, see
// docs/control-plane.md).
// Retention: the newest JOURNAL_MAX_ENTRIES, none older than JOURNAL_MAX_AGE_S, oldest first; by count in the
// batch's own transaction (once the excess reaches 1%, at most 100 entries), by age at most once a second and in
// the Bank's housekeeping.
import type { Logger } from 'winston';
import { cachedLast } from '../../wire/cached-last';
import { Clock, withinLast } from '../../wire/clock';
import { parseJsonText } from '../../wire/json-text';
import { formatInstant } from '../../wire/rfc3339';
import { answerJson, type HttpAnswer, type SentExchange } from '../../wire/signed-client';
import { JournalFilter, JournalInsert, JournalMention, JournalRepository, JournalRow, JournalSummaryRow } from '../store/journal';
import { BodyRecord, bodyText, curlCommand, cut, HeaderBag, Masker } from './journal-format';

export interface JournalSettings {
  enabled: boolean;
  /** Bytes of each body kept. */
  bodyLimit: number;
  maxEntries: number;
  maxAgeS: number;
  /** The highest id something else stored names (a refusal's event): never handed out again, even if its entry was lost. */
  idsNamedUpTo?: number;
}

/** One inbound exchange as the HTTP layer saw it (references only: nothing is copied on the request path). */
export interface InboundCapture {
  /** From reserveId(), taken when the request arrived. */
  id: number;
  at: number;
  method: string;
  /** scheme://host/path?query as the client addressed the Bank. */
  url: string;
  path: string;
  requestHeaders: Readonly<Record<string, unknown>>;
  requestBody: Buffer | null;
  /** The order references in the request body, when the handler already parsed it (else the body is parsed here). */
  bodyReferences?: readonly string[] | null;
  status: number;
  responseHeaders: Readonly<Record<string, unknown>>;
  /** The response bytes captured (up to a cap), and how many were sent in all. */
  responseChunks: readonly Buffer[];
  responseSize: number;
  latencyMs: number;
  code: string | null;
  /** The authenticated client, when the pipeline got that far. */
  clientId: string | null;
  requestId: string | null;
  /** The status path's orderId (percent-decoded), when this was a status poll. */
  orderId: string | null;
  /** Why the exchange has no complete answer (the client went away). */
  error: string | null;
  /** The faults a client's fault profile injected into the answer (status_429). */
  fault?: string | null;
}

/** The masked request and response of an entry, stored as JSON. */
export interface JournalDetail {
  request: { headers: HeaderBag } & BodyRecord;
  response: ({ headers: HeaderBag } & BodyRecord) | null;
  error: string | null;
  /** The faults a fault profile injected (conformance.md section 4), comma-separated; absent when none. */
  fault?: string;
}

/** Where an order's control-plane detail lists the exchanges that touched it. */
export interface OrderJournal {
  journalFor(clientId: string, reference: string): ReturnType<typeof mentionView>[];
}

export interface JournalQuery {
  clientId?: string;
  direction?: 'in' | 'out';
  code?: string;
  reference?: string;
  path?: string;
  since?: number;
  beforeId?: number | null;
}

/** How much of a response the HTTP layer captures: enough to mask a whole JSON body before cutting it. */
export const RESPONSE_CAPTURE_LIMIT = 1024 * 1024;
const MAX_REFERENCES = 1000;
const MENTIONS_LIMIT = 500;
const FLUSH_AT = 1000;
const FLUSH_DELAY_MS = 5;
const AGE_PRUNE_INTERVAL_MS = 1000;

/** An outgoing exchange waiting to be written; `answerReferences` are read when it is queued (see recordOutbound). */
type Pending =
  | { kind: 'in'; capture: InboundCapture }
  | { kind: 'out'; id: number; at: number; clientId: string | null; exchange: SentExchange; answerReferences: string[] };

export function summaryView(row: JournalSummaryRow) {
  return {
    id: row.id,
    at: formatInstant(row.at),
    direction: row.direction,
    client_id: row.clientId,
    method: row.method,
    path: row.path,
    url: row.url,
    status: row.status,
    code: row.code,
    latency_ms: row.latencyMs,
    request_id: row.requestId,
    references: row.references,
    fault: row.fault,
  };
}

export function mentionView(row: JournalMention) {
  return { id: row.id, at: formatInstant(row.at), direction: row.direction, method: row.method, path: row.path, status: row.status, code: row.code };
}

function headerText(headers: Readonly<Record<string, unknown>>, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? String(value[0] ?? '') : value === undefined || value === null ? '' : String(value);
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The `reference` members of a payment order, a status object, a batch callback or a pull page. */
function referencesIn(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  const found: string[] = [];
  if (typeof object.reference === 'string') found.push(object.reference);
  for (const list of [object.orders, object.content]) {
    if (Array.isArray(list)) for (const item of list) if (item && typeof (item as { reference?: unknown }).reference === 'string') found.push((item as { reference: string }).reference);
  }
  return found;
}

/** The client an inbound request speaks for, when the pipeline did not authenticate one: what it claims. */
function claimedClient(capture: InboundCapture): string | null {
  const header = headerText(capture.requestHeaders, 'x-client-id');
  if (header) return header;
  if (capture.path === '/oauth/token') {
    const authorization = headerText(capture.requestHeaders, 'authorization');
    if (/^basic /i.test(authorization)) {
      const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) return safeDecode(decoded.slice(0, colon));
    }
    const form = capture.requestBody ? new URLSearchParams(capture.requestBody.toString('utf8')).get('client_id') : null;
    if (form) return form;
  }
  return null;
}

/** /sandbox/orders/{client}/{reference}[/…] and /sandbox/clients/{client}[/…]: the client and order addressed. */
function sandboxTarget(path: string): { clientId: string | null; reference: string | null } {
  const order = /^\/sandbox\/orders\/([^/]+)\/([^/]+)/.exec(path);
  if (order) return { clientId: safeDecode(order[1]), reference: safeDecode(order[2]) };
  const client = /^\/sandbox\/clients\/([^/]+)/.exec(path);
  if (client) return { clientId: safeDecode(client[1]), reference: null };
  return { clientId: null, reference: null };
}

function plainHeaders(headers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const toJSON = (headers as { toJSON?: () => Record<string, unknown> }).toJSON;
  return typeof toJSON === 'function' ? toJSON.call(headers) : headers;
}

export class Journal implements OrderJournal {
  readonly enabled: boolean;
  private nextId: number;
  private pending: Pending[] = [];
  private scheduled = false;
  private closed = false;
  private prunedUpTo = 0;
  private lastAgePrune = 0;
  private readonly pruneSlack: number;
  private timer: NodeJS.Timeout | null = null;
  /** The path of an outgoing URL, null when it cannot be parsed; callbacks share one URL, so the last is kept. */
  private readonly outgoingPath = cachedLast((url) => {
    try {
      return new URL(url).pathname;
    } catch {
      return null;
    }
  });

  constructor(
    private readonly repo: JournalRepository,
    private readonly clock: Clock,
    private readonly settings: JournalSettings,
    private readonly logger: Logger | null = null,
  ) {
    this.enabled = settings.enabled;
    this.nextId = Math.max(repo.lastId(), settings.idsNamedUpTo ?? 0) + 1;
    this.pruneSlack = Math.max(1, Math.min(100, Math.ceil(settings.maxEntries / 100)));
  }

  /** An id for an exchange that starts now (so a refusal can name its journal entry before it is written). */
  reserveId(): number {
    const id = this.nextId;
    this.nextId += 1;
    return id;
  }

  recordInbound(capture: InboundCapture): void {
    if (!this.enabled || this.closed) return;
    this.pending.push({ kind: 'in', capture });
    this.queued();
  }

  /** The observer a SignedClient calls after each request (pull, callback, token fetch), for one client's Connector. */
  outgoingRecorder(clientId: string | null): (exchange: SentExchange) => void {
    return (exchange) => {
      this.recordOutbound(clientId, exchange);
    };
  }

  /**
   * Queues one outgoing exchange; answers its journal id (null with the journal off). The answer's references are
   * read now, from the parse the caller will use too (answerJson): a pulled page is stored, and let go order by
   * order (PulledOrders.storePage), before this entry is written.
   */
  recordOutbound(clientId: string | null, exchange: SentExchange): number | null {
    if (!this.enabled || this.closed) return null;
    const at = this.clock.now() - exchange.answer.latencyMs;
    const id = this.reserveId();
    const { answer } = exchange;
    const answerReferences = answer.status === 200 && answer.body.startsWith('{') ? referencesIn(answerJson(answer)) : [];
    this.pending.push({ kind: 'out', id, at, clientId, exchange, answerReferences });
    this.queued();
    return id;
  }

  /** Writes what is queued and prunes by count, in one transaction; by age at most once a second. */
  flush(): void {
    this.scheduled = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const rows: JournalInsert[] = [];
    for (const item of batch) {
      try {
        rows.push(item.kind === 'in' ? this.inboundRow(item.capture) : this.outboundRow(item));
      } catch (error) {
        this.logger?.warn('journal entry dropped', { error: (error as Error).message });
      }
    }
    try {
      const keepFrom = this.nextId - 1 - this.settings.maxEntries;
      const pruneUpTo = keepFrom - this.prunedUpTo >= this.pruneSlack ? keepFrom : null;
      this.repo.insertMany(rows, pruneUpTo);
      if (pruneUpTo !== null) this.prunedUpTo = pruneUpTo;
      if (!withinLast(AGE_PRUNE_INTERVAL_MS, this.lastAgePrune, this.clock.now())) this.pruneByAge();
    } catch (error) {
      this.logger?.warn('journal batch not written', { entries: rows.length, error: (error as Error).message });
    }
  }

  /** Housekeeping: flushes, then drops entries over the count or past the age limit; returns how many. */
  prune(): number {
    this.flush();
    return this.pruneByCount() + this.pruneByAge();
  }

  list(query: JournalQuery, limit: number): JournalSummaryRow[] {
    this.flush();
    const filter: JournalFilter = {
      clientId: query.clientId ?? null,
      direction: query.direction ?? null,
      code: query.code ?? null,
      reference: query.reference ?? null,
      path: query.path ?? null,
      since: query.since ?? null,
      beforeId: query.beforeId ?? null,
    };
    return this.repo.list(filter, limit);
  }

  /** The full entry with its curl command, or undefined. */
  entry(id: number) {
    this.flush();
    const row = this.repo.find(id);
    return row ? this.entryView(row) : undefined;
  }

  /** The exchanges that involved one order, oldest first: `journal` of the control plane's order detail. */
  journalFor(clientId: string, reference: string) {
    this.flush();
    return this.repo.mentions(clientId, reference, MENTIONS_LIMIT).map(mentionView);
  }

  /** Deletes every entry; returns how many. */
  clear(): number {
    this.flush();
    return this.repo.clear();
  }

  close(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    try {
      this.flush();
    } finally {
      this.closed = true;
      this.pending = [];
    }
  }

  private queued(): void {
    if (this.pending.length >= FLUSH_AT) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    this.timer = setTimeout(() => {
      if (!this.closed) this.flush();
    }, FLUSH_DELAY_MS);
    this.timer.unref();
  }

  private pruneByCount(): number {
    const keepFrom = this.nextId - 1 - this.settings.maxEntries;
    if (keepFrom <= this.prunedUpTo) return 0;
    this.prunedUpTo = keepFrom;
    return this.repo.deleteUpTo(keepFrom);
  }

  private pruneByAge(): number {
    this.lastAgePrune = this.clock.now();
    const last = this.repo.lastOlderThan(this.clock.now() - this.settings.maxAgeS * 1000);
    return last === null ? 0 : this.repo.deleteUpTo(last);
  }

  /** A body as bytes (captured, maybe cut short of `size`) or as the whole text an answer was read as. */
  private record(masker: Masker, headers: Readonly<Record<string, unknown>>, body: Buffer | string | null, size: number): { headers: HeaderBag } & BodyRecord {
    const masked = masker.headers(headers);
    if (!body || body.length === 0) return { headers: masked, body: null, size, truncated: false };
    const text = typeof body === 'string' ? body : bodyText(body);
    if (text === null) {
      const kept = (body as Buffer).subarray(0, this.settings.bodyLimit);
      return { headers: masked, body: kept.toString('base64'), body_encoding: 'base64', size, truncated: kept.length < size };
    }
    const cutShort = typeof body !== 'string' && body.length < size;
    return { headers: masked, body: masker.body(text, headerText(masked, 'content-type')), size, truncated: cutShort };
  }

  /** Second pass: secrets met anywhere are scrubbed everywhere, then bodies are cut to the limit. */
  private finish(masker: Masker, part: { headers: HeaderBag } & BodyRecord): { headers: HeaderBag } & BodyRecord {
    const headers = masker.scrubHeaders(part.headers);
    if (part.body === null || part.body_encoding === 'base64') return { ...part, headers };
    const { text, truncated } = cut(masker.scrub(part.body), this.settings.bodyLimit);
    return { ...part, headers, body: text, truncated: part.truncated || truncated };
  }

  private inboundRow(capture: InboundCapture): JournalInsert {
    const masker = new Masker();
    const url = masker.url(capture.url);
    const request = this.record(masker, capture.requestHeaders, capture.requestBody, capture.requestBody?.length ?? 0);
    const responseBytes = capture.responseChunks.length === 1 ? capture.responseChunks[0] : Buffer.concat(capture.responseChunks);
    const response = this.record(masker, capture.responseHeaders, responseBytes, capture.responseSize);
    const detail: JournalDetail = { request: this.finish(masker, request), response: this.finish(masker, response), error: capture.error };
    if (capture.fault) detail.fault = capture.fault;
    const target = capture.path.startsWith('/sandbox/') ? sandboxTarget(capture.path) : { clientId: null, reference: null };
    const clientId = capture.clientId ?? target.clientId ?? claimedClient(capture);
    const references: string[] = [];
    if (capture.orderId !== null) references.push(capture.orderId);
    if (target.reference !== null) references.push(target.reference);
    if (capture.method === 'POST' && capture.path === '/payment-orders' && capture.requestBody) {
      references.push(...(capture.bodyReferences ?? referencesIn(parseJsonText(capture.requestBody.toString('utf8')))));
    }
    return {
      id: capture.id,
      at: capture.at,
      direction: 'in',
      clientId,
      method: capture.method,
      url: masker.scrub(url),
      path: capture.path,
      status: capture.status,
      code: capture.code,
      latencyMs: Math.round(capture.latencyMs * 100) / 100,
      requestId: capture.requestId,
      detail: JSON.stringify(detail),
      references: [...new Set(references)].slice(0, MAX_REFERENCES).map((reference) => ({ clientId, reference })),
    };
  }

  private outboundRow(item: Extract<Pending, { kind: 'out' }>): JournalInsert {
    const { exchange, clientId, answerReferences } = item;
    const answer: HttpAnswer = exchange.answer;
    const masker = new Masker();
    const url = masker.url(exchange.url);
    const requestBytes = exchange.body === undefined ? null : Buffer.isBuffer(exchange.body) ? exchange.body : Buffer.from(exchange.body);
    const request = this.record(masker, exchange.headers, requestBytes, requestBytes?.length ?? 0);
    // The answer's text as read, not bytes made from it again: a pull page is ~400 KB.
    const response = answer.status === null ? null : this.record(masker, plainHeaders(answer.headers), answer.body, Buffer.byteLength(answer.body));
    const detail: JournalDetail = { request: this.finish(masker, request), response: response && this.finish(masker, response), error: answer.error };
    if (exchange.fault) detail.fault = exchange.fault;
    const references = [...referencesIn(requestBytes ? parseJsonText(requestBytes.toString('utf8')) : undefined), ...answerReferences];
    const path = this.outgoingPath(exchange.url) ?? url;
    return {
      id: item.id,
      at: item.at,
      direction: 'out',
      clientId,
      method: exchange.method,
      url: masker.scrub(url),
      path,
      status: answer.status,
      code: null,
      latencyMs: answer.latencyMs,
      requestId: headerText(exchange.headers, 'x-request-id') || null,
      detail: JSON.stringify(detail),
      references: [...new Set(references)].slice(0, MAX_REFERENCES).map((reference) => ({ clientId, reference })),
    };
  }

  private entryView(row: JournalRow & { references: string[]; fault: string | null }) {
    const detail = JSON.parse(row.detail) as JournalDetail;
    const curl = curlCommand({ direction: row.direction, method: row.method, url: row.url, path: row.path, headers: detail.request.headers, body: detail.request });
    return {
      ...summaryView(row),
      request: detail.request,
      response: detail.response,
      error: detail.error,
      curl,
      curl_note: detail.request.truncated ? `the request body was cut at ${this.settings.bodyLimit} bytes: the command sends only the part kept` : null,
    };
  }
}
