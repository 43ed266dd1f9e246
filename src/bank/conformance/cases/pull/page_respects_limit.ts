import { defineCase, describeAnswer, failed, passed, skipped } from '../../case';
import { EPOCH, pageOf } from './page';

export default defineCase('pull.page_respects_limit', 0, async ({ probe, pullStatus, served }) => {
  if (served.length < 2) return skipped(`the Connector served ${served.length} orders; at least 2 are needed to see a limit hold`);
  const seen: string[] = [];
  for (const limit of [1, 2]) {
    const answer = await probe.send(await probe.pull({ status: pullStatus, limit: String(limit), offset: EPOCH }), `pull with limit=${limit}`);
    const page = pageOf(answer);
    if (!page) return failed(`the pull with limit=${limit} answered ${describeAnswer(answer)}`);
    if (page.orders.length > limit) return failed(`limit=${limit} answered ${page.orders.length} orders`);
    seen.push(`limit=${limit}: ${page.orders.length}`);
  }
  return passed(seen.join(', '));
});
