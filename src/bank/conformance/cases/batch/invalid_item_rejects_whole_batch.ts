import { batchBody, defineCase, describeAnswer, failed, isClientError, passed, runKey, statusFor } from '../../case';

// The follow-up batch reports the two valid orders as FAILED (with a reason): had the Connector applied the
// SUCCESS items of the refused batch, this conflicting final would now be refused, and the case shows it.
export default defineCase('batch.invalid_item_rejects_whole_batch', 3, async (context, orders) => {
  const { probe } = context;
  const [first, second, third] = orders;
  const key = runKey(context, 'batch');
  const items = [statusFor(context, first, 'SUCCESS', 'batch'), statusFor(context, second, 'SUCCESS', 'batch'), statusFor(context, third, 'FAILED', 'batch', 'without')];
  const mixed = await probe.send(probe.callback('batch', batchBody(context, key, items), key), 'a batch of 3, the last FAILED without reasonCode', 'one invalid item (FAILED without reasonCode)');
  if (!isClientError(mixed)) return failed(`the batch with an invalid item answered ${describeAnswer(mixed)}`);
  const retryKey = runKey(context, 'batch');
  const valid = [statusFor(context, first, 'FAILED', 'batch'), statusFor(context, second, 'FAILED', 'batch')];
  const retry = await probe.send(probe.callback('batch', batchBody(context, retryKey, valid), retryKey), 'the 2 valid orders in a new batch');
  if (retry.status !== 200) return failed(`refused whole (${describeAnswer(mixed)}), but the 2 valid orders in a new batch answered ${describeAnswer(retry)}: part of the refused batch was applied`);
  return passed(`${describeAnswer(mixed)}, then the 2 valid orders in a new batch 200: nothing of the first was applied`);
});
