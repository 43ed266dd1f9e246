import { defineCase, describeAnswer, expectRejected, failed, runKey, statusFor } from '../../case';

export default defineCase('unit.replayed_nonce_rejected', 1, async (context, [order]) => {
  const { probe } = context;
  const request = probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit'));
  const first = await probe.send(request, `SUCCESS for ${order.reference}`);
  if (first.status !== 200) return failed(`the first, correct callback answered ${describeAnswer(first)}`);
  return expectRejected(await probe.send(request, 'the same request again, byte for byte', 'replayed byte for byte (same nonce)'), 'the replayed callback');
});
