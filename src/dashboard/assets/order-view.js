// @ts-check
// One order's timeline (GET /sandbox/orders/{client}/{reference}): accepted → decided → status changes → every
// callback attempt (time, HTTP status or network error, latency, idempotency key), each with its signed request
// one click away (the journal entry it made). "Force outcome" and "Redeliver" act on it; order.* and callback.*
// events refresh it.
import { ApiProblem, seg } from './api.js';
import { debounce, field, formatAmount, formatLatency, formatTime, h, message, replace, select, statusBadge, time } from './dom.js';
import { exchangePanel, headerOf } from './exchange.js';
import { STREAM_OPENED } from './live.js';

/**
 * @typedef {import('./api.js').OrderDetail} OrderDetail
 * @typedef {import('./api.js').CallbackMessage} CallbackMessage
 * @typedef {import('./api.js').JournalEntry} JournalEntry
 * @typedef {import('./app.js').Context} Context
 * @typedef {{ at: string, rank: number, key: string, title: import('./dom.js').Children, body: import('./dom.js').Children,
 *   signed?: () => Promise<JournalEntry | null> }} TimelineItem
 */

/**
 * The journal entry of a message's n-th attempt: the outgoing POSTs that carried the message's idempotency key,
 * in the order they were made. A duplicate sent by a fault profile is the same attempt's second copy, not an
 * attempt of its own.
 * @param {import('./api.js').Api} api
 * @param {OrderDetail} detail
 * @param {CallbackMessage} callback
 * @param {number} index
 */
async function attemptEntry(api, detail, callback, index) {
  const outgoing = detail.journal.filter((mention) => mention.direction === 'out' && mention.method === 'POST');
  const entries = await Promise.all(outgoing.map((mention) => api.journalEntry(mention.id)));
  const sameKey = entries
    .filter((entry) => headerOf(entry.request.headers, 'x-idempotency-key') === callback.idempotency_key && !(entry.fault ?? '').split(',').includes('duplicate'))
    .sort((a, b) => a.id - b.id);
  return sameKey[index] ?? null;
}

/** @param {string} status */
const isFinal = (status) => status === 'SUCCESS' || status === 'FAILED';

/** @param {import('./api.js').Order} order */
function decision(order) {
  const origin = order.scenario_source ? ` (from ${order.scenario_source})` : '';
  if (order.settle_at && order.status === 'PENDING') return `Scenario ${order.scenario}${origin}: pending, due to settle at ${formatTime(order.settle_at)}.`;
  return `Scenario ${order.scenario}${origin}.`;
}

/**
 * @param {Context} ctx
 * @param {OrderDetail} detail
 * @returns {TimelineItem[]}
 */
function timelineItems(ctx, detail) {
  const { order, history } = detail;
  const create = detail.journal.find((mention) => mention.direction === 'in' && mention.method === 'POST' && mention.path === '/payment-orders' && mention.status !== null && mention.status < 400);
  /** @type {TimelineItem[]} */
  const items = [];
  const accepted = history[0];
  items.push({
    at: accepted?.at ?? order.created_at,
    rank: 0,
    key: 'accepted',
    title: ['Accepted via ', order.source],
    body: [accepted?.cause ?? '', order.bank_reference ? ` Bank reference ${order.bank_reference}.` : ''],
    signed: create ? () => ctx.api.journalEntry(create.id) : undefined,
  });
  items.push({ at: order.created_at, rank: 1, key: 'decided', title: ['Decided: ', statusBadge(accepted?.status ?? order.status)], body: decision(order) });
  history.slice(1).forEach((change, index) => {
    items.push({
      at: change.at,
      rank: 2,
      key: `status-${index}`,
      title: ['Status ', change.from ? [statusBadge(change.from), ' → '] : null, statusBadge(change.status)],
      body: [change.cause ?? '', change.reason_code ? ` Reason ${change.reason_code}.` : ''],
    });
  });
  for (const callback of detail.messages) {
    callback.attempts.forEach((attempt, index) => {
      const ok = attempt.error === null && attempt.http_status !== null && attempt.http_status < 300;
      items.push({
        at: attempt.at,
        rank: 3,
        key: `attempt-${callback.message_id}-${index}`,
        title: [`Callback attempt ${index + 1} of message ${callback.message_id} (${callback.kind}): `,
          h('span', { class: `callback callback-${ok ? 'ok' : 'error'}` }, attempt.error ?? `HTTP ${attempt.http_status}`)],
        body: h('dl', { class: 'facts' },
          h('dt', {}, 'Latency'), h('dd', {}, attempt.latency_ms === null ? '—' : formatLatency(attempt.latency_ms)),
          h('dt', {}, 'Idempotency key'), h('dd', {}, h('code', {}, callback.idempotency_key)),
          h('dt', {}, 'URL'), h('dd', {}, h('code', {}, attempt.url)),
          attempt.response_excerpt ? [h('dt', {}, 'Answer'), h('dd', {}, h('code', {}, attempt.response_excerpt))] : null,
        ),
        signed: () => attemptEntry(ctx.api, detail, callback, index),
      });
    });
    if (callback.state === 'pending' && callback.attempts.length === 0) {
      items.push({
        at: callback.created_at,
        rank: 3,
        key: `queued-${callback.message_id}`,
        title: `Callback message ${callback.message_id} (${callback.kind}) queued`,
        body: [`Key ${callback.idempotency_key}.`, callback.next_attempt_at ? ` First attempt at ${callback.next_attempt_at}.` : ''],
      });
    }
  }
  return items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.rank - b.rank));
}

/**
 * A "Signed request" disclosure: the journal entry is fetched when it is first opened.
 * @param {TimelineItem} item
 * @param {Set<string>} open keys of the disclosures open before a refresh
 */
function signedDisclosure(item, open) {
  const signed = item.signed;
  if (!signed) return null;
  const slot = h('div', { class: 'signed-slot' });
  const details = h('details', { class: 'signed', 'data-key': item.key }, h('summary', { 'data-focus-key': `summary-${item.key}` }, 'Signed request'), slot);
  let loaded = false;
  const load = async () => {
    if (loaded) return;
    loaded = true;
    replace(slot, h('p', { class: 'muted' }, 'Loading the exchange from the journal…'));
    try {
      const entry = await signed();
      replace(slot, entry ? [exchangePanel(entry), h('p', {}, h('a', { href: `#/journal/${entry.id}` }, `Journal entry ${entry.id}`))] : message('The journal holds no record of this exchange (journal off, pruned, or cleared).', 'note'));
    } catch (error) {
      loaded = false;
      replace(slot, message(`The exchange could not be read: ${/** @type {Error} */ (error).message}`));
    }
  };
  details.addEventListener('toggle', () => {
    if (details.open) {
      open.add(item.key);
      void load();
    } else open.delete(item.key);
  });
  if (open.has(item.key)) {
    details.open = true;
    void load();
  }
  return details;
}

/**
 * @param {Context} ctx
 * @param {HTMLElement} main
 * @param {string[]} params client id, reference
 */
export function orderView(ctx, main, [clientId, reference]) {
  const { api } = ctx;
  const path = `/orders/${seg(clientId)}/${seg(reference)}`;
  let disposed = false;
  /** @type {OrderDetail | null} */
  let detail = null;
  /** Disclosures the user opened: kept open across refreshes. */
  const open = new Set();
  /** The status the "Force outcome" form was built for. */
  let actionsFor = '';

  const summary = h('div');
  const actions = h('div');
  const actionResult = h('div', { class: 'form-status' });
  const timeline = h('ol', { class: 'timeline' });
  const messages = h('div');
  const exchanges = h('ul', { class: 'plain' });
  const status = h('div', { class: 'view-status' });

  replace(main,
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/orders' }, '← Orders')),
    h('h1', {}, `Order ${reference}`),
    status,
    summary,
    actions,
    actionResult,
    h('section', { 'aria-labelledby': 'timeline-title' }, h('h2', { id: 'timeline-title' }, 'Timeline'), timeline),
    h('section', { 'aria-labelledby': 'messages-title' }, h('h2', { id: 'messages-title' }, 'Callback messages'), messages),
    h('section', { 'aria-labelledby': 'exchanges-title' }, h('h2', { id: 'exchanges-title' }, 'Exchanges in the journal'), exchanges),
  );

  /** Force outcome: SUCCESS, or FAILED with a reason code (profile section 7). */
  function outcomeForm() {
    if (!detail) return null;
    const final = isFinal(detail.order.status);
    const outcome = select([['SUCCESS', 'SUCCESS'], ['FAILED', 'FAILED']], 'SUCCESS', { name: 'status', disabled: final });
    const reasonCode = h('input', { type: 'text', name: 'reasonCode', placeholder: 'BUS_INSUFFICIENT_FUNDS', spellcheck: 'false', disabled: final, pattern: '(BUS|TECH)_[A-Z_]+' });
    const reasonMessage = h('input', { type: 'text', name: 'reasonMessage', maxlength: 500, disabled: final });
    const failedOnly = h('div', { class: 'inline-fields', hidden: true }, field('Reason code', reasonCode), field('Reason message (optional)', reasonMessage));
    outcome.addEventListener('change', () => {
      failedOnly.hidden = outcome.value !== 'FAILED';
      reasonCode.required = outcome.value === 'FAILED';
    });
    const result = h('div', { class: 'form-status' });
    const button = h('button', { type: 'submit', disabled: final, 'data-focus-key': 'force-outcome' }, 'Force outcome');
    const form = h('form', { class: 'action-form', 'aria-labelledby': 'outcome-title' },
      h('h2', { id: 'outcome-title' }, 'Settle now'),
      final ? h('p', { class: 'hint' }, `${detail.order.status} is final: a final status never changes.`) : h('p', { class: 'hint' }, 'Settles the order now, exactly as its scheduled settlement would: same outbox, same callback.'),
      h('div', { class: 'inline-fields' }, field('Outcome', outcome), failedOnly, button),
      result,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      /** @type {Record<string, string>} */
      const body = { status: outcome.value };
      if (outcome.value === 'FAILED') {
        body.reasonCode = reasonCode.value.trim();
        if (reasonMessage.value.trim()) body.reasonMessage = reasonMessage.value.trim();
      }
      button.disabled = true;
      try {
        await api.post(`${path}/outcome`, body);
        // The form is rebuilt for the final status: the confirmation lives outside it.
        replace(actionResult, message(`Forced ${outcome.value}: the callback follows as for a scheduled settlement.`, 'success'));
        await refresh();
      } catch (error) {
        button.disabled = false;
        replace(result, message(error instanceof ApiProblem ? error.explain() : String(error)));
      }
    });
    return form;
  }

  /**
   * What a redelivery does now: on wall time the next dispatch pass sends it; a client with a test clock sends
   * nothing until its clock moves (control-plane.md, "Callback messages"), so the note says so and links there.
   * @param {number} messageId
   */
  async function redeliveredNote(messageId) {
    /** @type {{ test_clock: object | null } | null} */
    const owner = await api.get(`/clients/${seg(clientId)}`).catch(() => null);
    if (!owner?.test_clock) return message(`Message ${messageId} will be sent again: same body, same key.`, 'success');
    return h('p', { class: 'message message-success', role: 'status' },
      `Message ${messageId} is pending again (same body, same key): ${clientId} runs on a test clock, so it is sent on the clock's next advance. `,
      h('a', { href: `#/clock/${seg(clientId)}` }, 'Advance the clock'), ' (0 s will do).');
  }

  /**
   * What a Redeliver said, per message, kept across the re-renders its own refresh and the callback events cause,
   * until the message has another attempt (the card then shows it).
   * @type {Map<number, { note: Node, attempts: number }>}
   */
  const redelivered = new Map();

  /** @param {CallbackMessage} callback */
  function messageCard(callback) {
    const kept = redelivered.get(callback.message_id);
    if (kept && kept.attempts !== callback.attempts.length) redelivered.delete(callback.message_id);
    const result = h('span', { class: 'form-status' }, redelivered.get(callback.message_id)?.note ?? null);
    const label = `message-${callback.message_id}-label`;
    return h('li', { class: 'card' },
      h('p', { id: label }, h('strong', {}, `Message ${callback.message_id}`), ` (${callback.kind}) `, statusBadge(callback.state)),
      h('dl', { class: 'facts' },
        h('dt', {}, 'Idempotency key'), h('dd', {}, h('code', {}, callback.idempotency_key)),
        h('dt', {}, 'Attempts'), h('dd', {}, String(callback.attempts.length)),
        callback.next_attempt_at ? [h('dt', {}, 'Next attempt'), h('dd', {}, time(callback.next_attempt_at))] : null,
        callback.delivered_at ? [h('dt', {}, 'Delivered'), h('dd', {}, time(callback.delivered_at))] : null,
        callback.last_error ? [h('dt', {}, 'Last error'), h('dd', {}, callback.last_error)] : null,
      ),
      h('button', {
        type: 'button',
        'aria-describedby': label,
        'data-focus-key': `redeliver-${callback.message_id}`,
        onclick: async () => {
          try {
            await api.post(`/callbacks/${callback.message_id}/redeliver`, {});
            const note = await redeliveredNote(callback.message_id);
            redelivered.set(callback.message_id, { note, attempts: callback.attempts.length });
            replace(result, note);
            refreshSoon();
          } catch (error) {
            replace(result, message(error instanceof ApiProblem ? error.explain() : String(error)));
          }
        },
      }, 'Redeliver'),
      result,
    );
  }

  function render() {
    if (!detail) return;
    const focusKey = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.focusKey : undefined;
    const { order } = detail;
    replace(summary, h('dl', { class: 'summary' },
      h('div', {}, h('dt', {}, 'Status'), h('dd', {}, statusBadge(order.status), order.reason_code ? ` ${order.reason_code}` : '')),
      h('div', {}, h('dt', {}, 'Client'), h('dd', {}, order.client_id)),
      h('div', {}, h('dt', {}, 'Amount'), h('dd', {}, formatAmount(order.total_amount, order.currency))),
      h('div', {}, h('dt', {}, 'Scenario'), h('dd', {}, h('code', {}, order.scenario))),
      h('div', {}, h('dt', {}, 'Source'), h('dd', {}, order.source)),
      h('div', {}, h('dt', {}, 'Bank reference'), h('dd', {}, h('code', {}, order.bank_reference))),
      h('div', {}, h('dt', {}, 'Created'), h('dd', {}, time(order.created_at))),
      h('div', {}, h('dt', {}, order.settle_at ? 'Settles at' : 'Processed'), h('dd', {}, time(order.settle_at ?? order.processed_at))),
    ));
    // Rebuilt only when the status changes: a reason code being typed survives the callback events meanwhile.
    if (actionsFor !== order.status) {
      actionsFor = order.status;
      replace(actions, outcomeForm());
    }
    replace(timeline, timelineItems(ctx, detail).map((item) => h('li', { class: `timeline-item rank-${item.rank}` },
      h('div', { class: 'timeline-time' }, time(item.at)),
      h('div', { class: 'timeline-body' }, h('p', { class: 'timeline-title' }, item.title), h('div', {}, item.body), signedDisclosure(item, open)),
    )));
    replace(messages, detail.messages.length
      ? h('ul', { class: 'cards' }, detail.messages.map(messageCard))
      : message(order.scenario === 'NO_CALLBACK' ? 'No callback: the scenario NO_CALLBACK promises none (reverse polling sees the status).' : 'No callback message yet.', 'note'));
    replace(exchanges, detail.journal.length
      ? detail.journal.map((mention) => h('li', {}, h('a', { href: `#/journal/${mention.id}` }, `${mention.direction === 'in' ? '→ Bank' : 'Bank →'} ${mention.method} ${mention.path}`), ' ', mention.status === null ? 'no answer' : `HTTP ${mention.status}`, mention.code ? [' ', h('span', { class: 'badge badge-failed' }, mention.code)] : null, ' ', time(mention.at)))
      : h('li', { class: 'muted' }, 'None recorded.'));
    // Re-rendered controls take back the focus they had (a keyboard user keeps their place as events arrive).
    if (focusKey) /** @type {HTMLElement | null} */ (main.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`))?.focus();
  }

  async function refresh() {
    try {
      const answer = await api.get(path);
      if (disposed) return;
      detail = answer;
      replace(status);
      render();
    } catch (error) {
      if (disposed) return;
      replace(status, message(error instanceof ApiProblem && error.status === 404 ? `No order ${reference} for ${clientId} (it may have been reset).` : `The order could not be read: ${/** @type {Error} */ (error).message}`));
    }
  }
  const refreshSoon = debounce(() => void refresh(), 150);

  const unsubscribe = ctx.live.subscribe((event) => {
    const data = event.data;
    if (event.type.startsWith('order.')) {
      if (data.client_id === clientId && data.reference === reference) refreshSoon();
    } else if (event.type.startsWith('callback.')) {
      // A batch message's key names no order, so any callback of this client may be one of ours: one GET, debounced.
      if (data.client_id === clientId) refreshSoon();
    } else if ((event.type === 'clock.advanced' && event.client_id === clientId) || event.type === STREAM_OPENED) refreshSoon();
  });

  void refresh();
  return () => {
    disposed = true;
    unsubscribe();
    refreshSoon.cancel();
  };
}
