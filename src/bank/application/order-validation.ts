// Validation of a payment order wherever it comes from (create body or pulled page): schema, then business checks.
import { PaymentOrder } from '../../wire/payment-order';
import { businessViolations, Violation } from '../domain/validation';
import { ProblemError } from '../../wire/problems';
import { schemaValidator, violationsOf } from '../../wire/schemas';

/** Schema violations first; business violations (totals, ISO 4217, scenario) only for schema-valid orders. */
export function orderViolations(value: unknown): Violation[] {
  const validate = schemaValidator('payment-order');
  if (!validate(value)) return violationsOf(validate);
  return businessViolations(value as PaymentOrder);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodedJson(raw: Buffer): { json: string; value: unknown } {
  try {
    const json = utf8.decode(raw);
    return { json, value: JSON.parse(json) };
  } catch {
    throw new ProblemError('body_malformed', 'the body is not valid UTF-8 JSON');
  }
}

export function parseJsonBody(raw: Buffer): unknown {
  return decodedJson(raw).value;
}

/** A create body as parsed, with the JSON text it was parsed from. */
export interface ParsedOrder {
  order: PaymentOrder;
  /** The body as UTF-8 text: what the order's row keeps, so that the order is not serialised a second time. */
  json: string;
}

/** The create body (profile step 9): UTF-8 JSON that matches the schema and the business checks. */
export function parseOrder(raw: Buffer): ParsedOrder {
  const { json, value } = decodedJson(raw);
  const errors = orderViolations(value);
  if (errors.length > 0) {
    throw new ProblemError('body_invalid', `the order has ${errors.length} violation(s); see errors`, { errors });
  }
  return { order: value as PaymentOrder, json };
}
