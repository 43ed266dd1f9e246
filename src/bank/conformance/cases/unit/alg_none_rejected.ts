import { defineCase, expectRejected, runKey, statusFor } from '../../case';
import { withAlgNone } from '../../probe';

export default defineCase('unit.alg_none_rejected', 1, async (context, [order]) => {
  const unsigned = withAlgNone(context.probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit')));
  return expectRejected(await context.probe.send(unsigned, `SUCCESS for ${order.reference}, JWS alg none`, 'X-Signature is an unsecured JWS (alg: none)'), 'the alg none callback');
});
