// @ts-check
// Conformance (conformance.md): "Run conformance" for a client's Connector, the runs so far, and one run live,
// case by case (conformance.case_finished events, and a poll while the run is running), with its HTML and JUnit
// reports.
import { ApiProblem, queryString, seg } from './api.js';
import { STREAM_OPENED } from './live.js';
import { copyButton, debounce, download, field, formatLatency, h, message, replace, select, statusBadge, time } from './dom.js';

/**
 * @typedef {import('./api.js').ConformanceRun} ConformanceRun
 * @typedef {import('./app.js').Context} Context
 */

const POLL_MS = 2000;

/** @param {import('./api.js').RunSummary} summary */
function counts(summary) {
  /** @param {number} count @param {string} kind @param {string} text */
  const badge = (count, kind, text) => h('span', { class: `badge badge-${count === 0 ? 'none' : kind}` }, text);
  return h('span', { class: 'counts' },
    badge(summary.passed, 'passed', `${summary.passed} passed`),
    badge(summary.failed, 'failed', `${summary.failed} failed`),
    badge(summary.warning, 'warning', `${summary.warning} warning${summary.warning === 1 ? '' : 's'}`),
    badge(summary.skipped, 'skipped', `${summary.skipped} skipped`),
  );
}

/**
 * @param {Context} ctx
 * @param {HTMLElement} main
 */
export function conformanceView(ctx, main) {
  const { api } = ctx;
  let disposed = false;
  const clientSelect = select([], '', { name: 'client_id', required: true });
  const windowS = h('input', { type: 'number', name: 'window_s', min: 1, max: 600, step: 1, placeholder: '15', inputmode: 'numeric' });
  const formStatus = h('div', { class: 'form-status' });
  const runs = h('tbody');
  const status = h('div', { class: 'view-status' });
  const form = h('form', { class: 'action-form', 'aria-labelledby': 'run-title' },
    h('h2', { id: 'run-title' }, 'Judge a Connector'),
    h('p', { class: 'hint' }, 'The Bank plays every case against the client\'s registered Connector: pulls and callbacks it signs well and badly, then watches the Connector\'s own requests during the window.'),
    h('div', { class: 'inline-fields' }, field('Client', clientSelect), field('Window (seconds)', windowS, 'how long client.* cases watch; default 15'), h('button', { type: 'submit' }, 'Run conformance')),
    formStatus,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    /** @type {Record<string, unknown>} */
    const body = { client_id: clientSelect.value };
    if (windowS.value.trim()) body.window_s = Number(windowS.value);
    try {
      /** @type {ConformanceRun} */
      const run = await api.post('/conformance-runs', body);
      ctx.navigate(`#/conformance/${seg(run.id)}`);
    } catch (error) {
      replace(formStatus, message(error instanceof ApiProblem ? error.explain() : String(error)));
    }
  });

  replace(main,
    h('h1', {}, 'Conformance'),
    form,
    h('section', { 'aria-labelledby': 'runs-title' },
      h('h2', { id: 'runs-title' }, 'Runs'),
      status,
      h('div', { class: 'table-wrap' }, h('table', { class: 'data' },
        h('caption', { class: 'visually-hidden' }, 'Conformance runs, newest first'),
        h('thead', {}, h('tr', {}, ...['Run', 'Client', 'Started', 'State', 'Results'].map((name) => h('th', { scope: 'col' }, name)))),
        runs))),
  );

  api.clients().then((clients) => {
    if (disposed) return;
    const sorted = [...clients].sort((a, b) => Number(b.connector !== null) - Number(a.connector !== null));
    for (const client of sorted) clientSelect.appendChild(h('option', { value: client.client_id }, client.connector ? client.client_id : `${client.client_id} (no Connector)`));
  }).catch(() => undefined);

  async function reload() {
    try {
      /** @type {import('./api.js').Page<ConformanceRun>} */
      const page = await api.get(`/conformance-runs${queryString({ limit: 20 })}`);
      if (disposed) return;
      replace(runs, page.data.map((run) => h('tr', { class: run.summary.failed > 0 ? 'refused' : '' },
        h('td', { 'data-label': 'Run' }, h('a', { href: `#/conformance/${seg(run.id)}` }, run.id)),
        h('td', { 'data-label': 'Client' }, run.client_id),
        h('td', { 'data-label': 'Started' }, time(run.started_at)),
        h('td', { 'data-label': 'State' }, statusBadge(run.state)),
        h('td', { 'data-label': 'Results' }, counts(run.summary)),
      )));
      replace(status, page.data.length ? null : message('No run yet.', 'note'));
    } catch (error) {
      if (!disposed) replace(status, message(`The runs could not be read: ${/** @type {Error} */ (error).message}`));
    }
  }
  const reloadSoon = debounce(() => void reload(), 300);
  const unsubscribe = ctx.live.subscribe((event) => {
    if (event.type === 'conformance.case_finished' || event.type === STREAM_OPENED) reloadSoon();
  });
  void reload();
  return () => {
    disposed = true;
    unsubscribe();
    reloadSoon.cancel();
  };
}

/**
 * One run, live.
 * @param {Context} ctx
 * @param {HTMLElement} main
 * @param {string[]} params the run id
 */
export function conformanceRunView(ctx, main, [id]) {
  const { api } = ctx;
  let disposed = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let pollTimer = null;
  const head = h('div');
  const orders = h('div');
  const reports = h('div');
  const cases = h('tbody');
  const status = h('div', { class: 'view-status' });
  replace(main,
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/conformance' }, '← Conformance')),
    h('h1', {}, `Conformance run ${id}`),
    status,
    head,
    orders,
    reports,
    h('section', { 'aria-labelledby': 'cases-title' },
      h('h2', { id: 'cases-title' }, 'Cases'),
      h('div', { class: 'table-wrap' }, h('table', { class: 'data cases' },
        h('caption', { class: 'visually-hidden' }, 'Cases as they finish'),
        h('thead', {}, h('tr', {}, ...['Case', 'Verdict', 'Expected', 'Seen', 'Duration'].map((name) => h('th', { scope: 'col' }, name)))),
        cases))),
  );

  /** @param {ConformanceRun} run */
  function reportLinks(run) {
    const save = (/** @type {string} */ link, /** @type {string} */ file, /** @type {string} */ type) => async () => {
      try {
        download(file, await api.text(link), type);
      } catch (error) {
        replace(status, message(`The report could not be read: ${/** @type {Error} */ (error).message}`));
      }
    };
    return h('section', { 'aria-labelledby': 'reports-title' },
      h('h2', { id: 'reports-title' }, 'Reports'),
      run.state === 'running' ? h('p', { class: 'hint' }, 'The reports are complete once the run has finished.') : null,
      h('div', { class: 'buttons' },
        // Without a token a plain link opens the report; with one, the page fetches it (a link cannot send the token).
        ctx.mode === 'open' ? h('a', { href: run.links.report, target: '_blank', rel: 'noopener' }, 'Open the HTML report') : null,
        h('button', { type: 'button', class: 'secondary', onclick: save(run.links.report, `conformance-${run.id}.html`, 'text/html') }, 'Download the HTML report'),
        h('button', { type: 'button', class: 'secondary', onclick: save(run.links.junit, `conformance-${run.id}.xml`, 'application/xml') }, 'Download JUnit XML'),
      ),
    );
  }

  /** @param {ConformanceRun} run */
  function render(run) {
    const results = run.results ?? [];
    const finished = results.length;
    replace(head, h('div', { class: 'panel' },
      h('dl', { class: 'summary' },
        h('div', {}, h('dt', {}, 'State'), h('dd', {}, statusBadge(run.state))),
        h('div', {}, h('dt', {}, 'Client'), h('dd', {}, run.client_id)),
        h('div', {}, h('dt', {}, 'Connector'), h('dd', {}, h('code', {}, run.connector_url ?? '—'))),
        h('div', {}, h('dt', {}, 'Started'), h('dd', {}, time(run.started_at))),
        h('div', {}, h('dt', {}, 'Finished'), h('dd', {}, time(run.finished_at))),
      ),
      h('p', {}, h('label', { for: 'run-progress' }, `${finished} of ${run.cases.length} cases finished`)),
      h('progress', { id: 'run-progress', max: run.cases.length || 1, value: finished }),
      counts(run.summary),
      run.error ? message(`The run stopped: ${run.error}`) : null,
    ));
    replace(orders, run.state === 'running' && run.client_orders.length ? h('section', { class: 'panel', 'aria-labelledby': 'push-title' },
      h('h2', { id: 'push-title' }, `Push these orders within ${run.window_s} s`),
      h('p', { class: 'hint' }, 'The client.* cases judge the Connector\'s own requests: have it create these orders (signed, with their sandbox_scenario) while the window is open.'),
      h('ul', { class: 'plain' }, run.client_orders.map((order) => h('li', {}, h('code', {}, order.reference), ` ${order.sandbox_scenario} for ${order.case} `, copyButton(`order ${order.reference}`, () => JSON.stringify(order.order, null, 2))))),
    ) : null);
    replace(reports, reportLinks(run));
    replace(cases, results.map((result) => h('tr', { class: result.verdict === 'FAILED' ? 'refused' : '' },
      h('td', { 'data-label': 'Case' }, h('code', {}, result.id), h('br'), h('small', { class: 'muted' }, result.clause)),
      h('td', { 'data-label': 'Verdict' }, statusBadge(result.verdict)),
      h('td', { 'data-label': 'Expected' }, result.expected),
      h('td', { 'data-label': 'Seen' }, result.seen, result.reason ? h('small', { class: 'hint' }, result.reason) : null),
      h('td', { 'data-label': 'Duration' }, formatLatency(result.duration_ms)),
    )));
  }

  async function refresh() {
    try {
      /** @type {ConformanceRun} */
      const run = await api.get(`/conformance-runs/${seg(id)}`);
      if (disposed) return;
      replace(status);
      render(run);
      if (pollTimer !== null) clearTimeout(pollTimer);
      // Events say when a case ends; the poll also sees the run itself end (and covers a broken stream).
      pollTimer = run.state === 'running' ? setTimeout(() => void refresh(), POLL_MS) : null;
    } catch (error) {
      if (!disposed) replace(status, message(error instanceof ApiProblem && error.status === 404 ? `No conformance run ${id} (deleted or pruned).` : `The run could not be read: ${/** @type {Error} */ (error).message}`));
    }
  }
  const refreshSoon = debounce(() => void refresh(), 150);
  const unsubscribe = ctx.live.subscribe((event) => {
    if ((event.type === 'conformance.case_finished' && event.data.run_id === id) || event.type === STREAM_OPENED) refreshSoon();
  });
  void refresh();
  return () => {
    disposed = true;
    unsubscribe();
    refreshSoon.cancel();
    if (pollTimer !== null) clearTimeout(pollTimer);
  };
}
