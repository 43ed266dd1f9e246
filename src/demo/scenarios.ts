// What the demo pushes, and what it expects to see for each order at the end.
import { formatInstantSeconds } from '../wire/rfc3339';

export interface DemoPush {
  reference: string;
  flow: string;
  amount: string;
  scenario?: string;
  /** The create answer's HTTP status. */
  http: 200 | 202;
  /** The final status the Connector must end with (PENDING: never final, reverse polling only). */
  final: 'SUCCESS' | 'FAILED' | 'PENDING';
  /** How the final reached the Connector. */
  via: 'create' | 'callback' | 'reverse-poll';
  /** Times the Bank delivers the final callback (DUPLICATE_CALLBACK: twice, same key). */
  deliveries?: number;
}

export function demoPushes(run: string): DemoPush[] {
  const ref = (name: string) => `DEMO-${run}-${name}`;
  return [
    { reference: ref('SYNC-SUCCESS'), flow: 'push 200 SUCCESS', amount: '120.00', http: 200, final: 'SUCCESS', via: 'create' },
    { reference: ref('SYNC-FAILED'), flow: 'push 200 FAILED', amount: '120.01', http: 200, final: 'FAILED', via: 'create' },
    { reference: ref('PENDING'), flow: 'push 200 PENDING -> callback', amount: '120.00', scenario: 'PENDING:2:SUCCESS', http: 200, final: 'SUCCESS', via: 'callback' },
    { reference: ref('ASYNC'), flow: 'push 202 -> callback', amount: '120.00', scenario: 'ASYNC:2:FAILED:BUS_ACCOUNT_CLOSED', http: 202, final: 'FAILED', via: 'callback' },
    { reference: ref('NO-CALLBACK'), flow: 'push 202 NO_CALLBACK -> reverse polling', amount: '120.00', scenario: 'NO_CALLBACK', http: 202, final: 'PENDING', via: 'reverse-poll' },
    { reference: ref('DUPLICATE'), flow: 'push 202 DUPLICATE_CALLBACK', amount: '120.00', scenario: 'DUPLICATE_CALLBACK', http: 202, final: 'SUCCESS', via: 'callback', deliveries: 2 },
  ];
}

export function demoOrder(push: DemoPush): Record<string, unknown> {
  return {
    reference: push.reference,
    initiated_at: formatInstantSeconds(Date.now()),
    reason: push.flow,
    type: 'CREDIT_TRANSFER',
    debtor: { name: 'Demo Debtor', iban: 'DE89370400440532013000' },
    creditors: [{ name: 'Demo Creditor', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount: push.amount, reason: push.flow }],
    total_amount: push.amount,
    currency: 'EUR',
    metadata: { initiator: 'npm run demo', ...(push.scenario ? { sandbox_scenario: push.scenario } : {}) },
  };
}
