import { defineCase, expectRejected } from '../../case';
import { withoutHeader } from '../../probe';
import { EPOCH } from './page';

export default defineCase('pull.unsigned_rejected', 0, async ({ probe, pullStatus, pullLimit }) => {
  const request = withoutHeader(await probe.pull({ status: pullStatus, limit: String(pullLimit), offset: EPOCH }), 'x-signature');
  return expectRejected(await probe.send(request, 'the pull without X-Signature', 'X-Signature removed'), 'the unsigned pull');
});
