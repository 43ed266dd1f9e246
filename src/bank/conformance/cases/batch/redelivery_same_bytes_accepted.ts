import { batchBody, defineCase, describeAnswer, expectAccepted, failed, runKey, statusFor } from '../../case';

export default defineCase('batch.redelivery_same_bytes_accepted', 3, async (context, orders) => {
  const { probe } = context;
  const key = runKey(context, 'batch');
  const body = batchBody(context, key, orders.map((order) => statusFor(context, order, 'SUCCESS', 'batch')));
  const first = await probe.send(probe.callback('batch', body, key), `a batch of ${orders.length} SUCCESS`);
  if (first.status !== 200) return failed(`the first delivery answered ${describeAnswer(first)}`);
  return expectAccepted(await probe.send(probe.callback('batch', body, key), 'the same batch again (same bytes and key, new nonce)', 'redelivered with the same key and bytes'), 'the redelivered batch');
});
