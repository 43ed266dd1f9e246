import { randomUUID } from 'node:crypto';
import { defineCase, expectRejected } from '../../case';
import { withHeader } from '../../probe';
import { EPOCH } from './page';

export default defineCase('pull.bad_signature_rejected', 0, async ({ probe, pullStatus, pullLimit }) => {
  const request = withHeader(await probe.pull({ status: pullStatus, limit: String(pullLimit), offset: EPOCH }), 'x-request-id', randomUUID());
  return expectRejected(await probe.send(request, 'the pull with X-Request-Id changed after signing', 'X-Request-Id changed after signing'), 'the badly signed pull');
});
