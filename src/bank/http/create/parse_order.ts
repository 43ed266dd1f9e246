// Step 9 of create: the body is UTF-8 JSON that matches schemas/payment-order.schema.json and the business checks.
import { PaymentOrder } from '../../../wire/payment-order';
import { orderViolations } from '../../application/order-validation';
import { ProblemError } from '../../../wire/problems';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJsonBody(raw: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    throw new ProblemError('body_malformed', 'the body is not valid UTF-8 JSON');
  }
}

export function parseOrder(raw: Buffer): PaymentOrder {
  const value = parseJsonBody(raw);
  const errors = orderViolations(value);
  if (errors.length > 0) {
    throw new ProblemError('body_invalid', `the order has ${errors.length} violation(s); see errors`, { errors });
  }
  return value as PaymentOrder;
}
