// The event log (control-plane.md section 6): what use cases publish goes into a bounded table of its own, and
// in-process subscribers (the SSE stream, `wait`) hear of it once it is committed.
//
// publish() may run inside a business transaction (a create, a settlement): it only inserts the row, in that
// transaction, and schedules a delivery on setImmediate. The delivery reads the rows after the last one
// delivered, so an event whose transaction rolled back is never streamed (its row is gone), and subscribers see
// events in id order exactly once.
import type { Logger } from 'winston';
import { Clock } from '../../wire/clock';
import { formatInstant } from '../../wire/rfc3339';
import { EventRepository, EventRow } from '../store/events';
import { EventSink, EventType } from './events';

/** An event as stored and streamed. */
export interface StoredEvent {
  id: number;
  at: number;
  type: EventType;
  clientId: string | null;
  data: Record<string, unknown>;
}

/** Told of every committed event, in id order. */
export type EventListener = (event: StoredEvent) => void;

export interface Subscription {
  unsubscribe(): void;
}

export interface EventLogOptions {
  /** How many events the table keeps (the newest). */
  retention: number;
  /** Interval of the SSE heartbeat comment. */
  heartbeatMs?: number;
}

export const DEFAULT_HEARTBEAT_MS = 15_000;
const DELIVERY_PAGE = 1000;

/** The event as the control plane shows it: the `data:` of an SSE message, and one item of a replay. */
export function eventView(event: StoredEvent) {
  return { id: event.id, type: event.type, at: formatInstant(event.at), client_id: event.clientId, data: event.data };
}

function storedEvent(row: EventRow): StoredEvent {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(row.data) as Record<string, unknown>;
  } catch {
    data = {};
  }
  return { id: row.id, at: row.at, type: row.type as EventType, clientId: row.clientId, data };
}

export class EventLog implements EventSink {
  readonly heartbeatMs: number;
  private readonly listeners = new Map<EventListener, (() => void) | undefined>();
  private lastDelivered: number;
  private prunedUpTo = 0;
  private scheduled = false;
  private closed = false;
  /** Prune once this many rows are over the retention: one DELETE per many publishes, not one each. */
  private readonly pruneSlack: number;

  constructor(
    private readonly repo: EventRepository,
    private readonly clock: Clock,
    private readonly logger: Logger | null,
    private readonly options: EventLogOptions,
  ) {
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.lastDelivered = repo.lastId();
    this.pruneSlack = Math.max(1, Math.min(1000, Math.ceil(options.retention / 100)));
  }

  /** One prepared INSERT (in the caller's transaction, if any); never throws into the caller's work. */
  publish(type: EventType, clientId: string | null, data: Record<string, unknown>): void {
    if (this.closed) return;
    try {
      this.repo.insert(this.clock.now(), type, clientId, JSON.stringify(data));
    } catch (error) {
      this.logger?.warn('event not recorded', { type, client_id: clientId, error: (error as Error).message });
      return;
    }
    this.schedule();
  }

  /** `listener` hears every event committed from now on; `onClose` is called when the log closes. */
  subscribe(listener: EventListener, onClose?: () => void): Subscription {
    this.listeners.set(listener, onClose);
    return { unsubscribe: () => void this.listeners.delete(listener) };
  }

  /** Stored events after `afterId`, oldest first (of one client when given): what Last-Event-ID resumes. */
  replay(afterId: number, clientId: string | null, limit: number): StoredEvent[] {
    return this.repo.after(afterId, limit, clientId).map(storedEvent);
  }

  /** The id of the newest stored event (0: none yet). A Last-Event-ID above it was numbered by another store. */
  newestId(): number {
    return this.repo.lastId();
  }

  /** How many subscribers are listening (streams and waits). */
  get subscribers(): number {
    return this.listeners.size;
  }

  /** Delivers what is committed now, synchronously (the scheduled delivery does the same). */
  deliver(): void {
    this.scheduled = false;
    if (this.closed) return;
    try {
      if (this.listeners.size === 0) {
        this.lastDelivered = this.repo.lastId();
      } else {
        for (;;) {
          const rows = this.repo.after(this.lastDelivered, DELIVERY_PAGE);
          for (const row of rows) {
            this.lastDelivered = row.id;
            const event = storedEvent(row);
            for (const listener of [...this.listeners.keys()]) {
              try {
                listener(event);
              } catch (error) {
                this.logger?.warn('event subscriber failed', { type: event.type, error: (error as Error).message });
              }
            }
          }
          if (rows.length < DELIVERY_PAGE) break;
        }
      }
      this.prune();
    } catch (error) {
      this.logger?.warn('event delivery failed', { error: (error as Error).message });
    }
  }

  /** Ends every subscription now (streams end, waits answer) while events are still recorded: a Bank stopping. */
  endSubscriptions(): void {
    const closers = [...this.listeners.values()];
    this.listeners.clear();
    for (const onClose of closers) onClose?.();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.endSubscriptions();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.deliver());
  }

  private prune(): void {
    const keepFrom = this.lastDelivered - this.options.retention;
    if (keepFrom - this.prunedUpTo < this.pruneSlack) return;
    this.repo.pruneUpTo(keepFrom);
    this.prunedUpTo = keepFrom;
  }
}
