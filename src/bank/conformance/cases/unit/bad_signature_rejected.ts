import { defineCase, expectRejected, runKey, statusFor } from '../../case';
import { withBody } from '../../probe';

export default defineCase('unit.bad_signature_rejected', 1, async (context, [order]) => {
  const signed = context.probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit'));
  const tampered = withBody(signed, statusFor(context, order, 'FAILED', 'unit'));
  return expectRejected(await context.probe.send(tampered, `SUCCESS signed, FAILED sent, for ${order.reference}`, 'body changed after signing (Content-Digest recomputed for it)'), 'the callback with a changed body');
});
