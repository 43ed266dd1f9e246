// @ts-check
// Test clocks (control-plane.md section 3), one client at a time: the clock's time, "Advance clock" by seconds
// or by a preset (1 min, 1 h, 1 day), attach and detach, what the last advance fired, and the client's pending
// orders with the time each is due. Business time moves; security stays on the wall clock.
import { ApiProblem, queryString, seg } from './api.js';
import { STREAM_OPENED } from './live.js';
import { debounce, field, h, message, replace, select, statusBadge, time } from './dom.js';

/**
 * @typedef {import('./api.js').ClockView} ClockView
 * @typedef {import('./api.js').AdvanceReport} AdvanceReport
 * @typedef {import('./app.js').Context} Context
 */

const PRESETS = /** @type {const} */ ([['1 min', 60], ['1 h', 3600], ['1 day', 86400]]);

/** The client last looked at: the Clock view opens on it again. */
let lastClient = '';

/** @param {AdvanceReport} report */
function reportView(report) {
  const fired = report.fired;
  return h('div', { class: 'panel', role: 'status' },
    h('p', {}, 'Moved from ', time(report.from), ' to ', time(report.to), '. ', fired.length === 0 ? 'Nothing was due.' : `${fired.length} thing${fired.length === 1 ? '' : 's'} fired, in time order:`),
    fired.length ? h('ol', {}, fired.map((item) => h('li', {},
      time(item.at), ' ',
      item.kind === 'settlement' ? ['settlement of ', item.reference ?? '', ' → ', item.status ? statusBadge(item.status) : ''] : ['callback delivery', item.attempts !== undefined ? ` (${item.attempts} attempt${item.attempts === 1 ? '' : 's'})` : ''],
    ))) : null,
    report.idempotency_records_expired ? h('p', { class: 'hint' }, `${report.idempotency_records_expired} idempotency records expired.`) : null,
  );
}

/**
 * @param {Context} ctx
 * @param {HTMLElement} main
 * @param {string[]} params the client id, when the address names one
 */
export function clockView(ctx, main, [clientParam]) {
  const { api } = ctx;
  let disposed = false;
  let clientId = clientParam || lastClient;
  /** @type {ClockView | null} */
  let clock = null;
  /** @type {AdvanceReport | null} */
  let lastReport = null;
  /** What the Seconds field holds, kept when the panel is drawn again. */
  let secondsTyped = '60';
  /** An advance under way: the Bank makes an attach or a detach wait for it, so the page offers neither meanwhile. */
  let advancing = false;

  const clientSelect = select([], '', { name: 'client_id' });
  const panel = h('div');
  const pending = h('div');
  const status = h('div', { class: 'view-status' });
  replace(main,
    h('h1', {}, 'Clock'),
    h('p', { class: 'hint' }, 'A test clock freezes a client\'s business time; it moves only when told, and everything due up to the new time fires before the answer. Tokens, X-Timestamp and nonces stay on the wall clock.'),
    h('form', { class: 'filters', 'aria-label': 'Choose a client', onsubmit: (/** @type {Event} */ event) => event.preventDefault() }, field('Client', clientSelect)),
    status,
    panel,
    h('section', { 'aria-labelledby': 'due-title' }, h('h2', { id: 'due-title' }, 'Pending orders of this client'), pending),
  );

  clientSelect.addEventListener('change', () => {
    clientId = clientSelect.value;
    lastClient = clientId;
    lastReport = null;
    history.replaceState(null, '', `#/clock/${seg(clientId)}`);
    void loadClock();
    void loadPending();
  });

  /** @param {string} text */
  const failed = (text) => replace(status, message(text));

  async function loadClock() {
    if (!clientId) return;
    try {
      // The client's own view says whether it has a test clock (null: wall time), so no 404 is asked for.
      /** @type {{ test_clock: { now: string, attached_at: string } | null }} */
      const client = await api.get(`/clients/${seg(clientId)}`);
      clock = client.test_clock && { client_id: clientId, ...client.test_clock };
    } catch (error) {
      return failed(`The clock could not be read: ${/** @type {Error} */ (error).message}`);
    }
    if (!disposed) render();
  }

  async function loadPending() {
    if (!clientId) return;
    try {
      /** @type {import('./api.js').Page<import('./api.js').Order>} */
      const page = await api.get(`/orders${queryString({ client_id: clientId, status: 'PENDING', limit: 20 })}`);
      if (disposed) return;
      replace(pending, page.data.length === 0 ? message('None.', 'note') : h('ul', { class: 'plain' }, page.data.map((order) => h('li', {},
        h('a', { href: `#/orders/${seg(order.client_id)}/${seg(order.reference)}` }, order.reference), ' ', h('code', {}, order.scenario), ' ',
        order.settle_at ? ['due at ', time(order.settle_at)] : h('span', { class: 'muted' }, 'settles when read (reverse polling) or forced'),
      ))));
    } catch (error) {
      if (!disposed) replace(pending, message(`The orders could not be read: ${/** @type {Error} */ (error).message}`));
    }
  }
  const loadPendingSoon = debounce(() => void loadPending(), 200);
  const loadClockSoon = debounce(() => void loadClock(), 200);

  /** @param {number} seconds */
  async function advance(seconds) {
    advancing = true;
    render();
    replace(status, message(`Advancing ${seconds} s: everything due fires before the answer…`, 'note'));
    try {
      lastReport = await api.post(`/clients/${seg(clientId)}/clock/advance`, { seconds });
      replace(status);
    } catch (error) {
      failed(error instanceof ApiProblem ? error.explain() : String(error));
    } finally {
      advancing = false;
    }
    await loadClock();
    await loadPending();
  }

  function render() {
    replace(status);
    const attached = clock !== null;
    const idle = attached && !advancing;
    const seconds = h('input', { type: 'number', name: 'seconds', min: 0, max: 31536000, step: 1, value: secondsTyped, required: true, disabled: !idle, inputmode: 'numeric' });
    seconds.addEventListener('input', () => (secondsTyped = seconds.value));
    const advanceForm = h('form', { class: 'action-form', 'aria-labelledby': 'advance-title' },
      h('h2', { id: 'advance-title' }, 'Advance'),
      attached ? null : h('p', { class: 'hint' }, 'Attach a test clock first.'),
      h('div', { class: 'inline-fields' },
        field('Seconds', seconds),
        h('button', { type: 'submit', disabled: !idle }, 'Advance clock'),
        ...PRESETS.map(([label, value]) => h('button', { type: 'button', class: 'secondary', disabled: !idle, onclick: () => void advance(value) }, `+${label}`)),
      ),
    );
    advanceForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = Number(seconds.value);
      if (Number.isFinite(value) && value >= 0) void advance(value);
    });

    const frozenAt = h('input', { type: 'text', name: 'frozen_at', placeholder: '2026-11-22T12:00:00Z', spellcheck: 'false', pattern: '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z' });
    const attachForm = h('form', { class: 'action-form', 'aria-labelledby': 'attach-title' },
      h('h2', { id: 'attach-title' }, 'Attach a test clock'),
      h('div', { class: 'inline-fields' }, field('Frozen at (optional)', frozenAt, 'RFC 3339 UTC; empty: now'), h('button', { type: 'submit' }, 'Attach test clock')),
    );
    attachForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        clock = await api.post(`/clients/${seg(clientId)}/clock`, frozenAt.value.trim() ? { frozen_at: frozenAt.value.trim() } : {});
        render();
      } catch (error) {
        failed(error instanceof ApiProblem ? error.explain() : String(error));
      }
    });

    const detach = h('button', {
      type: 'button',
      class: 'secondary',
      disabled: advancing,
      onclick: async () => {
        // An advance that ends while the detach waits keeps its report on the page.
        const reportBefore = lastReport;
        try {
          await api.delete(`/clients/${seg(clientId)}/clock`);
          clock = null;
          if (lastReport === reportBefore) lastReport = null;
          render();
        } catch (error) {
          failed(error instanceof ApiProblem ? error.explain() : String(error));
        }
      },
    }, 'Detach test clock');

    replace(panel,
      h('section', { class: 'panel', 'aria-labelledby': 'now-title' },
        h('h2', { id: 'now-title' }, `${clientId}'s time`),
        attached && clock
          ? [h('p', { class: 'clock-now' }, time(clock.now)), h('p', { class: 'hint' }, 'Test clock attached at ', time(clock.attached_at), '.'), detach]
          : h('p', {}, `No test clock: ${clientId} runs on the Bank's wall time.`),
      ),
      attached ? null : attachForm,
      advanceForm,
      lastReport ? reportView(lastReport) : null,
    );
  }

  const unsubscribe = ctx.live.subscribe((event) => {
    if (event.type === STREAM_OPENED) return loadPendingSoon();
    if (event.client_id !== clientId) return;
    if (event.type === 'clock.advanced') loadClockSoon();
    if (event.type.startsWith('order.') || event.type === 'clock.advanced') loadPendingSoon();
  });

  api.clients().then((clients) => {
    if (disposed) return;
    if (clients.length === 0) {
      replace(panel, message('No client is registered yet (Clients view).', 'note'));
      return;
    }
    if (!clients.some((client) => client.client_id === clientId)) clientId = clients[0].client_id;
    lastClient = clientId;
    for (const client of clients) clientSelect.appendChild(h('option', { value: client.client_id, selected: client.client_id === clientId }, client.client_id));
    void loadClock();
    void loadPending();
  }).catch((error) => failed(`The clients could not be read: ${/** @type {Error} */ (error).message}`));

  return () => {
    disposed = true;
    unsubscribe();
    loadPendingSoon.cancel();
    loadClockSoon.cancel();
  };
}
