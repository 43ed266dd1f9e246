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

/** Decides whether a client's fault profile throttles a poll (status_429_rate, conformance.md section 4). */
export interface PollFaults {
  throttlesPoll(clientId: string, orderId: string): boolean;
}

/** 429 rate_limited with Retry-After: 2, as the POLL_429 scenario and a fault profile answer a throttled poll. */
function throttled(cause: string): ProblemError {
  return new ProblemError('rate_limited', `injected by ${cause}: this poll is throttled; retry after the delay`, { headers: { 'Retry-After': '2' } });
}

export function orderStatusHandler(book: OrderBook, faults?: PollFaults) {
  return (exchange: Exchange): FlowResult => {
    const client = requireClient(exchange);
    const orderId = decodeOrderId(String(exchange.req.res?.locals.rawOrderId ?? ''));
    // Before the order is looked up: an injected 429 has no side effect (a due order is not settled by it).
    if (faults?.throttlesPoll(client.id, orderId)) {
      if (exchange.req.res) exchange.req.res.locals.fault = 'status_429';
      throw throttled("the client's fault profile (status_429_rate)");
    }
    const found = book.findPolled(client.id, orderId);
    // Another client's order answers exactly like an unknown one: never reveal that it exists.
    if (!found) throw new ProblemError('order_not_found', `no order "${orderId}" for client ${client.id}`);
    const polled = book.poll(found);
    if (polled.answer === 'not_found') throw new ProblemError('order_not_found', `no order "${orderId}" for client ${client.id}`);
    if (polled.answer === 'throttled') {
      throw throttled('the scenario POLL_429');
    }
    return jsonResult(200, statusObject(statusReportOf(polled.order), 'unit'));
  };
}
