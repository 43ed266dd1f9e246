// GET /payment-orders/{orderId}/status: the 2.3 object with processed_at (as in a unit callback). Due orders
// settle lazily here.
import { OrderBook } from '../../application/order-book';
import { statusReportOf } from '../../domain/order';
import { statusObject } from '../../../wire/status-object';
import { Exchange, requireClient } from '../exchange';
import { FlowResult, jsonResult } from '../flow';
import { ProblemError } from '../../../wire/problems';

/** The orderId path segment, percent-decoded; a malformed escape names no order. */
function decodeOrderId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ProblemError('order_not_found', `"${raw}" is not a valid percent-encoded order id`);
  }
}

export function orderStatusHandler(book: OrderBook) {
  return (exchange: Exchange): FlowResult => {
    const client = requireClient(exchange);
    const orderId = decodeOrderId(String(exchange.req.res?.locals.rawOrderId ?? ''));
    const found = book.find(client.id, orderId);
    // Another client's order answers exactly like an unknown one: never reveal that it exists.
    if (!found) throw new ProblemError('order_not_found', `no order "${orderId}" for client ${client.id}`);
    const polled = book.poll(found);
    if (polled.answer === 'not_found') throw new ProblemError('order_not_found', `no order "${orderId}" for client ${client.id}`);
    if (polled.answer === 'throttled') {
      throw new ProblemError('rate_limited', 'injected by the scenario POLL_429: this poll is throttled; retry after the delay', { headers: { 'Retry-After': '2' } });
    }
    return jsonResult(200, statusObject(statusReportOf(polled.order), 'unit'));
  };
}
