// @ts-check
// Orders, live: GET /sandbox/orders with the filters, refetched when order.* events say something changed;
// each row's last callback result comes from the order's detail (GET /sandbox/orders/{client}/{reference}),
// refetched when a callback.* event concerns it. The Reset control (POST /sandbox/reset) lives here too.
import { seg } from './api.js';
import { STREAM_OPENED } from './live.js';
import { debounce, field, formatAmount, formatLatency, h, message, replace, select, statusBadge, time } from './dom.js';

/**
 * @typedef {import('./api.js').Order} Order
 * @typedef {import('./api.js').OrderDetail} OrderDetail
 * @typedef {import('./api.js').LiveEvent} LiveEvent
 * @typedef {import('./app.js').Context} Context
 */

const PAGE = 50;
/** Order details fetched at once (a page of rows asks for its details a few at a time). */
const DETAIL_CONCURRENCY = 4;

/** The filters outlive the view: coming back from an order's timeline keeps them. */
const filters = { client_id: '', status: '', source: '', scenario: '' };
let limit = PAGE;

/** @param {{ client_id: string, reference: string }} order */
export const orderKey = (order) => `${order.client_id}\u0000${order.reference}`;

/** @param {{ client_id: string, reference: string }} order */
export const orderHash = (order) => `#/orders/${seg(order.client_id)}/${seg(order.reference)}`;

/**
 * The last callback attempt of an order, as one short line (and whether it went well).
 * @param {OrderDetail} detail
 * @returns {{ text: string, kind: 'ok' | 'error' | 'pending' | 'none', title: string }}
 */
export function lastCallback(detail) {
  const attempts = detail.messages.flatMap((message) => message.attempts.map((attempt) => ({ message, attempt })));
  if (attempts.length === 0) {
    const queued = detail.messages.find((message) => message.state === 'pending');
    if (queued) return { text: 'queued', kind: 'pending', title: `message ${queued.message_id}, key ${queued.idempotency_key}` };
    return { text: 'none', kind: 'none', title: 'no callback message for this order' };
  }
  const latest = attempts.reduce((a, b) => (b.attempt.at > a.attempt.at || (b.attempt.at === a.attempt.at && b.message.message_id > a.message.message_id) ? b : a));
  const { attempt, message } = latest;
  const ok = attempt.error === null && attempt.http_status !== null && attempt.http_status >= 200 && attempt.http_status < 300;
  const result = attempt.error ?? `HTTP ${attempt.http_status}`;
  const latency = attempt.latency_ms === null ? '' : `, ${formatLatency(attempt.latency_ms)}`;
  const dead = message.state === 'dead' ? ' (dead)' : '';
  return { text: `${result}${latency}${dead}`, kind: ok ? 'ok' : 'error', title: `message ${message.message_id}, key ${message.idempotency_key}, ${attempt.at}` };
}

/**
 * @param {Context} ctx
 * @param {HTMLElement} main
 */
export function ordersView(ctx, main) {
  const { api } = ctx;
  let disposed = false;
  /** @type {Map<string, HTMLTableRowElement>} */
  const rows = new Map();
  /** @type {Map<string, OrderDetail>} */
  const details = new Map();
  /** @type {Set<string>} */
  const stale = new Set();
  /** @type {Order[]} */
  let shown = [];

  const clientFilter = select([['', 'All clients']], filters.client_id, { name: 'client_id' });
  const statusFilter = select([['', 'Any status'], ['PENDING', 'PENDING'], ['SUCCESS', 'SUCCESS'], ['FAILED', 'FAILED']], filters.status, { name: 'status' });
  const sourceFilter = select([['', 'Push and pull'], ['push', 'push'], ['pull', 'pull']], filters.source, { name: 'source' });
  const scenarioFilter = h('input', { type: 'search', name: 'scenario', value: filters.scenario, placeholder: 'e.g. PENDING:3600:SUCCESS', spellcheck: 'false' });
  const tbody = h('tbody');
  const status = h('div', { class: 'view-status' });
  const more = h('button', { type: 'button', hidden: true, onclick: () => ((limit += PAGE), reload()) }, 'Show more orders');
  const resetArea = h('div', { class: 'reset-area' });

  const table = h('table', { class: 'data orders' },
    h('caption', { class: 'visually-hidden' }, 'Orders, newest first'),
    h('thead', {}, h('tr', {}, ...['Reference', 'Client', 'Amount', 'Scenario', 'Status', 'Last callback', 'Created'].map((name) => h('th', { scope: 'col' }, name)))),
    tbody,
  );

  replace(main,
    h('div', { class: 'view-head' }, h('h1', {}, 'Orders'), h('div', { class: 'toolbar' }, h('button', { type: 'button', class: 'danger', onclick: () => showResetConfirm() }, 'Reset'))),
    resetArea,
    h('form', { class: 'filters', 'aria-label': 'Filter orders', onsubmit: (/** @type {Event} */ event) => event.preventDefault() },
      field('Client', clientFilter), field('Status', statusFilter), field('Source', sourceFilter), field('Scenario', scenarioFilter)),
    status,
    h('div', { class: 'table-wrap' }, table),
    more,
  );

  /** @param {HTMLSelectElement | HTMLInputElement} control @param {keyof typeof filters} name */
  const bind = (control, name) => control.addEventListener(control instanceof HTMLInputElement ? 'input' : 'change', () => {
    filters[name] = control.value.trim();
    limit = PAGE;
    control instanceof HTMLInputElement ? reloadSoon() : reload();
  });
  bind(clientFilter, 'client_id');
  bind(statusFilter, 'status');
  bind(sourceFilter, 'source');
  bind(scenarioFilter, 'scenario');

  api.clients().then((clients) => {
    for (const client of clients) clientFilter.appendChild(h('option', { value: client.client_id, selected: client.client_id === filters.client_id }, client.client_id));
  }).catch(() => undefined);

  /** @param {Order} order */
  function rowFor(order) {
    const key = orderKey(order);
    let row = rows.get(key);
    if (!row) {
      row = h('tr', { 'data-key': key });
      rows.set(key, row);
    }
    const detail = details.get(key);
    const callback = detail ? lastCallback(detail) : null;
    /** @type {[string, string | HTMLElement][]} */
    const cells = [
      ['Reference', h('a', { href: orderHash(order) }, order.reference)],
      ['Client', order.client_id],
      ['Amount', h('span', { class: 'amount' }, formatAmount(order.total_amount, order.currency))],
      ['Scenario', h('code', {}, order.scenario)],
      ['Status', statusBadge(order.status)],
      ['Last callback', callback ? h('span', { class: `callback callback-${callback.kind}`, title: callback.title }, callback.text) : h('span', { class: 'muted' }, '…')],
      ['Created', time(order.created_at)],
    ];
    // Cells are replaced only when their text changes: a focused link keeps its focus while events arrive.
    cells.forEach(([label, content], index) => {
      const text = typeof content === 'string' ? content : content.textContent;
      let cell = row.cells[index];
      if (!cell) cell = row.appendChild(h('td', { 'data-label': label }));
      const kind = index === 5 ? callback?.kind ?? '' : '';
      if (cell.dataset.text === text && cell.dataset.kind === kind) return;
      cell.dataset.text = text ?? '';
      cell.dataset.kind = kind;
      replace(cell, content);
    });
    return row;
  }

  function render() {
    const wanted = shown.map(rowFor);
    const keep = new Set(wanted);
    for (const [key, row] of rows) {
      if (!keep.has(row)) {
        row.remove();
        rows.delete(key);
      }
    }
    wanted.forEach((row, index) => {
      if (tbody.rows[index] !== row) tbody.insertBefore(row, tbody.rows[index] ?? null);
    });
    if (shown.length === 0) {
      const filtered = Object.values(filters).some((value) => value !== '');
      replace(status, message(filtered ? 'No order matches these filters.' : 'No orders yet. A signed POST /payment-orders (or a pull) appears here at once.', 'note'));
    } else replace(status);
  }

  async function reload() {
    try {
      // A page of large orders ends early (4 Mi characters of payment orders): follow its cursor up to `limit` rows.
      /** @type {Order[]} */
      let rows = [];
      let older = false;
      for await (const page of api.pages('/orders', filters, (read) => limit - read)) {
        if (disposed) return;
        rows = rows.concat(/** @type {import('./api.js').Page<Order>} */ (page).data);
        older = page.next_cursor !== null;
        if (rows.length >= limit) break;
      }
      shown = rows;
      more.hidden = !older;
      render();
      void refreshDetails();
    } catch (error) {
      if (!disposed) replace(status, message(`The orders could not be read: ${/** @type {Error} */ (error).message}`));
    }
  }
  const reloadSoon = debounce(() => void reload(), 150);

  let fetching = false;
  let again = false;
  /** Fetches the details of visible rows that have none or an outdated one, a few at a time. */
  async function refreshDetails() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      do {
        again = false;
        const due = shown.filter((order) => !details.has(orderKey(order)) || stale.has(orderKey(order)));
        for (let start = 0; start < due.length && !disposed; start += DETAIL_CONCURRENCY) {
          await Promise.all(due.slice(start, start + DETAIL_CONCURRENCY).map(fetchDetail));
        }
      } while (again && !disposed);
    } finally {
      fetching = false;
    }
  }
  const refreshDetailsSoon = debounce(() => void refreshDetails(), 100);

  /** @param {Order} order */
  async function fetchDetail(order) {
    const key = orderKey(order);
    stale.delete(key);
    try {
      /** @type {OrderDetail} */
      const detail = await api.get(`/orders/${seg(order.client_id)}/${seg(order.reference)}`);
      if (disposed) return;
      details.set(key, detail);
      const current = shown.find((candidate) => orderKey(candidate) === key);
      if (current) rowFor(current);
    } catch {
      // Deleted meanwhile (a reset): the next list reload drops the row.
    }
  }

  /** A callback event names its message; a unit message's key starts with the order's bank reference. */
  /** @param {Record<string, unknown>} data */
  function markCallbackStale(data) {
    const key = String(data.idempotency_key ?? '');
    const messageId = data.message_id;
    const concerned = shown.filter((order) => {
      const detail = details.get(orderKey(order));
      return key.startsWith(`${order.bank_reference}-`) || detail?.messages.some((message) => message.message_id === messageId);
    });
    // A batch message's key names no order: every visible row may be concerned.
    for (const order of concerned.length > 0 ? concerned : shown) stale.add(orderKey(order));
    refreshDetailsSoon();
  }

  const unsubscribe = ctx.live.subscribe((event) => {
    if (event.type === 'order.created' || event.type === 'order.status_changed') {
      stale.add(orderKey({ client_id: String(event.data.client_id), reference: String(event.data.reference) }));
      reloadSoon();
    } else if (event.type.startsWith('callback.')) markCallbackStale(event.data);
    else if (event.type === 'clock.advanced' || event.type === 'poll.completed' || event.type === STREAM_OPENED) reloadSoon();
  });

  function showResetConfirm() {
    const scope = select([['', 'All clients'], ...[...clientFilter.options].slice(1).map((option) => /** @type {[string, string]} */ ([option.value, option.value]))], filters.client_id);
    const confirm = h('button', { type: 'button', class: 'danger', onclick: () => void doReset(scope.value) }, 'Confirm reset');
    const panel = h('div', { class: 'confirm', role: 'group', 'aria-label': 'Confirm the reset' },
      h('p', {}, 'Delete the orders, callback messages, idempotency records, poll cursors, test clocks and fault profiles? Registrations, keys and spent nonces stay.'),
      field('Clients to reset', scope),
      h('div', { class: 'buttons' }, confirm, h('button', { type: 'button', onclick: () => replace(resetArea) }, 'Cancel')),
    );
    replace(resetArea, panel);
    scope.focus();
  }

  /** @param {string} clientId '' for all */
  async function doReset(clientId) {
    try {
      /** @type {{ deleted: Record<string, number> }} */
      const answer = await api.post('/reset', clientId ? { client_id: clientId } : {});
      const counts = Object.entries(answer.deleted).filter(([, count]) => count > 0).map(([table, count]) => `${table.replace(/_/g, ' ')}: ${count}`);
      replace(resetArea, message(`Reset ${clientId || 'all clients'}: ${counts.length ? counts.join(', ') : 'nothing to delete'}.`, 'success'));
      details.clear();
      await reload();
    } catch (error) {
      replace(resetArea, message(`The reset failed: ${/** @type {Error} */ (error).message}`));
    }
  }

  void reload();
  return () => {
    disposed = true;
    unsubscribe();
    reloadSoon.cancel();
    refreshDetailsSoon.cancel();
  };
}
