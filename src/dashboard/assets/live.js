// @ts-check
// The live event stream (GET /sandbox/events, control-plane.md section 6), read with a streaming fetch():
// EventSource cannot send the Authorization header. Each view subscribes to the event types it shows and
// refetches what changed; after a break the stream resumes from the last event id, so nothing is missed. A Bank
// restarted on another store (`:memory:`, a new DATA_DIR) numbers its events from 1 again: asked for an id beyond
// its newest, it answers `stream.reset` (id 0) and then its events from the first, and the page reads again.

/** @typedef {import('./api.js').LiveEvent} LiveEvent */
/** @typedef {'connecting' | 'live' | 'retrying' | 'stopped'} StreamState */

const RETRY_MS = 1500;
/** A local event (never from the Bank): the stream is open, and events from here on will arrive. */
export const STREAM_OPENED = 'stream.opened';
/** From the Bank: the last event id this page had is not from the Bank's store, so what the page shows is stale. */
export const STREAM_RESET = 'stream.reset';

/**
 * Splits Server-Sent Events text into events. Returns the events of the complete blocks and what is left over
 * (an incomplete block waits for the next chunk). Comment lines (heartbeats) are skipped.
 * @param {string} text
 * @returns {{ events: { id: string | null, type: string, data: string }[], rest: string }}
 */
export function parseSse(text) {
  const events = [];
  const normalised = text.replace(/\r\n?/g, '\n');
  const blocks = normalised.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    /** @type {string | null} */
    let id = null;
    let type = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'id') id = value;
      else if (name === 'event') type = value;
      else if (name === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ id, type, data: data.join('\n') });
  }
  return { events, rest };
}

export class LiveEvents {
  /**
   * @param {() => Record<string, string>} authorization the headers that authorise /sandbox
   * @param {(state: StreamState) => void} onState
   * @param {() => void} onUnauthorized
   */
  constructor(authorization, onState, onUnauthorized) {
    this.authorization = authorization;
    this.onState = onState;
    this.onUnauthorized = onUnauthorized;
    /** @type {Set<(event: LiveEvent) => void>} */
    this.listeners = new Set();
    /** @type {string | null} */
    this.lastId = null;
    /** @type {AbortController | null} */
    this.controller = null;
    this.running = false;
  }

  /**
   * Calls `listener` with every event from now on; returns the unsubscribe function.
   * @param {(event: LiveEvent) => void} listener
   */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start() {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  stop() {
    this.running = false;
    this.controller?.abort();
    this.onState('stopped');
  }

  async loop() {
    while (this.running) {
      this.onState(this.lastId === null ? 'connecting' : 'retrying');
      try {
        await this.readOnce();
      } catch (error) {
        if (!this.running) return;
        if (/** @type {Error} */ (error).name === 'AbortError') return;
      }
      if (!this.running) return;
      this.onState('retrying');
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** One connection: reads until the stream ends or fails. */
  async readOnce() {
    this.controller = new AbortController();
    const query = this.lastId === null ? '' : `?last_event_id=${encodeURIComponent(this.lastId)}`;
    const response = await fetch(`/sandbox/events${query}`, {
      headers: { accept: 'text/event-stream', ...this.authorization() },
      signal: this.controller.signal,
      cache: 'no-store',
    });
    if (response.status === 401) {
      this.running = false;
      this.onUnauthorized();
      return;
    }
    if (!response.ok || !response.body) return;
    this.onState('live');
    // The first connection starts with live events only: whatever changed between a view's first read and now
    // is told as one local event, and views read again. (A reconnection resumes from the last id instead.)
    if (this.lastId === null) this.dispatch({ id: null, type: STREAM_OPENED, data: JSON.stringify({ id: 0, type: STREAM_OPENED, at: new Date().toISOString(), client_id: null, data: {} }) });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const { events, rest } = parseSse(pending + value);
      pending = rest;
      for (const raw of events) this.dispatch(raw);
    }
  }

  /** @param {{ id: string | null, type: string, data: string }} raw */
  dispatch(raw) {
    if (raw.id !== null) this.lastId = raw.id;
    /** @type {LiveEvent} */
    let event;
    try {
      event = JSON.parse(raw.data);
    } catch {
      return;
    }
    for (const listener of [...this.listeners]) {
      // One listener may dispose others (a reset mounts the view again): an unsubscribed one hears nothing more.
      if (!this.listeners.has(listener)) continue;
      try {
        listener(event);
      } catch (error) {
        // One view's mistake must not stop the stream for the others.
        setTimeout(() => {
          throw error;
        });
      }
    }
  }
}
