import { defineCase, describeAnswer, failed, passed, skipped } from '../../case';
import { withoutHeader } from '../../probe';
import { EPOCH } from './page';

export default defineCase('pull.missing_token_rejected', 0, async ({ probe, pullStatus, pullLimit }) => {
  const request = await probe.pull({ status: pullStatus, limit: String(pullLimit), offset: EPOCH });
  if (!request.headers.authorization) return skipped('the client has no pull token configured (connector.token or token_url): the Bank sends no Authorization to this Connector');
  const answer = await probe.send(withoutHeader(request, 'authorization'), 'the pull without Authorization', 'Authorization removed');
  return answer.status === 401 ? passed('401') : failed(`the pull without Authorization answered ${describeAnswer(answer)}, not 401`);
});
