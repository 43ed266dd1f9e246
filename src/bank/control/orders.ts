// Control plane, section 2: orders and their callback messages, looked at and acted on.
import type express from 'express';
import { Order } from '../domain/order';
import { ProblemError } from '../../wire/problems';
import { isReasonCode, ReasonCode } from '../../wire/reason-codes';
import { OrderFinalError } from '../application/order-book';
import { CallbackState } from '../application/order-queries';
import { FinalOutcome } from '../domain/order-state';
import { ControlArea, ControlDeps } from './index';
import { controlBody, decodeCursor, instant, LIST_DEFAULT_LIMIT, LIST_QUERY, listPage, parseQuery, queryEnum, queryInstant, queryText, requestLog } from './http';

// A page ends early, with its next_cursor, once its orders' payloads reach 4 Mi characters: each item carries the
// payment order as received (up to BODY_LIMIT_BYTES), and limit=1000 of large ones answered 221 MB.
const ORDER_PAGE_PAYLOAD_CHARS = 4 * 1024 * 1024;

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

const SOURCES = queryEnum('push', 'pull');
const STATUSES = queryEnum('PENDING', 'SUCCESS', 'FAILED');

/** The order named by the path, or 404 not_found. */
function orderOf(deps: ControlDeps, clientId: string, reference: string): Order {
  const order = deps.queries.find(clientId, reference);
  if (!order) throw new ProblemError('not_found', `no order "${reference}" for client ${clientId}`);
  return order;
}

/** The client named by the path must have a Connector the Bank calls (poll, pause, resume). */
function connectorOf(deps: ControlDeps, clientId: string) {
  const connector = deps.connectors.get(clientId);
  if (connector) return connector;
  if (!deps.registry.find(clientId)) throw new ProblemError('not_found', `no client ${clientId}`);
  throw new ProblemError('not_found', `client ${clientId} has no Connector the Bank calls: give it one with PATCH /sandbox/clients/${clientId} {"connector": {"url": "..."}}`);
}

function orderRoutes(router: express.Router, deps: ControlDeps): void {
  router.get('/orders', (req, res) => {
    const query = parseQuery(req, {
      ...LIST_QUERY, client_id: queryText, status: STATUSES, reference: queryText, scenario: queryText, source: SOURCES, since: queryInstant, until: queryInstant,
    });
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const { rows, cut } = deps.queries.search({
      clientId: query.client_id, status: query.status, reference: query.reference, scenario: query.scenario, source: query.source,
      since: query.since, until: query.until, beforeRow: decodeCursor(query.cursor, isId) ?? undefined,
    }, limit + 1, ORDER_PAGE_PAYLOAD_CHARS);
    res.json(listPage(rows, limit, (row) => orderView(row.order), (row) => row.row, cut));
  });
  router.get('/orders/:client_id/:reference', (req, res) => {
    parseQuery(req, {});
    const order = orderOf(deps, req.params.client_id, req.params.reference);
    res.json({
      order: orderView(order),
      history: deps.queries.history(order),
      messages: deps.queries.messagesOf(order),
      journal: deps.journal.journalFor(order.clientId, order.reference),
    });
  });
  router.post('/orders/:client_id/:reference/outcome', (req, res) => {
    parseQuery(req, {});
    const body = controlBody<{ status: 'SUCCESS' | 'FAILED'; reasonCode?: string; reasonMessage?: string }>(req, 'outcome');
    const { client_id: clientId, reference } = req.params;
    orderOf(deps, clientId, reference);
    if (body.reasonCode !== undefined && !isReasonCode(body.reasonCode)) {
      throw new ProblemError('body_invalid', 'reasonCode is not a reason code of the profile (section 7)', { errors: [{ path: '/reasonCode', message: 'must be a documented reason code' }] });
    }
    const outcome: FinalOutcome = body.status === 'FAILED' ? { status: 'FAILED', reasonCode: body.reasonCode as ReasonCode } : { status: 'SUCCESS' };
    let order: Order;
    try {
      order = deps.book.forceOutcome(clientId, reference, outcome, body.reasonMessage) ?? orderOf(deps, clientId, reference);
    } catch (error) {
      if (error instanceof OrderFinalError) throw new ProblemError('order_final', `order ${reference} is already ${error.order.status}; a final status never changes`);
      throw error;
    }
    requestLog(deps.logger, res).info('outcome forced', { client_id: clientId, reference, status: body.status });
    deps.wakeDispatcher();
    res.json({ order: orderView(order), history: deps.queries.history(order) });
  });
}

function callbackRoutes(router: express.Router, deps: ControlDeps): void {
  router.get('/callbacks', (req, res) => {
    const query = parseQuery(req, { ...LIST_QUERY, state: queryEnum<CallbackState>('pending', 'delivered', 'dead'), client_id: queryText });
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const before = decodeCursor(query.cursor, isId);
    const rows = deps.queries.messages({ state: query.state ?? null, clientId: query.client_id ?? null, beforeId: before }, limit + 1);
    res.json(listPage(rows, limit, (row) => row, (row) => row.message_id));
  });
  router.get('/callbacks/:message_id', (req, res) => {
    parseQuery(req, {});
    res.json(messageOf(deps, req.params.message_id));
  });
  router.post('/callbacks/redeliver', (req, res) => {
    parseQuery(req, {});
    const body = controlBody<{ client_id?: string; state?: 'dead' }>(req, 'redeliver');
    const ids = deps.messages.redeliverAll(body.state ?? 'dead', body.client_id ?? null);
    requestLog(deps.logger, res).info('messages redelivered', { client_id: body.client_id ?? null, state: body.state ?? 'dead', count: ids.length });
    deps.wakeDispatcher();
    res.json({ redelivered: ids });
  });
  router.post('/callbacks/:message_id/redeliver', (req, res) => {
    parseQuery(req, {});
    controlBody(req, 'empty');
    const message = messageOf(deps, req.params.message_id);
    deps.messages.redeliver(message.message_id);
    requestLog(deps.logger, res).info('message redelivered', { message_id: message.message_id, idempotency_key: message.idempotency_key });
    deps.wakeDispatcher();
    res.json(deps.queries.message(message.message_id));
  });
}

function messageOf(deps: ControlDeps, raw: string) {
  const message = /^[1-9][0-9]{0,15}$/.test(raw) ? deps.queries.message(Number(raw)) : undefined;
  if (!message) throw new ProblemError('not_found', `no callback message ${raw}`);
  return message;
}

function clientRoutes(router: express.Router, deps: ControlDeps): void {
  router.post('/clients/:id/poll', async (req, res) => {
    parseQuery(req, {});
    controlBody(req, 'empty');
    const connector = connectorOf(deps, req.params.id);
    // A run pulls this Connector now and stores nothing it is served; a pull that stores would break that.
    if (deps.connectors.pullsHeld(connector.settings.clientId)) throw new ProblemError('run_in_progress', `a conformance run for ${connector.settings.clientId} is in progress: its pulls wait until the run is over`);
    res.json(await deps.poller.pollConnector(connector));
  });
  for (const [action, paused] of [['pause', true], ['resume', false]] as const) {
    router.post(`/clients/:id/${action}`, (req, res) => {
      parseQuery(req, {});
      controlBody(req, 'empty');
      const clientId = req.params.id;
      connectorOf(deps, clientId);
      deps.connectors.setPaused(clientId, paused);
      if (paused) deps.pauses.pause(clientId, Date.now());
      else (deps.pauses.resume(clientId), deps.wakeDispatcher());
      requestLog(deps.logger, res).info(paused ? 'client paused' : 'client resumed', { client_id: clientId });
      res.json({ client_id: clientId, paused });
    });
  }
  router.post('/reset', (req, res) => {
    parseQuery(req, {});
    const body = controlBody<{ client_id?: string }>(req, 'reset');
    const deleted = deps.reset.reset(body.client_id ?? null);
    requestLog(deps.logger, res).info('reset', { client_id: body.client_id ?? null, deleted });
    res.json({ client_id: body.client_id ?? null, deleted });
  });
}

export const ordersArea: ControlArea = (router, deps) => {
  orderRoutes(router, deps);
  callbackRoutes(router, deps);
  clientRoutes(router, deps);
  // Every Connector at once (see /clients/{id}/poll for one).
  router.post('/poll', async (req, res) => {
    parseQuery(req, {});
    res.json({ reports: await deps.poller.runCycle() });
  });
};
