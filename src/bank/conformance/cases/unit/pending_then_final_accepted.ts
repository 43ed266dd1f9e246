import { defineCase, describeAnswer, failed, passed, runKey, statusFor } from '../../case';

export default defineCase('unit.pending_then_final_accepted', 1, async (context, [order]) => {
  const { probe } = context;
  const pending = await probe.send(probe.callback('unit', statusFor(context, order, 'PENDING', 'unit'), runKey(context, 'unit')), `PENDING for ${order.reference}`);
  if (pending.status !== 200) return failed(`PENDING answered ${describeAnswer(pending)}`);
  const success = await probe.send(probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit')), `then SUCCESS for ${order.reference}`);
  return success.status === 200 ? passed('200, 200') : failed(`PENDING 200, then SUCCESS ${describeAnswer(success)}`);
});
