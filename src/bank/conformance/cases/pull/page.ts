// What the pull cases read of an answer: the page envelope (contract 2.2) and its orders (2.1).
import { parseInstant } from '../../../../wire/rfc3339';
import { schemaValidator, violationsOf } from '../../../../wire/schemas';
import { Answer } from '../../probe';
import { ServedOrder } from '../../case';

export interface Page {
  orders: ServedOrder[];
  /** Schema violations of the envelope and the orders ("/content/0/currency is required"). */
  violations: string[];
}

/** The page in a 200 answer (envelope and orders checked by schemas/pull-page.schema.json), or an empty page for a 204; null for any other answer. */
export function pageOf(answer: Answer): Page | null {
  if (answer.status === 204) return { orders: [], violations: [] };
  if (answer.status !== 200) return null;
  if (answer.json === undefined) return { orders: [], violations: [notJson(answer.body)] };
  const validate = schemaValidator('pull-page');
  const valid = validate(answer.json);
  const violations = valid ? [] : violationsOf(validate).map((violation) => `${violation.path} ${violation.message}`);
  const content = (answer.json as { content?: unknown } | undefined)?.content;
  const items = Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
  const orders = items
    .filter((item) => typeof item?.reference === 'string' && typeof item?.initiated_at === 'string')
    .map((item) => ({ reference: item.reference as string, initiatedAt: item.initiated_at as string }));
  if (!valid) return { orders, violations };
  const size = (answer.json as { size: number }).size;
  if (size !== items.length) violations.push(`/size is ${size} but content has ${items.length} orders`);
  return { orders, violations };
}

/** What a 200 body that does not parse as JSON looks like, in a few characters. */
function notJson(body: string): string {
  if (body.length === 0) return 'the body is empty, not JSON (an empty page is a 204)';
  const start = JSON.stringify(body.slice(0, 40));
  return `the body is not JSON (${body.length} characters, starting ${start})`;
}

/** The first order, in page order, whose initiated_at is before `offset` or before its predecessor; null when none. */
export function cursorViolation(orders: readonly ServedOrder[], offsetMs: number): string | null {
  let previous = offsetMs;
  for (const order of orders) {
    const at = parseInstant(order.initiatedAt) ?? Date.parse(order.initiatedAt);
    if (Number.isNaN(at)) return `${order.reference} has initiated_at "${order.initiatedAt}", not an instant`;
    if (at < offsetMs) return `${order.reference} has initiated_at ${order.initiatedAt}, before the offset`;
    if (at < previous) return `${order.reference} (${order.initiatedAt}) comes after a later order: not ascending`;
    previous = at;
  }
  return null;
}

export const EPOCH = '1970-01-01T00:00:00Z';
