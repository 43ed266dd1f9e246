import { batchBody, defineCase, expectRejected, runKey, statusFor } from '../../case';

export default defineCase('batch.batch_id_must_match_key', 1, async (context, [order]) => {
  const key = runKey(context, 'batch');
  const body = batchBody(context, runKey(context, 'other'), [statusFor(context, order, 'SUCCESS', 'batch')]);
  return expectRejected(await context.probe.send(context.probe.callback('batch', body, key), 'a batch whose batch_id is not its X-Idempotency-Key', 'batch_id differs from X-Idempotency-Key'), 'the mismatched batch');
});
