// Control plane, section 6: live events. `GET /sandbox/events` streams the event log as Server-Sent Events
// (resumable with Last-Event-ID; an id beyond the newest comes from another store and restarts the stream with
// `stream.reset`), and `GET /sandbox/orders/{client_id}/{reference}/wait` answers as soon as an
// order reaches a status, woken by the order's own `order.status_changed` event (no polling interval).
import type { Request, Response } from 'express';
import { ProblemError } from '../../wire/problems';
import { formatInstant } from '../../wire/rfc3339';
import { eventView, StoredEvent } from '../application/event-log';
import { Order } from '../domain/order';
import { ControlArea } from './index';
import { parseQuery, queryEnum, queryInteger, queryText, requestLog } from './http';
import { orderView } from './orders';

/** Small pages: a replay waiting for 'drain' holds at most one page of events. */
const REPLAY_PAGE = 100;
/** A reader this far behind is cut off; it resumes with Last-Event-ID and loses nothing. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const WAIT_DEFAULT_S = 30;
const WAIT_MAX_S = 300;

type AwaitedStatus = 'final' | 'PENDING' | 'SUCCESS' | 'FAILED';

/** One SSE message: `id:`, `event:` and a one-line JSON `data:` (JSON.stringify never writes a raw newline). */
export function sseMessage(event: StoredEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(eventView(event))}\n\n`;
}

/** The event type that tells a reader its Last-Event-ID is not from this store (docs/control-plane.md). */
export const STREAM_RESET = 'stream.reset';

/**
 * Sent first when the asked id is beyond the newest event this Bank has: that id was numbered by another store
 * (the Bank restarted on `:memory:` or a new DATA_DIR), so everything the reader holds is another Bank's. It
 * carries `id: 0`, so a reader that resumes later asks from the start of this store, not from the old id again.
 */
export function resetMessage(askedId: number, newestId: number, at: number): string {
  const data = { id: 0, type: STREAM_RESET, at: formatInstant(at), client_id: null, data: { last_event_id: askedId, newest_event_id: newestId } };
  return `id: 0\nevent: ${STREAM_RESET}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Where the stream resumes: ?last_event_id= or the Last-Event-ID header (null: live events only). */
function resumeFrom(req: Request, fromQuery: number | undefined): number | null {
  if (fromQuery !== undefined) return fromQuery;
  const header = req.headers['last-event-id'];
  if (typeof header !== 'string' || header.trim() === '') return null;
  if (!/^\d{1,15}$/.test(header.trim())) throw new ProblemError('header_invalid', 'Last-Event-ID must be the id of an event this stream sent');
  return Number(header.trim());
}

function reached(order: Order, awaited: AwaitedStatus): boolean {
  return awaited === 'final' ? order.status === 'SUCCESS' || order.status === 'FAILED' : order.status === awaited;
}

function unknownOrder(clientId: string, reference: string): ProblemError {
  return new ProblemError('not_found', `no order "${reference}" for client ${clientId}`);
}

export const eventsArea: ControlArea = (router, deps) => {
  const log = deps.eventLog;

  router.get('/events', (req: Request, res: Response) => {
    const query = parseQuery(req, { client_id: queryText, last_event_id: queryInteger(0, 999_999_999) });
    const clientId = query.client_id ?? null;
    const asked = resumeFrom(req, query.last_event_id);
    // Ids only increase within one store: one beyond the newest was numbered by another, and resuming after it
    // would skip every event this Bank will ever have. Such a reader starts again from this store's first event.
    const newest = asked === null ? 0 : log.newestId();
    const fromAnotherStore = asked !== null && asked > newest;
    const after = fromAnotherStore ? 0 : asked;
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);

    let lastSent = after ?? 0;
    let open = true;
    // While the stored events are replayed, live events are left to the replay: it reads them from the table
    // (they are committed before they are delivered), so nothing is sent twice or out of order.
    let replaying = after !== null;
    /** Writes `text`; false when the socket's buffer is full (the replay then waits for 'drain'). */
    const write = (text: string): boolean => {
      if (!open) return false;
      const more = res.write(text);
      // A reader this far behind holds memory for nothing: destroyed (not ended, which would keep the buffer and
      // the socket until the bytes were read). It resumes with Last-Event-ID and loses nothing.
      if (res.writableLength > MAX_BUFFERED_BYTES) cutOff(res.writableLength);
      return more && open;
    };
    const send = (event: StoredEvent): boolean => {
      if (event.id <= lastSent || (clientId !== null && event.clientId !== clientId)) return true;
      lastSent = event.id;
      return write(sseMessage(event));
    };
    // Subscribed before the replay: nothing committed meanwhile can be missed, and what both deliver is sent
    // once (ids only increase).
    const subscription = log.subscribe(
      (event) => void (replaying || send(event)),
      () => close(),
    );
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), log.heartbeatMs);
    const stop = () => {
      open = false;
      clearInterval(heartbeat);
      subscription.unsubscribe();
    };
    const close = () => {
      if (!open) return;
      stop();
      res.end();
    };
    const cutOff = (pending: number) => {
      if (!open) return;
      stop();
      requestLog(deps.logger, res).warn('event stream reader too slow; stream closed', { pending_bytes: pending, limit_bytes: MAX_BUFFERED_BYTES, last_event_id: lastSent, client_id: clientId });
      res.destroy();
    };
    req.on('close', close);
    res.on('close', close);
    write(': sandbox-bank events\n\n');
    if (fromAnotherStore) write(resetMessage(asked, newest, Date.now()));
    if (replaying) {
      replay().catch((error: unknown) => {
        requestLog(deps.logger, res).warn('event stream replay failed', { error: (error as Error).message, last_event_id: lastSent });
        if (open) {
          stop();
          res.destroy();
        }
      });
    }

    /** Sends the stored events after lastSent a page at a time, waiting for 'drain' whenever the socket is full. */
    async function replay(): Promise<void> {
      for (;;) {
        if (!open) return;
        const page = log.replay(lastSent, clientId, REPLAY_PAGE);
        let waited = false;
        for (const event of page) {
          if (send(event)) continue;
          if (!open) return;
          waited = true;
          await drained();
          if (!open) return;
        }
        // Live once a short page was sent without waiting, in the same tick as its read: every event committed
        // after that read is delivered live. After a wait the table is read again (events committed meanwhile).
        if (page.length < REPLAY_PAGE && !waited) {
          replaying = false;
          return;
        }
      }
    }

    function drained(): Promise<void> {
      return new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  });

  router.get('/orders/:client_id/:reference/wait', (req: Request, res: Response, next) => {
    const query = parseQuery(req, { status: queryEnum<AwaitedStatus>('final', 'PENDING', 'SUCCESS', 'FAILED'), timeout_s: queryInteger(0, WAIT_MAX_S) });
    const awaited = query.status ?? 'final';
    const timeoutS = query.timeout_s ?? WAIT_DEFAULT_S;
    const clientId = String(req.params.client_id);
    const reference = String(req.params.reference);
    const current = deps.queries.find(clientId, reference);
    if (!current) throw unknownOrder(clientId, reference);
    if (reached(current, awaited)) {
      res.json(orderView(current));
      return;
    }
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = (answer: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        subscription.unsubscribe();
        answer();
        resolve();
      };
      const timedOut = () => {
        const order = deps.queries.find(clientId, reference);
        if (!order) return next(unknownOrder(clientId, reference));
        next(
          new ProblemError('wait_timeout', `order "${reference}" of ${clientId} did not reach ${awaited} within ${timeoutS} s; it is ${order.status}`, {
            extensions: { awaited, timeout_s: timeoutS, order: orderView(order) },
          }),
        );
      };
      // Checked first (above), then woken by the order's own status changes: committed ones only.
      const subscription = log.subscribe(
        (event) => {
          if (event.type !== 'order.status_changed' || event.clientId !== clientId || event.data.reference !== reference) return;
          const order = deps.queries.find(clientId, reference);
          if (order && reached(order, awaited)) finish(() => res.json(orderView(order)));
        },
        () => finish(timedOut),
      );
      const timer = setTimeout(() => finish(timedOut), timeoutS * 1000);
      res.on('close', () => finish(() => undefined));
    });
  });
};
