import { defineCase, describeAnswer, expectRejected, failed } from '../../case';
import { EPOCH } from './page';

export default defineCase('pull.replayed_nonce_rejected', 0, async ({ probe, pullStatus, pullLimit }) => {
  const request = await probe.pull({ status: pullStatus, limit: String(pullLimit), offset: EPOCH });
  const first = await probe.send(request, 'a correct pull');
  if (first.status !== 200 && first.status !== 204) return failed(`the first, correct pull answered ${describeAnswer(first)}`);
  return expectRejected(await probe.send(request, 'the same pull again, same nonce', 'sent a second time, byte for byte'), 'the replayed pull');
});
