// The status objects the Bank sends, checked against the contract before anything is applied (pure, no I/O).
// What it shows a Connector team: the same 2.3 object travels with different field names per flow, and a
// builder must accept the names as given per flow:
//   unit callback and reverse polling: reasonCode / reasonMessage / processed_at
//   batch item (2.5):                  reasonCode / reasonMessage / timestamp
//   create answer (2.4):               reason_code / reason_message / timestamp
// FAILED always needs a reason code from the nomenclature and a message. The names per flow are the
// exchange's own table (wire/status-object STATUS_FIELD_NAMES), the one the Bank writes with.
import { isReasonCode } from '../wire/reason-codes';
import { parseInstant } from '../wire/rfc3339';
import { STATUS_FIELD_NAMES, StatusFieldNames, WireStatus } from '../wire/status-object';
import { ProblemDetail } from './problems';

export type BankStatus = WireStatus;

export interface StatusItem {
  reference: string;
  bankReference: string;
  status: BankStatus;
  reasonCode: string | null;
  reasonMessage: string | null;
  /** processed_at or timestamp, as sent. */
  at: string;
}

export interface Parsed<T> {
  value: T | null;
  errors: ProblemDetail[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function statusItem(value: unknown, path: string, names: StatusFieldNames): Parsed<StatusItem> {
  const errors: ProblemDetail[] = [];
  if (!isObject(value)) return { value: null, errors: [{ path: path || '/', message: 'must be a JSON object' }] };
  const { reference, bank_reference: bankReference, status } = value;
  const reasonCode = value[names.reasonCode];
  const reasonMessage = value[names.reasonMessage];
  const at = value[names.time];
  if (!nonEmpty(reference)) errors.push({ path: `${path}/reference`, message: 'is required' });
  if (!nonEmpty(bankReference)) errors.push({ path: `${path}/bank_reference`, message: 'is required' });
  if (status !== 'PENDING' && status !== 'SUCCESS' && status !== 'FAILED') errors.push({ path: `${path}/status`, message: 'must be PENDING, SUCCESS or FAILED' });
  if (parseInstant(at) === null) errors.push({ path: `${path}/${names.time}`, message: 'must be an RFC 3339 UTC instant ending in Z' });
  if (status === 'FAILED') {
    if (!nonEmpty(reasonCode) || !isReasonCode(reasonCode)) errors.push({ path: `${path}/${names.reasonCode}`, message: 'is required when FAILED and must be a documented reason code' });
    if (!nonEmpty(reasonMessage)) errors.push({ path: `${path}/${names.reasonMessage}`, message: 'is required when FAILED' });
  }
  if (errors.length > 0) return { value: null, errors };
  return {
    value: {
      reference: reference as string,
      bankReference: bankReference as string,
      status: status as BankStatus,
      reasonCode: status === 'FAILED' ? (reasonCode as string) : null,
      reasonMessage: status === 'FAILED' ? (reasonMessage as string) : null,
      at: at as string,
    },
    errors,
  };
}

/** POST /callbacks/orders/status: one 2.3 object with processed_at. */
export function parseUnitCallback(body: unknown): Parsed<StatusItem> {
  return statusItem(body, '', STATUS_FIELD_NAMES.unit);
}

/** POST /callbacks/orders/status/batch: {batch_id, sent_at, orders[]}; batch_id must be the X-Idempotency-Key. */
export function parseBatchCallback(body: unknown, idempotencyKey: string): Parsed<StatusItem[]> {
  if (!isObject(body)) return { value: null, errors: [{ path: '/', message: 'must be a JSON object' }] };
  const errors: ProblemDetail[] = [];
  if (body.batch_id !== idempotencyKey) errors.push({ path: '/batch_id', message: 'must equal X-Idempotency-Key' });
  if (parseInstant(body.sent_at) === null) errors.push({ path: '/sent_at', message: 'must be an RFC 3339 UTC instant ending in Z' });
  if (!Array.isArray(body.orders) || body.orders.length === 0) {
    errors.push({ path: '/orders', message: 'must be a non-empty array' });
    return { value: null, errors };
  }
  const items: StatusItem[] = [];
  body.orders.forEach((order, index) => {
    const parsed = statusItem(order, `/orders/${index}`, STATUS_FIELD_NAMES.batch);
    if (parsed.value) items.push(parsed.value);
    errors.push(...parsed.errors);
  });
  return errors.length > 0 ? { value: null, errors } : { value: items, errors };
}

/** 200 answer of GET /payment-orders/{orderId}/status: a 2.3 object whose reference is the one asked for. */
export function parseStatusAnswer(body: unknown, reference: string): Parsed<StatusItem> {
  const parsed = statusItem(body, '', STATUS_FIELD_NAMES.unit);
  if (parsed.value && parsed.value.reference !== reference) return { value: null, errors: [{ path: '/reference', message: `must be ${reference}` }] };
  return parsed;
}

/** 200 answer of POST /payment-orders (contract 2.4 and the consistency rules of 4.1.1). */
export function parseCreateAnswer(body: unknown, reference: string): Parsed<StatusItem> {
  const parsed = statusItem(body, '', STATUS_FIELD_NAMES.create);
  if (parsed.value && parsed.value.reference !== reference) return { value: null, errors: [{ path: '/reference', message: `must equal the reference sent, ${reference}` }] };
  return parsed;
}
