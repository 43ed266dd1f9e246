// @ts-check
// Building the page: elements from plain data (text is always set as text, never parsed as HTML, so nothing a
// Connector sends can become markup), the formats every view shares, and copy / download / announce helpers.

/**
 * @typedef {string | number | Node | null | undefined | false} Child
 * @typedef {Child | Child[]} Children1
 * @typedef {Children1 | Children1[]} Children2
 * @typedef {Children2 | Children2[]} Children nested three deep, as views write them
 * @typedef {Record<string, string | number | boolean | null | undefined | EventListener>} Attributes
 */

/**
 * An element with attributes and children: `h('button', { type: 'button', onclick: go }, 'Go')`. An attribute
 * named on… is an event listener; `true` sets an empty attribute; false, null and undefined set nothing.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attributes]
 * @param {...Children} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Node} parent
 * @param {Children[]} children
 */
export function append(parent, children) {
  for (const child of /** @type {Child[]} */ (children.flat(Infinity))) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces what `parent` holds.
 * @param {Node} parent
 * @param {...Children} children
 */
export function replace(parent, ...children) {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}

/** A process-wide counter for ids that tie a label to its control. */
let nextId = 0;
/** @param {string} prefix */
export function uid(prefix) {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/**
 * A labelled control: the label and the control tied by id.
 * @param {string} text
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} control
 * @param {string} [hint]
 */
export function field(text, control, hint) {
  if (!control.id) control.id = uid('field');
  const hintId = hint ? `${control.id}-hint` : null;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: control.id }, text), control, hint ? h('small', { id: hintId, class: 'hint' }, hint) : null);
}

/**
 * A select of `options` ([value, label] pairs), with `selected` chosen.
 * @param {[string, string][]} options
 * @param {string} selected
 * @param {Attributes} [attributes]
 */
export function select(options, selected, attributes = {}) {
  const element = h('select', attributes);
  for (const [value, label] of options) element.appendChild(h('option', { value, selected: value === selected }, label));
  return element;
}

/**
 * RFC 3339 instant as the views show it: date and time to the second, in UTC (the Bank's times and the test
 * clocks are UTC; showing local time would hide a clock's jump).
 * @param {string | null | undefined} instant
 */
export function formatTime(instant) {
  if (!instant) return '';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(instant);
  return match ? `${match[1]} ${match[2]}Z` : instant;
}

/**
 * A time element: short text, the full instant as its datetime and title.
 * @param {string | null | undefined} instant
 */
export function time(instant) {
  if (!instant) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: instant, title: instant }, formatTime(instant));
}

/**
 * @param {string} amount
 * @param {string} currency
 */
export function formatAmount(amount, currency) {
  return `${amount} ${currency}`;
}

/** @param {number | null | undefined} ms */
export function formatLatency(ms) {
  if (ms === null || ms === undefined) return '';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/** @param {string} status PENDING, SUCCESS or FAILED (or a message state) */
export function statusBadge(status) {
  return h('span', { class: `badge badge-${status.toLowerCase()}` }, status);
}

/**
 * A JSON text pretty-printed when it parses, as it is otherwise.
 * @param {string} text
 */
export function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * A block of preformatted text (signature bases, bodies, commands), keyboard-scrollable.
 * @param {string} text
 * @param {string} label what it is, for screen readers
 */
export function codeBlock(text, label) {
  return h('pre', { class: 'code', tabindex: 0, 'aria-label': label }, h('code', {}, text));
}

/** @param {string} message */
export function announce(message) {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A new text node after a tick: screen readers announce a change, even of the same words.
  setTimeout(() => (region.textContent = message), 30);
}

/**
 * Puts text on the clipboard; where the Clipboard API is not allowed (a plain-HTTP host other than localhost),
 * through a selected text area.
 * @param {string} text
 */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = h('textarea', { class: 'visually-hidden', 'aria-hidden': 'true' });
  area.value = text;
  document.body.appendChild(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

/**
 * A "Copy …" button.
 * @param {string} what what is copied, part of the button's name ("Copy client secret")
 * @param {() => string} text
 */
export function copyButton(what, text) {
  return h('button', {
    type: 'button',
    class: 'small',
    onclick: async () => {
      try {
        await copyText(text());
        announce(`${what} copied`);
      } catch {
        announce(`${what} could not be copied; select it and copy it by hand`);
      }
    },
  }, `Copy ${what}`);
}

/**
 * Saves text as a file, from the page itself (a Blob: no request leaves the browser).
 * @param {string} filename
 * @param {string} text
 * @param {string} [type]
 */
export function download(filename, text, type = 'text/plain') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h('a', { href: url, download: filename, class: 'visually-hidden' });
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * A "Download …" button.
 * @param {string} what
 * @param {string} filename
 * @param {() => string} text
 * @param {string} [type]
 */
export function downloadButton(what, filename, text, type) {
  return h('button', { type: 'button', class: 'small', onclick: () => download(filename, text(), type) }, `Download ${what}`);
}

/**
 * Calls `run` at most once per `ms`, after the last call (bursts of events become one reload).
 * @param {() => void} run
 * @param {number} ms
 */
export function debounce(run, ms) {
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  const call = () => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      run();
    }, ms);
  };
  call.cancel = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  return call;
}

/**
 * A message box for a failed action (role alert) or a note.
 * @param {string} text
 * @param {'error' | 'note' | 'success'} [kind]
 */
export function message(text, kind = 'error') {
  return h('p', { class: `message message-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
