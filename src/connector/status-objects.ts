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

/** How strictly a status object is read. */
export interface StatusRules {
  /** Contract 2.3: FAILED carries a documented reason code and a message. Only a deliberately flawed Connector turns this off. */
  failedNeedsReason: boolean;
}

export const CONTRACT_RULES: StatusRules = { failedNeedsReason: true };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function statusItem(value: unknown, path: string, names: StatusFieldNames, rules: StatusRules = CONTRACT_RULES): Parsed<StatusItem> {
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
  if (status === 'FAILED' && rules.failedNeedsReason) {
    if (!nonEmpty(reasonCode) || !isReasonCode(reasonCode)) errors.push({ path: `${path}/${names.reasonCode}`, message: 'is required when FAILED and must be a documented reason code' });
    if (!nonEmpty(reasonMessage)) errors.push({ path: `${path}/${names.reasonMessage}`, message: 'is required when FAILED' });
  }
  if (errors.length > 0) return { value: null, errors };
  return {
    value: {
      reference: reference as string,
      bankReference: bankReference as string,
      status: status as BankStatus,
      reasonCode: status === 'FAILED' && nonEmpty(reasonCode) ? reasonCode : null,
      reasonMessage: status === 'FAILED' && nonEmpty(reasonMessage) ? reasonMessage : null,
      at: at as string,
    },
    errors,
  };
}

/** POST /callbacks/orders/status: one 2.3 object with processed_at. */
export function parseUnitCallback(body: unknown, rules: StatusRules = CONTRACT_RULES): Parsed<StatusItem> {
  return statusItem(body, '', STATUS_FIELD_NAMES.unit, rules);
}

interface BatchParts {
  /** The valid items, in order. */
  items: StatusItem[];
  /** Findings on batch_id, sent_at or orders itself. */
  envelopeErrors: ProblemDetail[];
  /** Findings on the items. */
  itemErrors: ProblemDetail[];
}

function batchParts(body: unknown, idempotencyKey: string, rules: StatusRules): BatchParts {
  if (!isObject(body)) return { items: [], envelopeErrors: [{ path: '/', message: 'must be a JSON object' }], itemErrors: [] };
  const envelopeErrors: ProblemDetail[] = [];
  if (body.batch_id !== idempotencyKey) envelopeErrors.push({ path: '/batch_id', message: 'must equal X-Idempotency-Key' });
  if (parseInstant(body.sent_at) === null) envelopeErrors.push({ path: '/sent_at', message: 'must be an RFC 3339 UTC instant ending in Z' });
  if (!Array.isArray(body.orders) || body.orders.length === 0) {
    envelopeErrors.push({ path: '/orders', message: 'must be a non-empty array' });
    return { items: [], envelopeErrors, itemErrors: [] };
  }
  const items: StatusItem[] = [];
  const itemErrors: ProblemDetail[] = [];
  body.orders.forEach((order, index) => {
    const parsed = statusItem(order, `/orders/${index}`, STATUS_FIELD_NAMES.batch, rules);
    if (parsed.value) items.push(parsed.value);
    itemErrors.push(...parsed.errors);
  });
  return { items, envelopeErrors, itemErrors };
}

/** POST /callbacks/orders/status/batch: {batch_id, sent_at, orders[]}; batch_id must be the X-Idempotency-Key. One bad item rejects it all. */
export function parseBatchCallback(body: unknown, idempotencyKey: string, rules: StatusRules = CONTRACT_RULES): Parsed<StatusItem[]> {
  const { items, envelopeErrors, itemErrors } = batchParts(body, idempotencyKey, rules);
  const errors = [...envelopeErrors, ...itemErrors];
  return errors.length > 0 ? { value: null, errors } : { value: items, errors };
}

/**
 * What the deliberately flawed Connector does (flaw applies_partial_batch), never to copy: keeps the valid items
 * of a batch and drops the invalid ones (their findings stay in `errors`). Contract 2.5 rejects the whole batch.
 */
export function validItemsOfBatch(body: unknown, idempotencyKey: string, rules: StatusRules = CONTRACT_RULES): Parsed<StatusItem[]> {
  const { items, envelopeErrors, itemErrors } = batchParts(body, idempotencyKey, rules);
  if (envelopeErrors.length > 0 || items.length === 0) return { value: null, errors: [...envelopeErrors, ...itemErrors] };
  return { value: items, errors: itemErrors };
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
