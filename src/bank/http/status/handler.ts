// GET /payment-orders/{orderId}/status: the 2.3 object with processed_at. Due orders settle lazily here.
import { OrderBook } from '../../application/order-book';
import { OrderRecord } from '../../store/orders';
import { Exchange, requireClient } from '../exchange';
import { FlowResult, jsonResult } from '../flow';
import { ProblemError } from '../../../wire/problems';

/** Contract 2.3 for reverse polling: camelCase reason fields, present only when FAILED. */
export function statusResponseBody(record: OrderRecord): Record<string, string> {
  const body: Record<string, string> = {
    reference: record.reference,
    bank_reference: record.bankReference,
    status: record.status,
  };
  if (record.status === 'FAILED') {
    body.reasonCode = record.reasonCode ?? 'BUS_NOT_SPECIFIED';
    body.reasonMessage = record.reasonMessage ?? '';
  }
  body.processed_at = new Date(record.processedAt).toISOString();
  return body;
}

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
    const found = book.orders.find(client.id, orderId);
    // Another client's order answers exactly like an unknown one: never reveal that it exists.
    if (!found) throw new ProblemError('order_not_found', `no order "${orderId}" for client ${client.id}`);
    return jsonResult(200, statusResponseBody(book.settleIfDue(found)));
  };
}
