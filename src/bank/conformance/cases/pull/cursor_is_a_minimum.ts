import { parseInstant } from '../../../../wire/rfc3339';
import { defineCase, describeAnswer, failed, passed, ServedOrder, skipped } from '../../case';
import { cursorViolation, pageOf } from './page';

const instantOf = (order: ServedOrder): number | null => parseInstant(order.initiatedAt);

/**
 * The offset: the initiated_at of a served order, with served orders before it (so a Connector that ignores the
 * offset shows), preferring one the run has not used (so the orders at that instant must come back), near the middle
 * of those. Callback cases take orders from the oldest, so the later ones stay as served longest.
 */
function pickOffset(served: readonly ServedOrder[], untouched: (reference: string) => boolean): ServedOrder | undefined {
  const first = served.length > 0 ? instantOf(served[0]) : null;
  const later = served.filter((order) => first !== null && (instantOf(order) ?? -Infinity) > first);
  const fresh = later.filter((order) => untouched(order.reference));
  if (fresh.length > 0) return fresh[Math.floor(fresh.length / 2)];
  return served[Math.floor(served.length / 2)];
}

export default defineCase('pull.cursor_is_a_minimum', 0, async ({ probe, pullStatus, pullLimit, served, untouched }) => {
  const pick = pickOffset(served, untouched);
  const offsetMs = pick ? instantOf(pick) : null;
  if (!pick || offsetMs === null) return skipped('the Connector served no order whose initiated_at could be used as an offset');
  const offset = pick.initiatedAt;
  const answer = await probe.send(await probe.pull({ status: pullStatus, limit: String(pullLimit), offset }), `pull with offset=${offset}`);
  const page = pageOf(answer);
  if (!page) return failed(`the pull answered ${describeAnswer(answer)}`);
  if (page.orders.length === 0) {
    // Empty is right only when every served order at or after the offset was since used (its status may have changed).
    const due = served.find((order) => (instantOf(order) ?? -Infinity) >= offsetMs && untouched(order.reference));
    if (due) return failed(`offset=${offset} answered no order, though ${due.reference} (initiated_at ${due.initiatedAt}) was served and not used since (the offset is a minimum: inclusive)`);
    return passed(`offset=${offset} answered no order; every order served at or after it was used by the run since`);
  }
  const violation = cursorViolation(page.orders, offsetMs);
  if (violation) return failed(violation);

  // Contract 4.2.1: offset is the MINIMUM initiation date, so orders initiated exactly at it belong to the page
  // (the Bank's cursor is the largest initiated_at it processed; an exclusive offset loses the others at that
  // instant). Expected back: the served ones at that instant the run has not used, judged now, after the answer.
  const returned = new Set(page.orders.map((order) => order.reference));
  const atOffset = served.filter((order) => instantOf(order) === offsetMs);
  const expected = atOffset.filter((order) => untouched(order.reference));
  const missing = expected.filter((order) => !returned.has(order.reference));
  // A page filled by orders at the offset's instant alone may rightly leave out others at that instant.
  const fullAtOffset = page.orders.length >= pullLimit && page.orders.every((order) => instantOf(order) === offsetMs);
  if (missing.length > 0 && !fullAtOffset) {
    const names = missing.slice(0, 5).map((order) => order.reference).join(', ') + (missing.length > 5 ? ` and ${missing.length - 5} more` : '');
    return failed(`offset=${offset} left out ${names}, initiated exactly at the offset and served in the run's discovery pull (not used by the run since): the offset is a minimum, inclusive; an exclusive offset loses the orders that share the cursor's instant`);
  }
  const inclusive = expected.length > 0
    ? `, including the ${expected.length} initiated exactly at it`
    : ` (the orders served at exactly that instant were all used by the run's callback cases or are held by the Bank, so inclusiveness could not be checked)`;
  return passed(`${page.orders.length} orders, all at or after ${offset}, ascending${inclusive}`);
});
