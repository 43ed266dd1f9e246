import { defineCase, expectAccepted, runKey, statusFor } from '../../case';

export default defineCase('unit.valid_callback_accepted', 1, async (context, [order]) => {
  const request = context.probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit'));
  return expectAccepted(await context.probe.send(request, `SUCCESS for ${order.reference}`), 'a correct SUCCESS callback');
});
