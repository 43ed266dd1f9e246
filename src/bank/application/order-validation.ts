// Validation of a payment order wherever it comes from (create body or pulled page): schema, then business checks.
import { PaymentOrder } from '../../wire/payment-order';
import { businessViolations, Violation } from '../domain/validation';
import { schemaValidator, violationsOf } from '../../wire/schemas';

/** Schema violations first; business violations (totals, ISO 4217, scenario) only for schema-valid orders. */
export function orderViolations(value: unknown): Violation[] {
  const validate = schemaValidator('payment-order');
  if (!validate(value)) return violationsOf(validate);
  return businessViolations(value as PaymentOrder);
}
