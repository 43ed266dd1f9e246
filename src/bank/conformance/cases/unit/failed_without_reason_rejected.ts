import { defineCase, expectRejected, runKey, statusFor } from '../../case';

export default defineCase('unit.failed_without_reason_rejected', 1, async (context, [order]) => {
  const request = context.probe.callback('unit', statusFor(context, order, 'FAILED', 'unit', 'without'), runKey(context, 'unit'));
  return expectRejected(await context.probe.send(request, `FAILED without reasonCode for ${order.reference}`, 'FAILED without reasonCode and reasonMessage (correctly signed)'), 'FAILED without a reason');
});
