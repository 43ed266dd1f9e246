import { batchBody, defineCase, expectAccepted, runKey, statusFor } from '../../case';

export default defineCase('batch.valid_batch_accepted', 3, async (context, orders) => {
  const key = runKey(context, 'batch');
  const body = batchBody(context, key, orders.map((order) => statusFor(context, order, 'SUCCESS', 'batch')));
  return expectAccepted(await context.probe.send(context.probe.callback('batch', body, key), `a batch of ${orders.length} SUCCESS`), 'a correct batch');
});
