// @ts-check
// The control plane as the dashboard calls it (docs/control-plane.md): JSON in and out, the admin token as a
// Bearer header when there is one, and refusals as ApiProblem (RFC 9457 problem details). The dashboard has no
// endpoint of its own: every view reads and acts through these calls.

/**
 * @typedef {{ client_id: string, reference: string, bank_reference: string, source: 'push' | 'pull',
 *   status: 'PENDING' | 'SUCCESS' | 'FAILED', reason_code: string | null, reason_message: string | null,
 *   scenario: string, scenario_source: string, total_amount: string, currency: string, initiated_at: string,
 *   created_at: string, processed_at: string | null, settle_at: string | null, payment_order: unknown }} Order
 * @typedef {{ status: string, from: string | null, reason_code: string | null, cause: string | null, at: string }} HistoryEntry
 * @typedef {{ at: string, url: string, http_status: number | null, error: string | null, latency_ms: number | null,
 *   response_excerpt: string | null }} Attempt
 * @typedef {{ message_id: number, client_id: string, kind: 'unit' | 'batch', idempotency_key: string, url: string,
 *   state: 'pending' | 'delivered' | 'dead', created_at: string, next_attempt_at: string | null,
 *   delivered_at: string | null, last_error: string | null, attempts: Attempt[] }} CallbackMessage
 * @typedef {{ id: number, at: string, direction: 'in' | 'out', method: string, path: string, status: number | null,
 *   code: string | null }} JournalMention
 * @typedef {{ order: Order, history: HistoryEntry[], messages: CallbackMessage[], journal: JournalMention[] }} OrderDetail
 * @typedef {JournalMention & { client_id: string | null, url: string, latency_ms: number | null,
 *   request_id: string | null, references: string[], fault: string | null }} JournalSummary
 * @typedef {{ headers: Record<string, string | string[]>, body: string | null, size?: number, truncated?: boolean }} RecordedMessage
 * @typedef {JournalSummary & { request: RecordedMessage, response: RecordedMessage | null, error: string | null,
 *   curl: string | null, curl_note: string | null }} JournalEntry
 * @typedef {{ url: string, callback_mode: string, poll: boolean, poll_limit: number, poll_status: string,
 *   token_set: boolean, token_url: string | null }} ConnectorView
 * @typedef {{ client_id: string, name: string, source: string, changed_at_runtime: boolean, auth_methods: string[],
 *   api_key_set: boolean, jwks_uri: string | null, jwks: { keys: { kid: string, alg?: string }[] } | null,
 *   connector: ConnectorView | null, created_at: string | null }} ClientView
 * @typedef {{ client_id: string, active: boolean, duplicate_rate: number, reorder_rate: number, delay_ms: number,
 *   drop_rate: number, bad_signature_rate: number, conflicting_final_rate: number, status_429_rate: number,
 *   seed: number, updated_at: string | null }} FaultProfile
 * @typedef {{ client_id: string, now: string, attached_at: string }} ClockView
 * @typedef {{ at: string, kind: 'settlement' | 'delivery', reference?: string, status?: string, attempts?: number }} FiredItem
 * @typedef {{ client_id: string, from: string, to: string, fired: FiredItem[], idempotency_records_expired: number }} AdvanceReport
 * @typedef {{ id: string, group: string, clause: string, verdict: 'PASSED' | 'FAILED' | 'WARNING' | 'SKIPPED',
 *   expected: string, seen: string, reason: string | null, started_at: string, duration_ms: number }} CaseResult
 * @typedef {{ total: number, passed: number, failed: number, warning: number, skipped: number }} RunSummary
 * @typedef {{ reference: string, sandbox_scenario: string, case: string, order: unknown }} ClientOrder
 * @typedef {{ id: string, client_id: string, state: string, started_at: string, finished_at: string | null,
 *   duration_ms: number | null, connector_url: string | null, cases: string[], summary: RunSummary,
 *   client_orders: ClientOrder[], window_s: number, error: string | null,
 *   links: { self: string, junit: string, report: string }, results?: CaseResult[] }} ConformanceRun
 * @typedef {{ id: number, type: string, at: string, client_id: string | null, data: Record<string, unknown> }} LiveEvent
 */

/**
 * @template T
 * @typedef {{ data: T[], next_cursor: string | null }} Page
 */

/** A refusal of the control plane, with its problem details. */
export class ApiProblem extends Error {
  /**
   * @param {number} status
   * @param {Record<string, unknown>} problem
   */
  constructor(status, problem) {
    const detail = typeof problem.detail === 'string' ? problem.detail : `HTTP ${status}`;
    super(detail);
    this.status = status;
    this.problem = problem;
    /** @type {string} */
    this.code = typeof problem.code === 'string' ? problem.code : `http_${status}`;
  }

  /** What a person reads: the detail, and each body error's path and message. */
  explain() {
    const errors = Array.isArray(this.problem.errors) ? /** @type {{ path?: string, message?: string }[]} */ (this.problem.errors) : [];
    const listed = errors.map((error) => `${error.path ?? ''} ${error.message ?? ''}`.trim()).join('; ');
    return `${this.code}: ${this.message}${listed ? ` (${listed})` : ''}`;
  }
}

/**
 * A query string of the given parameters, leaving out empty ones.
 * @param {Record<string, string | number | null | undefined>} params
 */
export function queryString(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** @param {string} segment */
export const seg = (segment) => encodeURIComponent(segment);

/** Journal entries never change once written: each is fetched once per page load. */
/** @type {Map<number, Promise<JournalEntry>>} */
const journalEntries = new Map();

export class Api {
  /**
   * @param {string | null} token the admin token, or null when /sandbox is open
   * @param {() => void} onUnauthorized called when the Bank refuses the token (401)
   */
  constructor(token, onUnauthorized) {
    this.token = token;
    this.onUnauthorized = onUnauthorized;
  }

  /** @returns {Record<string, string>} */
  authorization() {
    return this.token ? { authorization: `Bearer ${this.token}` } : {};
  }

  /**
   * One call; the JSON answer, or throws ApiProblem.
   * @param {string} method
   * @param {string} path under /sandbox, with its query
   * @param {unknown} [body]
   * @returns {Promise<any>}
   */
  async call(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json', ...this.authorization() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`/sandbox${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
    const text = await response.text();
    if (response.status === 401) this.onUnauthorized();
    if (!response.ok) {
      /** @type {Record<string, unknown>} */
      let problem = {};
      try {
        problem = JSON.parse(text);
      } catch {
        problem = { detail: text.slice(0, 200) };
      }
      throw new ApiProblem(response.status, problem);
    }
    return text ? JSON.parse(text) : null;
  }

  /** @param {string} path */
  get(path) {
    return this.call('GET', path);
  }

  /**
   * @param {string} path
   * @param {unknown} [body]
   */
  post(path, body = {}) {
    return this.call('POST', path, body);
  }

  /**
   * @param {string} path
   * @param {unknown} body
   */
  put(path, body) {
    return this.call('PUT', path, body);
  }

  /** @param {string} path */
  delete(path) {
    return this.call('DELETE', path);
  }

  /**
   * A text answer (the conformance reports), fetched with the token so it can be saved from the page.
   * @param {string} absolutePath e.g. /sandbox/conformance-runs/{id}/report.html
   */
  async text(absolutePath) {
    const response = await fetch(absolutePath, { headers: this.authorization(), cache: 'no-store' });
    const text = await response.text();
    if (response.status === 401) this.onUnauthorized();
    if (!response.ok) throw new ApiProblem(response.status, { detail: text.slice(0, 200) });
    return text;
  }

  /**
   * One journal entry (GET /sandbox/journal/{id}), fetched once.
   * @param {number} id
   * @returns {Promise<JournalEntry>}
   */
  journalEntry(id) {
    let entry = journalEntries.get(id);
    if (!entry) {
      entry = this.get(`/journal/${id}`);
      journalEntries.set(id, entry);
      entry.catch(() => journalEntries.delete(id));
    }
    return entry;
  }

  /**
   * The pages of a list (`/orders`, `/journal` …) in order, each asked for with `limit: limitFor(rows read so far)`,
   * following `next_cursor` until the last page or until the caller stops reading.
   * @template T
   * @param {string} path
   * @param {Record<string, string | number | null | undefined>} params
   * @param {(read: number) => number} limitFor
   * @returns {AsyncGenerator<Page<T>>}
   */
  async *pages(path, params, limitFor) {
    let read = 0;
    /** @type {string | null} */
    let cursor = null;
    do {
      /** @type {Page<T>} */
      const page = await this.get(`${path}${queryString({ ...params, limit: limitFor(read), cursor })}`);
      read += page.data.length;
      yield page;
      cursor = page.next_cursor;
    } while (cursor);
  }

  /** Every registered client (a few pages at most). @returns {Promise<ClientView[]>} */
  async clients() {
    /** @type {ClientView[]} */
    const all = [];
    for await (const page of this.pages('/clients', {}, () => 1000)) all.push(.../** @type {Page<ClientView>} */ (page).data);
    return all;
  }
}
