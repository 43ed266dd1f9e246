import { defineCase, describeAnswer, expectAccepted, failed, runKey, statusFor } from '../../case';

export default defineCase('unit.redelivery_same_key_accepted', 1, async (context, [order]) => {
  const { probe } = context;
  const body = statusFor(context, order, 'SUCCESS', 'unit');
  const key = runKey(context, 'unit');
  const first = await probe.send(probe.callback('unit', body, key), `SUCCESS for ${order.reference}`);
  if (first.status !== 200) return failed(`the first delivery answered ${describeAnswer(first)}`);
  // A redelivery is the same message: same key and bytes, with a fresh nonce and timestamp.
  return expectAccepted(await probe.send(probe.callback('unit', body, key), 'the same callback again (new nonce and timestamp)', 'redelivered with the same key and body'), 'the redelivery');
});
