import { parseInstant } from '../../../../wire/rfc3339';
import { defineCase, describeAnswer, failed, passed, skipped } from '../../case';
import { cursorViolation, pageOf } from './page';

export default defineCase('pull.cursor_is_a_minimum', 0, async ({ probe, pullStatus, pullLimit, served }) => {
  // An offset inside the served range: some orders are before it, so a Connector that ignores it shows.
  const pick = served[Math.floor(served.length / 2)];
  const offsetMs = pick ? parseInstant(pick.initiatedAt) : null;
  if (!pick || offsetMs === null) return skipped('the Connector served no order whose initiated_at could be used as an offset');
  const answer = await probe.send(await probe.pull({ status: pullStatus, limit: String(pullLimit), offset: pick.initiatedAt }), `pull with offset=${pick.initiatedAt}`);
  const page = pageOf(answer);
  if (!page) return failed(`the pull answered ${describeAnswer(answer)}`);
  if (page.orders.length === 0) return failed(`offset=${pick.initiatedAt} answered no order, though ${pick.reference} has that initiated_at (the offset is inclusive)`);
  const violation = cursorViolation(page.orders, offsetMs);
  return violation ? failed(violation) : passed(`${page.orders.length} orders, all at or after ${pick.initiatedAt}, ascending`);
});
