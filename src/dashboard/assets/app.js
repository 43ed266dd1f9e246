// @ts-check
// The dashboard's entry point (docs/dashboard.md): the admin token gate, the live event stream, and a hash
// router over the views. Served by the Bank at /dashboard/ (src/bank/http/dashboard.ts); every datum comes from
// the control plane (/sandbox) and its event stream, with the token kept for this tab only (sessionStorage).
import { Api, ApiProblem } from './api.js';
import { LiveEvents, STREAM_RESET } from './live.js';
import { announce, field, h, message, replace } from './dom.js';
import { ordersView } from './orders-view.js';
import { orderView } from './order-view.js';
import { journalView, journalEntryView } from './journal-view.js';
import { clientsView } from './clients-view.js';
import { clockView } from './clock-view.js';
import { conformanceView, conformanceRunView } from './conformance-view.js';

/**
 * @typedef {'token' | 'open' | 'disabled'} AdminMode
 * @typedef {{ api: Api, live: LiveEvents, mode: AdminMode, navigate: (hash: string) => void }} Context
 * @typedef {(ctx: Context, main: HTMLElement, params: string[]) => (() => void) | void} View
 */

const TOKEN_KEY = 'sandbox-bank-admin-token';

/** @type {[RegExp, string, View][]} */
const ROUTES = [
  [/^#\/orders\/([^/]+)\/([^/]+)$/, 'orders', orderView],
  [/^#\/orders$/, 'orders', ordersView],
  [/^#\/journal\/(\d+)$/, 'journal', journalEntryView],
  [/^#\/journal$/, 'journal', journalView],
  [/^#\/clients$/, 'clients', clientsView],
  [/^#\/clock(?:\/([^/]+))?$/, 'clock', clockView],
  [/^#\/conformance\/([^/]+)$/, 'conformance', conformanceRunView],
  [/^#\/conformance$/, 'conformance', conformanceView],
];

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const liveBadge = /** @type {HTMLElement} */ (document.getElementById('live'));
const signOut = /** @type {HTMLButtonElement} */ (document.getElementById('sign-out'));

/** @returns {AdminMode} */
function adminMode() {
  const content = document.querySelector('meta[name="sandbox-bank-admin"]')?.getAttribute('content');
  return content === 'open' || content === 'disabled' ? content : 'token';
}

/** @type {{ ctx: Context, dispose: (() => void) | null } | null} */
let session = null;

/** @param {import('./live.js').StreamState} state */
function showStreamState(state) {
  liveBadge.hidden = state === 'stopped';
  liveBadge.className = `live live-${state}`;
  liveBadge.textContent = state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Reconnecting…';
}

/** @param {string} hash */
function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/**
 * An address of a view starts with `#/`; any other fragment (the skip link's `#main`) is a place on the page,
 * not a view, and leaves the view as it is.
 * @param {string} hash
 */
const isViewAddress = (hash) => hash.startsWith('#/');

/** Mounts the view the address names (Orders when it names none). */
function route() {
  if (!session) return;
  const hash = isViewAddress(location.hash) ? location.hash : '#/orders';
  const found = ROUTES.map(([pattern, name, view]) => ({ match: pattern.exec(hash), name, view })).find((candidate) => candidate.match);
  session.dispose?.();
  session.dispose = null;
  replace(main);
  if (!found || !found.match) {
    replace(main, h('h1', { tabindex: -1 }, 'Not found'), h('p', {}, 'No view at this address. ', h('a', { href: '#/orders' }, 'Go to the orders.')));
    return;
  }
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.view === found.name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const params = found.match.slice(1).map((part) => (part === undefined ? '' : decodeURIComponent(part)));
  session.dispose = found.view(session.ctx, main, params) ?? null;
}

/** After a navigation, the view's heading takes the focus (keyboard and screen-reader users start there). */
function focusHeading() {
  const heading = main.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: false });
  }
}

/** @param {string | null} token */
function startSession(token) {
  const mode = adminMode();
  const api = new Api(token, () => refused());
  const live = new LiveEvents(() => api.authorization(), showStreamState, () => refused());
  session = { ctx: { api, live, mode, navigate }, dispose: null };
  // The Bank's store is not the one this page read (it restarted on `:memory:` or a new DATA_DIR): everything on
  // the page may be another Bank's, so the view is mounted again from what this Bank has.
  live.subscribe((event) => {
    if (event.type !== STREAM_RESET) return;
    const hadFocus = main.contains(document.activeElement);
    route();
    if (hadFocus) focusHeading();
    announce('The Bank started again on another store: the page shows what it has now.');
  });
  nav.hidden = false;
  signOut.hidden = token === null;
  live.start();
  route();
}

function endSession() {
  if (!session) return;
  session.dispose?.();
  session.ctx.live.stop();
  session = null;
  nav.hidden = true;
  signOut.hidden = true;
  liveBadge.hidden = true;
}

/** The Bank refused the token in the middle of a session (changed, or the Bank restarted with another one). */
function refused() {
  if (!session) return;
  endSession();
  sessionStorage.removeItem(TOKEN_KEY);
  showTokenForm('The Bank refused the admin token. Type the current ADMIN_TOKEN.');
}

/** @param {string} [problem] why the form is shown again */
function showTokenForm(problem) {
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, spellcheck: 'false' });
  const status = h('div', { class: 'form-status' }, problem ? message(problem) : null);
  const form = h('form', { class: 'token-form', 'aria-labelledby': 'token-title' },
    h('h1', { id: 'token-title' }, 'Admin token required'),
    h('p', {}, 'This Bank guards its control plane with ADMIN_TOKEN. The dashboard sends it as a Bearer token with every call and keeps it in this tab only: closing the tab forgets it.'),
    field('Admin token', input),
    h('button', { type: 'submit' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    replace(status, message('Checking the token…', 'note'));
    try {
      await new Api(token, () => undefined).get('/clients?limit=1');
    } catch (error) {
      const refusedToken = error instanceof ApiProblem && error.status === 401;
      replace(status, message(refusedToken ? 'The Bank refused this token.' : `The Bank could not be reached: ${/** @type {Error} */ (error).message}`));
      input.focus();
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    startSession(token);
    focusHeading();
  });
  replace(main, form);
  input.focus();
}

function showDisabled() {
  replace(main,
    h('h1', {}, 'The control plane is off'),
    h('p', {}, 'This Bank runs in strict mode without ADMIN_TOKEN, so /sandbox (and this dashboard with it) is disabled.'),
    h('p', {}, 'Start the Bank with ADMIN_TOKEN=<a secret> to use the dashboard with that token, or with SANDBOX_MODE=relaxed for an open sandbox on your machine.'),
  );
}

signOut.addEventListener('click', () => {
  endSession();
  sessionStorage.removeItem(TOKEN_KEY);
  showTokenForm();
});

window.addEventListener('hashchange', () => {
  if (!isViewAddress(location.hash) && location.hash !== '') return;
  route();
  focusHeading();
});

// The skip link moves the focus to the main region and changes neither the address nor the view.
document.querySelector('a.skip-link')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

function boot() {
  const mode = adminMode();
  if (mode === 'disabled') return showDisabled();
  if (mode === 'open') return startSession(null);
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) startSession(token);
  else showTokenForm();
}

boot();
