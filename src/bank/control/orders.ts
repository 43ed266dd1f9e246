// Control plane, section 2: orders and their callback messages, looked at and acted on.
import type express from 'express';
import { Order } from '../domain/order';
import { CallbackState } from '../application/order-queries';
import { ControlArea } from './index';
import { instant, LIST_DEFAULT_LIMIT, LIST_QUERY, listPage, parseQuery, queryEnum, decodeCursor } from './http';

/** An order as the control plane shows it: RFC 3339 times, the payment order as received. */
export function orderView(order: Order) {
  return {
    client_id: order.clientId,
    reference: order.reference,
    bank_reference: order.bankReference,
    source: order.source,
    status: order.status,
    reason_code: order.reasonCode,
    reason_message: order.reasonMessage,
    scenario: order.scenario,
    scenario_source: order.scenarioSource,
    total_amount: order.totalAmount,
    currency: order.currency,
    initiated_at: order.initiatedAt,
    created_at: instant(order.createdAt),
    processed_at: instant(order.processedAt),
    settle_at: instant(order.settleAt),
    payment_order: JSON.parse(order.payload) as unknown,
  };
}

const isId = (value: unknown): value is number => Number.isSafeInteger(value);

export const ordersArea: ControlArea = (router, deps) => {
  router.get('/callbacks', (req, res) => {
    const query = parseQuery(req, { ...LIST_QUERY, state: queryEnum<CallbackState>('pending', 'delivered', 'dead'), client_id: (value: string) => value });
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const before = decodeCursor(query.cursor, isId);
    const rows = deps.queries.messages({ state: query.state ?? null, clientId: query.client_id ?? null, beforeId: before }, limit + 1);
    res.json(listPage(rows, limit, (row) => row, (row) => row.message_id));
  });
  // Every Connector at once (see /clients/{id}/poll for one).
  router.post('/poll', async (req, res) => {
    parseQuery(req, {});
    res.json({ reports: await deps.poller.runCycle() });
  });
};
