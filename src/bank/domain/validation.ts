// Business checks the JSON schema cannot express: exact totals, positive amounts, ISO 4217, scenario syntax.
import { Violation } from '../../wire/problems';
import { toCents } from '../../wire/money';
import { PaymentOrder } from '../../wire/payment-order';
import { parseScenario, SCENARIO_METADATA_KEY } from './scenarios';
import { ISO_4217 } from './iso4217';

export type { Violation };

export function businessViolations(order: PaymentOrder): Violation[] {
  const violations: Violation[] = [];
  let sum = 0n;
  order.creditors.forEach((creditor, index) => {
    const cents = toCents(creditor.amount);
    if (cents === 0n) violations.push({ path: `/creditors/${index}/amount`, message: 'must be greater than 0' });
    sum += cents;
  });
  if (toCents(order.total_amount) !== sum) {
    violations.push({ path: '/total_amount', message: `must equal the sum of the creditors' amounts` });
  }
  if (!ISO_4217.has(order.currency)) violations.push({ path: '/currency', message: 'must be an ISO 4217 alphabetic code' });
  // The schema's date-time format admits a leap second (23:59:60), which no instant can hold.
  if (Number.isNaN(Date.parse(order.initiated_at))) violations.push({ path: '/initiated_at', message: 'must be a representable instant (no leap second)' });
  const scenario = order.metadata?.[SCENARIO_METADATA_KEY];
  if (scenario !== undefined) {
    try {
      parseScenario(scenario);
    } catch (error) {
      violations.push({ path: `/metadata/${SCENARIO_METADATA_KEY}`, message: (error as Error).message });
    }
  }
  return violations;
}
