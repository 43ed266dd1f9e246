// Read-only views of the Bank's state for inspection (/sandbox): orders with their history, the reports the
// outbox queued for them and the callback messages with every attempt.
import { Order } from '../domain/order';
import { OrderRepository } from '../store/orders';
import { OutboxRepository } from '../store/outbox';

export type CallbackState = 'pending' | 'delivered' | 'dead';

export class OrderQueries {
  constructor(private readonly orders: OrderRepository, private readonly outbox: OutboxRepository) {}

  page(limit: number, offset: number): { total: number; orders: Order[] } {
    return { total: this.orders.count(), orders: this.orders.list(limit, offset) };
  }

  /** Every client's order with this reference (references are unique per client only). */
  byReference(reference: string): Order[] {
    return this.orders.findByReference(reference);
  }

  /** How the order got where it is: status history, queued reports, callback messages and their attempts. */
  trail(order: Order) {
    return {
      history: this.orders.history(order.clientId, order.reference),
      reports: this.outbox.eventsOfOrder(order.clientId, order.reference),
      callback_messages: this.outbox.callbacksOfOrder(order.clientId, order.reference),
    };
  }

  callbacks(state: CallbackState | null, limit: number) {
    return this.outbox.listCallbacks(state, limit);
  }
}
