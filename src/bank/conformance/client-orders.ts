// The orders a run asks the Connector to push during its window (client.* cases): one per case, each with the
// v1.1 scenario that provokes the behaviour the case watches. References and amounts are the run's own.
import { formatInstantSeconds } from '../../wire/rfc3339';
import { ClientOrder } from './model';

const SCENARIOS: readonly { case: string; suffix: string; scenario: string }[] = [
  { case: 'client.create_signed_correctly', suffix: 'create', scenario: 'SUCCESS' },
  { case: 'client.retry_reuses_idempotency_key', suffix: 'retry', scenario: 'FAIL_ONCE:SUCCESS' },
  { case: 'client.polls_with_backoff', suffix: 'backoff', scenario: 'NO_CALLBACK' },
  { case: 'client.honours_retry_after', suffix: 'retry-after', scenario: 'POLL_429:1:NO_CALLBACK' },
  { case: 'client.stops_after_404', suffix: 'not-found', scenario: 'POLL_404' },
  { case: 'client.stops_after_final', suffix: 'final', scenario: 'PENDING:3:SUCCESS' },
];

/** The prefix of every reference (and of the run's own idempotency keys) of one run. */
export const runPrefix = (runId: string): string => `CONF-${runId}-`;

function paymentOrder(reference: string, scenario: string, initiatedAt: string): Record<string, unknown> {
  return {
    reference,
    initiated_at: initiatedAt,
    reason: `Conformance run order (${scenario})`,
    type: 'CREDIT_TRANSFER',
    debtor: { name: 'Conformance Debtor', iban: 'DE89370400440532013000' },
    creditors: [{ name: 'Conformance Creditor', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount: '10.00', reason: 'conformance' }],
    total_amount: '10.00',
    currency: 'EUR',
    metadata: { initiator: 'sandbox-bank-conformance', sandbox_scenario: scenario },
  };
}

/** The client orders of the planned client.* cases (create_signed_correctly watches all of them). */
export function clientOrdersFor(runId: string, caseIds: readonly string[], nowMs: number): ClientOrder[] {
  const initiatedAt = formatInstantSeconds(nowMs);
  return SCENARIOS.filter((one) => caseIds.includes(one.case)).map((one) => {
    const reference = `${runPrefix(runId)}${one.suffix}`;
    return { reference, sandbox_scenario: one.scenario, case: one.case, order: paymentOrder(reference, one.scenario, initiatedAt) };
  });
}
