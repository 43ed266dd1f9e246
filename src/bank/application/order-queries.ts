// Read-only views of the Bank's state for the control plane (/sandbox): orders with their history, the
// callback messages the outbox froze for them and every delivery attempt. Times as RFC 3339.
import { formatInstant } from '../../wire/rfc3339';
import { Order } from '../domain/order';
import { OrderFilter, OrderRepository } from '../store/orders';
import { AttemptRow, CallbackRow, OutboxRepository } from '../store/outbox';

export type CallbackState = 'pending' | 'delivered' | 'dead';

const RESPONSE_EXCERPT = 512;

function attemptView(attempt: AttemptRow) {
  return {
    at: formatInstant(attempt.startedAt),
    url: attempt.url,
    http_status: attempt.statusCode,
    error: attempt.error,
    latency_ms: attempt.latencyMs,
    response_excerpt: attempt.responseBody === null ? null : attempt.responseBody.slice(0, RESPONSE_EXCERPT),
  };
}

export interface MessageFilter {
  state: CallbackState | null;
  clientId: string | null;
  /** Cursor: only messages with a smaller id (lists are newest first). */
  beforeId: number | null;
}

export class OrderQueries {
  constructor(private readonly orders: OrderRepository, private readonly outbox: OutboxRepository) {}

  /** Orders newest first; fetch `limit + 1` to know whether there is a next page. */
  search(filter: OrderFilter, limit: number, payloadBudget?: number): { rows: { row: number; order: Order }[]; cut: boolean } {
    return this.orders.search(filter, limit, payloadBudget);
  }

  find(clientId: string, reference: string): Order | undefined {
    return this.orders.find(clientId, reference);
  }

  history(order: Order) {
    return this.orders.history(order.clientId, order.reference).map((entry) => ({
      status: entry.to,
      from: entry.from,
      reason_code: entry.reasonCode,
      cause: entry.cause,
      at: formatInstant(entry.at),
    }));
  }

  /** A message as the control plane shows it, with every attempt. */
  messageView(message: Omit<CallbackRow, 'body'>) {
    return {
      message_id: message.id,
      client_id: message.clientId,
      kind: message.kind,
      idempotency_key: message.idempotencyKey,
      url: message.url,
      state: message.state,
      created_at: formatInstant(message.createdAt),
      next_attempt_at: message.state === 'pending' ? formatInstant(message.nextAttemptAt) : null,
      delivered_at: message.deliveredAt === null ? null : formatInstant(message.deliveredAt),
      last_error: message.lastError,
      attempts: this.outbox.attemptsOf(message.id).map(attemptView),
    };
  }

  /** The callback messages that carried this order's reports. */
  messagesOf(order: Order) {
    return this.outbox.callbacksOfOrder(order.clientId, order.reference).map((message) => this.messageView(message));
  }

  message(messageId: number) {
    const message = this.outbox.find(messageId);
    return message ? this.messageView(message) : undefined;
  }

  /** Messages newest first; fetch `limit + 1` to know whether there is a next page. */
  messages(filter: MessageFilter, limit: number) {
    return this.outbox.listCallbacks(filter, limit).map((message) => this.messageView(message));
  }
}
