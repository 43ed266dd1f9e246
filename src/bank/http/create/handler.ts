// POST /payment-orders: after the security pipeline, the create use case; this handler only maps its answer.
import { CreateOrder } from '../../application/create-order';
import { Exchange, requireClient } from '../exchange';
import { FlowResult } from '../flow';

export function createOrderHandler(createOrder: CreateOrder) {
  return async (exchange: Exchange): Promise<FlowResult> => {
    const answer = await createOrder.execute({
      clientId: requireClient(exchange).id,
      idempotencyKey: exchange.header('x-idempotency-key') ?? '',
      rawBody: exchange.rawBody,
      bodySha256: exchange.bodySha256,
      log: exchange.log,
    });
    if (answer.reference !== undefined) exchange.references = [answer.reference];
    return { status: answer.status, body: answer.body, headers: answer.replayed ? { 'Idempotent-Replayed': 'true' } : undefined };
  };
}
