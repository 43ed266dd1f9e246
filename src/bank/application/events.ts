// Live events of the control plane (control-plane.md section 6). Use cases publish them where things happen;
// the event log stores them in a bounded table and streams them (SSE, wait). Publishing never fails the work.

export const EVENT_TYPES = [
  'order.created',
  'order.status_changed',
  'callback.attempted',
  'callback.delivered',
  'callback.dead',
  'poll.completed',
  'request.refused',
  'clock.advanced',
  'conformance.case_finished',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface EventSink {
  /** `data` holds the ids needed to fetch the full record (client_id, reference, message_id, journal_id …). */
  publish(type: EventType, clientId: string | null, data: Record<string, unknown>): void;
}

/** For a Bank built without an event log (unit tests of a single use case). */
export const NO_EVENTS: EventSink = { publish: () => undefined };
