// @ts-check
// The journal (GET /sandbox/journal, /sandbox/journal/{id}): every exchange in and out, newest first, refused
// ones highlighted with their problem code. One entry shows its signed exchange; a signature_invalid refusal
// shows the Bank's signature base next to the curl that reproduces the request.
import { ApiProblem } from './api.js';
import { codeBlock, copyButton, debounce, field, formatLatency, h, message, replace, select, time } from './dom.js';
import { exchangePanel, problemOf } from './exchange.js';

/**
 * @typedef {import('./api.js').JournalSummary} JournalSummary
 * @typedef {import('./api.js').JournalEntry} JournalEntry
 * @typedef {import('./app.js').Context} Context
 */

const PAGE = 200;
/** The dashboard's own traffic: its files and its control-plane calls (hidden unless asked for). */
const OWN_TRAFFIC = /^\/(sandbox|dashboard)(\/|$)/;
/**
 * Hiding the own traffic reads on past it, page by page (the API's largest), so that a dashboard that has been
 * open a while still shows the exchanges before its own; at most this many pages at a time.
 */
const SCAN_PAGE = 1000;
const SCAN_PAGES = 10;

const filters = { client_id: '', direction: '', code: '', path: '' };
let hideOwn = true;
let limit = PAGE;

/** @param {{ status: number | null, code: string | null }} entry */
const isRefused = (entry) => entry.code !== null || (entry.status !== null && entry.status >= 400);

/**
 * @param {Context} ctx
 * @param {HTMLElement} main
 */
export function journalView(ctx, main) {
  const { api } = ctx;
  let disposed = false;
  const clientFilter = select([['', 'All clients']], filters.client_id, { name: 'client_id' });
  const directionFilter = select([['', 'In and out'], ['in', 'in (to the Bank)'], ['out', 'out (from the Bank)']], filters.direction, { name: 'direction' });
  const codeFilter = h('input', { type: 'search', name: 'code', value: filters.code, placeholder: 'signature_invalid', spellcheck: 'false' });
  const pathFilter = h('input', { type: 'search', name: 'path', value: filters.path, placeholder: '/payment-orders', spellcheck: 'false' });
  const ownToggle = h('input', { type: 'checkbox', id: 'hide-own', name: 'hide_own', checked: hideOwn });
  const tbody = h('tbody');
  const status = h('div', { class: 'view-status' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true, onclick: () => ((limit += PAGE), reload()) }, 'Show older exchanges');
  const clear = h('button', { type: 'button', class: 'secondary', onclick: () => void clearJournal() }, 'Clear the journal');

  replace(main,
    h('div', { class: 'view-head' }, h('h1', {}, 'Journal'), h('div', { class: 'toolbar' }, clear)),
    h('p', { class: 'hint' }, 'Every exchange on both listeners and every call the Bank makes, secrets masked. Refused requests are highlighted with their problem code.'),
    h('form', { class: 'filters', 'aria-label': 'Filter the journal', onsubmit: (/** @type {Event} */ event) => event.preventDefault() },
      field('Client', clientFilter), field('Direction', directionFilter), field('Problem code', codeFilter), field('Path starts with', pathFilter),
      h('div', { class: 'field checkbox' }, ownToggle, h('label', { for: 'hide-own' }, "Hide the dashboard's own requests"))),
    status,
    h('div', { class: 'table-wrap' }, h('table', { class: 'data journal' },
      h('caption', { class: 'visually-hidden' }, 'Exchanges, newest first'),
      h('thead', {}, h('tr', {}, ...['Exchange', 'Time', 'Direction', 'Request', 'Answer', 'Problem', 'Client', 'Latency'].map((name) => h('th', { scope: 'col' }, name)))),
      tbody)),
    more,
  );

  for (const [control, name] of /** @type {[HTMLSelectElement | HTMLInputElement, keyof typeof filters][]} */ ([[clientFilter, 'client_id'], [directionFilter, 'direction'], [codeFilter, 'code'], [pathFilter, 'path']])) {
    control.addEventListener(control instanceof HTMLInputElement ? 'input' : 'change', () => {
      filters[name] = control.value.trim();
      limit = PAGE;
      reloadSoon();
    });
  }
  ownToggle.addEventListener('change', () => {
    hideOwn = ownToggle.checked;
    void reload();
  });
  api.clients().then((clients) => {
    for (const client of clients) clientFilter.appendChild(h('option', { value: client.client_id, selected: client.client_id === filters.client_id }, client.client_id));
  }).catch(() => undefined);

  /** @param {JournalSummary} entry */
  function row(entry) {
    const refused = isRefused(entry);
    return h('tr', { class: refused ? 'refused' : '' },
      h('td', { 'data-label': 'Exchange' }, h('a', { href: `#/journal/${entry.id}` }, `#${entry.id}`)),
      h('td', { 'data-label': 'Time' }, time(entry.at)),
      h('td', { 'data-label': 'Direction' }, entry.direction === 'in' ? 'in' : 'out'),
      h('td', { 'data-label': 'Request' }, h('code', {}, `${entry.method} ${entry.path}`)),
      h('td', { 'data-label': 'Answer' }, entry.status === null ? h('span', { class: 'callback-error' }, 'no answer') : String(entry.status)),
      h('td', { 'data-label': 'Problem' }, entry.code ? h('span', { class: 'badge badge-failed' }, entry.code) : '', entry.fault ? h('span', { class: 'badge badge-fault' }, `fault: ${entry.fault}`) : ''),
      h('td', { 'data-label': 'Client' }, entry.client_id ?? ''),
      h('td', { 'data-label': 'Latency' }, formatLatency(entry.latency_ms)),
    );
  }

  /** The newest `limit` entries to show, whether older ones exist, and whether the journal held any entry at all. */
  async function readShown() {
    /** @type {JournalSummary[]} */
    const shown = [];
    let older = false;
    let read = 0;
    let pages = 0;
    for await (const page of api.pages('/journal', filters, () => (hideOwn ? SCAN_PAGE : limit))) {
      const entries = /** @type {import('./api.js').Page<JournalSummary>} */ (page).data;
      read += entries.length;
      shown.push(...entries.filter((entry) => !hideOwn || !OWN_TRAFFIC.test(entry.path)));
      older = page.next_cursor !== null;
      pages += 1;
      if (shown.length >= limit || pages >= (hideOwn ? SCAN_PAGES : 1)) break;
    }
    return { shown: shown.slice(0, limit), older: older || shown.length > limit, read };
  }

  async function reload() {
    try {
      const { shown, older, read } = await readShown();
      if (disposed) return;
      replace(tbody, shown.map(row));
      more.hidden = !older;
      replace(status, shown.length === 0 ? message(read ? 'Only the dashboard\'s own requests so far (untick "Hide the dashboard\'s own requests" to see them).' : 'No exchange recorded (or the journal is off: JOURNAL_ENABLED).', 'note') : null);
    } catch (error) {
      if (!disposed) replace(status, message(`The journal could not be read: ${/** @type {Error} */ (error).message}`));
    }
  }
  const reloadSoon = debounce(() => void reload(), 300);

  async function clearJournal() {
    try {
      const answer = await api.delete('/journal');
      replace(status, message(`Journal cleared: ${answer.deleted} entries deleted.`, 'success'));
      await reload();
    } catch (error) {
      replace(status, message(error instanceof ApiProblem ? error.explain() : String(error)));
    }
  }

  // Any event is an exchange or follows one: reload (debounced, so a burst is one read).
  const unsubscribe = ctx.live.subscribe(() => reloadSoon());
  void reload();
  return () => {
    disposed = true;
    unsubscribe();
    reloadSoon.cancel();
  };
}

/**
 * For signature_invalid: the Bank's signature base next to the curl that sends the same request again.
 * @param {JournalEntry} entry
 * @param {Record<string, unknown>} problem
 */
function signatureExplanation(entry, problem) {
  const base = typeof problem.signature_base === 'string' ? problem.signature_base : null;
  const facts = ['reason', 'kid', 'alg', 'content_digest'].filter((name) => typeof problem[name] === 'string');
  return h('div', { class: 'side-by-side' },
    h('section', { 'aria-labelledby': 'bank-base-title' },
      h('h2', { id: 'bank-base-title' }, 'The Bank\'s signature base'),
      h('p', { class: 'hint' }, 'Exactly what the Bank verified X-Signature against. Build yours from the same request and compare them line by line.'),
      base ? [codeBlock(base, 'The Bank\'s signature base'), copyButton('signature base', () => base)] : message('The answer carries no signature_base.', 'note'),
      facts.length ? h('dl', { class: 'facts' }, facts.map((name) => [h('dt', {}, name), h('dd', {}, h('code', {}, String(problem[name])))])) : null,
    ),
    h('section', { 'aria-labelledby': 'curl-title' },
      h('h2', { id: 'curl-title' }, 'Reproduce it with curl'),
      h('p', { class: 'hint' }, 'The same request, headers and body as received (secrets as placeholders).'),
      entry.curl ? [codeBlock(entry.curl, 'curl command that reproduces the request'), copyButton('curl command', () => entry.curl ?? '')] : message('No curl for this exchange.', 'note'),
      entry.curl_note ? h('p', { class: 'hint' }, entry.curl_note) : null,
    ),
  );
}

/**
 * One exchange: its problem (when refused) and its signed request.
 * @param {Context} ctx
 * @param {HTMLElement} main
 * @param {string[]} params the entry id
 */
export function journalEntryView(ctx, main, [id]) {
  let disposed = false;
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  replace(main, h('p', { class: 'breadcrumb' }, h('a', { href: '#/journal' }, '← Journal')), h('h1', {}, `Exchange #${id}`), body);
  ctx.api.journalEntry(Number(id)).then((entry) => {
    if (disposed) return;
    const problem = problemOf(entry);
    replace(body,
      entry.references.length ? h('p', {}, 'Orders: ', entry.references.map((reference, index) => [index ? ', ' : '', entry.client_id ? h('a', { href: `#/orders/${encodeURIComponent(entry.client_id)}/${encodeURIComponent(reference)}` }, reference) : reference])) : null,
      problem ? h('div', { class: 'problem-box', role: 'group', 'aria-label': 'Refused' },
        h('h2', {}, `Refused: ${String(problem.code)}`),
        h('p', {}, String(problem.title ?? ''), problem.detail ? ` — ${String(problem.detail)}` : ''),
        Array.isArray(problem.errors) ? h('ul', {}, problem.errors.map((/** @type {{ path?: string, message?: string }} */ error) => h('li', {}, h('code', {}, error.path ?? ''), ' ', error.message ?? ''))) : null,
      ) : null,
      problem?.code === 'signature_invalid' ? signatureExplanation(entry, problem) : null,
      h('h2', {}, 'The exchange'),
      exchangePanel(entry),
    );
  }).catch((error) => {
    if (!disposed) replace(body, message(error instanceof ApiProblem && error.status === 404 ? `No journal entry #${id}: pruned, cleared, or never made.` : `The entry could not be read: ${/** @type {Error} */ (error).message}`));
  });
  return () => {
    disposed = true;
  };
}
