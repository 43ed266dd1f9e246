import { batchBody, defineCase, expectRejected, runKey, statusFor } from '../../case';
import { withBody } from '../../probe';

export default defineCase('batch.bad_signature_rejected', 1, async (context, [order]) => {
  const key = runKey(context, 'batch');
  const signed = context.probe.callback('batch', batchBody(context, key, [statusFor(context, order, 'SUCCESS', 'batch')]), key);
  const tampered = withBody(signed, batchBody(context, key, [statusFor(context, order, 'FAILED', 'batch')]));
  return expectRejected(await context.probe.send(tampered, 'a batch whose body changed after signing', 'body changed after signing (Content-Digest recomputed for it)'), 'the batch with a changed body');
});
