// An order as the Bank holds it: the payment order received, the scenario decided for it, and where it stands.
import { StatusReport } from '../../wire/status-object';
import { OrderStatus } from './order-state';

export type OrderSource = 'push' | 'pull';

export interface Order {
  clientId: string;
  reference: string;
  bankReference: string;
  source: OrderSource;
  status: OrderStatus;
  reasonCode: string | null;
  reasonMessage: string | null;
  scenario: string;
  scenarioSource: string;
  responseMode: 'sync' | 'async';
  callbacks: 'normal' | 'none' | 'duplicate';
  /** POLL_429: status polls still to answer 429 before the status is shown. */
  pollsToThrottle: number;
  /** POLL_404: `not_found` hides the order from status polls. */
  pollAnswer: 'status' | 'not_found';
  settleAt: number | null;
  finalStatus: string | null;
  finalReasonCode: string | null;
  initiatedAt: string;
  initiatedAtMs: number;
  totalAmount: string;
  currency: string;
  /** The payment order as received (JSON), for inspection. */
  payload: string;
  createdAt: number;
  processedAt: number;
}

/** What a status poll reads of an order: its status report, and what decides how the poll is answered. */
export const POLLED_FIELDS = [
  'clientId', 'reference', 'bankReference', 'status', 'reasonCode', 'reasonMessage', 'processedAt', 'pollAnswer', 'pollsToThrottle', 'settleAt', 'finalStatus',
] as const satisfies readonly (keyof Order)[];

export type PolledOrder = Pick<Order, (typeof POLLED_FIELDS)[number]>;

/** What a status report (status poll, callback, create answer) says about an order as it stands. */
export function statusReportOf(order: Pick<Order, 'reference' | 'bankReference' | 'status' | 'reasonCode' | 'reasonMessage' | 'processedAt'>): StatusReport {
  return {
    reference: order.reference,
    bankReference: order.bankReference,
    status: order.status,
    reasonCode: order.reasonCode,
    reasonMessage: order.reasonMessage,
    processedAt: order.processedAt,
  };
}
