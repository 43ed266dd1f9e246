import { defineCase, describeAnswer, failed, passed } from '../../case';
import { EPOCH, pageOf } from './page';

export default defineCase('pull.signed_request_accepted', 0, async ({ probe, pullStatus, pullLimit }) => {
  const answer = await probe.send(await probe.pull({ status: pullStatus, limit: String(pullLimit), offset: EPOCH }), 'a correct signed pull');
  const page = pageOf(answer);
  if (!page) return failed(`the pull answered ${describeAnswer(answer)}`);
  if (page.violations.length > 0) return failed(`200 but not a page (contract 2.2): ${page.violations.slice(0, 5).join('; ')}`);
  return passed(answer.status === 204 ? '204, no orders' : `200 with a valid page of ${page.orders.length} orders`);
});
