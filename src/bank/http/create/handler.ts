// POST /payment-orders: after the security pipeline, idempotency then body, then the order is accepted.
import { setTimeout as sleep } from 'node:timers/promises';
import { AcceptedOrder, OrderBook } from '../../application/order-book';
import { BankConfig } from '../../config';
import { PaymentOrder } from '../../../wire/payment-order';
import { Db } from '../../store/db';
import { IdempotencyRepository } from '../../store/idempotency';
import { OrderRecord } from '../../store/orders';
import { Exchange, requireClient } from '../exchange';
import { FlowResult, jsonResult } from '../flow';
import { ProblemError } from '../../../wire/problems';
import { bodyFingerprint, checkIdempotency } from './check_idempotency';
import { parseOrder } from './parse_order';

export interface CreateDeps {
  db: Db;
  config: BankConfig;
  book: OrderBook;
  idempotency: IdempotencyRepository;
}

/** Contract 2.4: snake_case reason fields, present only when FAILED. */
export function createResponseBody(record: OrderRecord): Record<string, string> {
  const body: Record<string, string> = {
    status: record.status,
    reference: record.reference,
    bank_reference: record.bankReference,
    timestamp: new Date(record.processedAt).toISOString(),
  };
  if (record.status === 'FAILED') {
    body.reason_code = record.reasonCode ?? 'BUS_NOT_SPECIFIED';
    body.reason_message = record.reasonMessage ?? '';
  }
  return body;
}

function responseFor(accepted: AcceptedOrder): FlowResult {
  if (accepted.plan.response === 'async') return { status: 202 };
  return jsonResult(200, createResponseBody(accepted.record));
}

function refuseDuplicateReference(deps: CreateDeps, clientId: string, order: PaymentOrder): void {
  if (deps.book.orders.find(clientId, order.reference)) {
    throw new ProblemError('duplicate_reference', `an order with reference "${order.reference}" already exists for this client; reuse its X-Idempotency-Key to replay the answer`);
  }
}

export function createOrderHandler(deps: CreateDeps) {
  const { config, idempotency } = deps;
  const retentionMs = config.idempotencyRetentionS * 1000;
  const lockMs = config.createLatencyMs + 30_000;

  return async (exchange: Exchange): Promise<FlowResult> => {
    const clientId = requireClient(exchange).id;
    const key = exchange.header('x-idempotency-key') ?? '';
    const fingerprint = bodyFingerprint(exchange.rawBody);
    const replay = checkIdempotency(idempotency, clientId, key, fingerprint, exchange.nowMs);
    if (replay) {
      exchange.log.info('idempotent replay', { idempotency_key: key, status: replay.status });
      return replay;
    }
    const order = parseOrder(exchange.rawBody);
    refuseDuplicateReference(deps, clientId, order);
    const delayed = config.createLatencyMs > 0;
    if (delayed) {
      idempotency.reserve(clientId, key, fingerprint, exchange.nowMs, lockMs, retentionMs);
      await sleep(config.createLatencyMs);
    }
    try {
      const result = deps.db.transaction(() => {
        // Without a delay nothing ran since the first check; with one, another key may have taken the reference.
        if (delayed) refuseDuplicateReference(deps, clientId, order);
        else idempotency.reserve(clientId, key, fingerprint, exchange.nowMs, lockMs, retentionMs);
        const accepted = deps.book.accept(clientId, order, 'push');
        const response = responseFor(accepted);
        idempotency.complete(clientId, key, response.status, response.body ?? Buffer.alloc(0));
        exchange.log.info('order accepted', {
          reference: order.reference,
          bank_reference: accepted.record.bankReference,
          status: accepted.record.status,
          scenario: accepted.record.scenario,
          scenario_source: accepted.record.scenarioSource,
        });
        return response;
      })();
      return result;
    } catch (error) {
      if (delayed) idempotency.release(clientId, key);
      throw error;
    }
  };
}
