import { defineCase, describeAnswer, failed, isClientError, passed, runKey, statusFor, warning } from '../../case';

export default defineCase('unit.final_status_not_changed', 1, async (context, [order]) => {
  const { probe } = context;
  const first = await probe.send(probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit')), `SUCCESS for ${order.reference}`);
  if (first.status !== 200) return failed(`the SUCCESS callback answered ${describeAnswer(first)}`);
  const second = await probe.send(probe.callback('unit', statusFor(context, order, 'FAILED', 'unit'), runKey(context, 'unit')), `then FAILED for ${order.reference}, new key`, 'a conflicting final status');
  if (isClientError(second)) return passed(`SUCCESS 200, then FAILED ${describeAnswer(second)}`);
  if (second.status === 200) return warning('SUCCESS 200, then FAILED 200', 'the conflicting FAILED was answered 200: the contract forbids changing a final status, not the answer; make sure it was not applied');
  return failed(`the conflicting FAILED answered ${describeAnswer(second)}`);
});
