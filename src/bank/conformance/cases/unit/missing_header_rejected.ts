import { defineCase, expectRejected, runKey, statusFor } from '../../case';

export default defineCase('unit.missing_header_rejected', 1, async (context, [order]) => {
  const request = context.probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit'), { omit: ['x-idempotency-key'] });
  return expectRejected(await context.probe.send(request, `SUCCESS for ${order.reference}, no X-Idempotency-Key`, 'X-Idempotency-Key left out (signed without it)'), 'the callback without X-Idempotency-Key');
});
