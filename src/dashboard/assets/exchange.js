// @ts-check
// One recorded exchange (GET /sandbox/journal/{id}) shown as a signed request: the request line, headers and
// body, the decoded JWS header of X-Signature, the signature base, the answer, and the curl that replays it.
// The signature base is rebuilt here from the recorded headers exactly as profile section 1 builds it; for a
// refused signature the Bank's own base (from its problem answer) is shown instead, since that is what it
// verified.
import { codeBlock, copyButton, formatLatency, h, prettyJson, replace, time } from './dom.js';

/** @typedef {import('./api.js').JournalEntry} JournalEntry */

/** Header lines of the base, per flow (profile section 1 table); content-digest always comes last. */
const SIGNED_HEADERS = {
  create: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
  pull: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
  status: ['x-client-id', 'x-timestamp', 'x-nonce'],
  callback: ['x-client-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
};
/** Content-Digest of an empty body (a GET): sha-256 of zero bytes. */
const EMPTY_DIGEST = 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:';

/**
 * @param {Record<string, string | string[]>} headers
 * @param {string} name lower case
 */
export function headerOf(headers, name) {
  const value = headers[name];
  return Array.isArray(value) ? value[0] ?? '' : value ?? '';
}

/**
 * The protected header of a detached JWS (`header..signature`), decoded; null when it is not one.
 * @param {string} signature
 * @returns {Record<string, unknown> | null}
 */
export function decodeJwsHeader(signature) {
  const part = signature.split('.')[0];
  if (!part) return null;
  try {
    const base64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    const header = JSON.parse(new TextDecoder().decode(bytes));
    return header && typeof header === 'object' && !Array.isArray(header) ? header : null;
  } catch {
    return null;
  }
}

/**
 * Which signed flow a request is, from its method and headers: a GET with X-Request-Id is a pull, without one a
 * status poll; a POST with X-Request-Id is a create, without one a callback.
 * @param {string} method
 * @param {Record<string, string | string[]>} headers
 * @returns {keyof typeof SIGNED_HEADERS}
 */
export function flowOf(method, headers) {
  const hasRequestId = headerOf(headers, 'x-request-id') !== '';
  if (method.toUpperCase() === 'GET') return hasRequestId ? 'pull' : 'status';
  return hasRequestId ? 'create' : 'callback';
}

/**
 * @param {string} text
 * @returns {Promise<string | null>}
 */
async function sha256Digest(text) {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  let binary = '';
  for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
  return `sha-256=:${btoa(binary)}:`;
}

/**
 * The signature base of a recorded request, rebuilt as profile section 1 says: @method, @target-uri (path and
 * query as sent), the flow's headers, content-digest (as sent, or computed over the recorded body).
 * @param {JournalEntry} entry
 * @returns {Promise<{ base: string, flow: string, digestNote: string | null }>}
 */
export async function rebuildSignatureBase(entry) {
  const headers = entry.request.headers;
  const flow = flowOf(entry.method, headers);
  const target = entry.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') || '/';
  const lines = [`@method: ${entry.method.toUpperCase()}`, `@target-uri: ${target}`];
  for (const name of SIGNED_HEADERS[flow]) lines.push(`${name}: ${headerOf(headers, name)}`);
  let digest = headerOf(headers, 'content-digest');
  /** @type {string | null} */
  let digestNote = null;
  if (!digest) {
    const body = entry.request.body ?? '';
    if (body === '') digest = EMPTY_DIGEST;
    else if (entry.request.truncated) digestNote = 'the body was cut in the journal: its digest cannot be computed here';
    else {
      digest = (await sha256Digest(body)) ?? '';
      if (!digest) digestNote = 'this browser computes digests only on https or localhost';
    }
  }
  lines.push(`content-digest: ${digest}`);
  return { base: lines.join('\n'), flow, digestNote };
}

/**
 * The problem details of a refused exchange's answer, when it is one.
 * @param {JournalEntry} entry
 * @returns {Record<string, unknown> | null}
 */
export function problemOf(entry) {
  if (!entry.response?.body) return null;
  try {
    const body = JSON.parse(entry.response.body);
    return body && typeof body === 'object' && typeof body.code === 'string' ? body : null;
  } catch {
    return null;
  }
}

/** @param {Record<string, string | string[]>} headers @param {string} label */
function headerTable(headers, label) {
  const names = Object.keys(headers);
  if (names.length === 0) return h('p', { class: 'muted' }, 'No headers recorded.');
  return h('table', { class: 'headers' },
    h('caption', { class: 'visually-hidden' }, label),
    h('tbody', {}, names.map((name) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, Array.isArray(headers[name]) ? headers[name].join(', ') : headers[name])))),
  );
}

/**
 * @param {import('./api.js').RecordedMessage} recorded
 * @param {string} label
 */
function bodyBlock(recorded, label) {
  if (!recorded.body) return h('p', { class: 'muted' }, 'No body.');
  return h('div', {},
    codeBlock(prettyJson(recorded.body), label),
    recorded.truncated ? h('p', { class: 'hint' }, `Cut at the journal's body limit (${recorded.size ?? '?'} bytes in all).`) : null,
  );
}

/**
 * The whole signed exchange of one journal entry.
 * @param {JournalEntry} entry
 */
export function exchangePanel(entry) {
  const signature = headerOf(entry.request.headers, 'x-signature');
  const jwsHeader = signature ? decodeJwsHeader(signature) : null;
  const problem = problemOf(entry);
  const bankBase = problem && typeof problem.signature_base === 'string' ? problem.signature_base : null;
  const baseSlot = h('div', {}, h('p', { class: 'muted' }, 'Rebuilding the signature base…'));
  const who = entry.direction === 'out' ? 'the Bank signed' : 'this request was to be signed over';

  if (bankBase) {
    replace(baseSlot, h('p', { class: 'hint' }, 'The base the Bank computed from the request it received (from its signature_invalid answer):'), codeBlock(bankBase, 'Signature base the Bank computed'));
  } else if (signature) {
    void rebuildSignatureBase(entry).then(({ base, flow, digestNote }) => {
      replace(baseSlot,
        h('p', { class: 'hint' }, `The base ${who}, rebuilt from the recorded headers (${flow} flow, profile section 1):`),
        codeBlock(base, 'Signature base'),
        digestNote ? h('p', { class: 'hint' }, digestNote) : null,
      );
    });
  } else replace(baseSlot, h('p', { class: 'muted' }, 'Not a signed request (no X-Signature).'));

  return h('div', { class: 'exchange' },
    h('p', { class: 'request-line' },
      h('span', { class: `direction direction-${entry.direction}` }, entry.direction === 'out' ? 'Bank → Connector' : 'Connector → Bank'), ' ',
      h('code', {}, `${entry.method} ${entry.url}`), ' ',
      time(entry.at), ' ',
      entry.status === null ? h('span', { class: 'callback callback-error' }, entry.error ?? 'no answer') : h('span', { class: entry.status < 400 ? 'callback callback-ok' : 'callback callback-error' }, `HTTP ${entry.status}`),
      entry.latency_ms === null ? null : ` in ${formatLatency(entry.latency_ms)}`,
      entry.fault ? h('span', { class: 'badge badge-fault', title: 'injected by the fault profile' }, `fault: ${entry.fault}`) : null,
    ),
    h('div', { class: 'exchange-grid' },
      h('section', { 'aria-label': 'Request' },
        h('h3', {}, 'Request headers'), headerTable(entry.request.headers, 'Request headers'),
        h('h3', {}, 'Request body'), bodyBlock(entry.request, 'Request body'),
      ),
      h('section', { 'aria-label': 'Signature' },
        h('h3', {}, 'JWS header (decoded)'),
        jwsHeader ? codeBlock(JSON.stringify(jwsHeader, null, 2), 'Decoded JWS header') : h('p', { class: 'muted' }, signature ? 'X-Signature is not a readable JWS.' : 'No X-Signature.'),
        h('h3', {}, 'Signature base'), baseSlot,
      ),
    ),
    h('section', { 'aria-label': 'Answer' },
      h('h3', {}, 'Answer'),
      entry.response ? h('div', { class: 'exchange-grid' }, headerTable(entry.response.headers, 'Answer headers'), bodyBlock(entry.response, 'Answer body')) : h('p', { class: 'muted' }, entry.error ?? 'No answer recorded.'),
    ),
    entry.curl ? h('section', { 'aria-label': 'Replay' },
      h('h3', {}, 'Replay with curl'),
      codeBlock(entry.curl, 'curl command'),
      entry.curl_note ? h('p', { class: 'hint' }, entry.curl_note) : null,
      copyButton('curl command', () => entry.curl ?? ''),
    ) : null,
  );
}
