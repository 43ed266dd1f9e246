import { defineCase, describeAnswer, failed, isClientError, passed, runKey, statusFor } from '../../case';

export default defineCase('unit.unknown_kid_rejected', 1, async (context, [order]) => {
  const { probe } = context;
  const signer = await context.foreignKey();
  const request = probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit'), { signer });
  const sentAt = probe.now;
  const answer = await probe.send(request, `SUCCESS for ${order.reference}, signed by kid ${signer.kid}`, 'signed by a key in no JWKS of the Bank');
  if (!isClientError(answer)) return failed(`a callback signed by an unknown key answered ${describeAnswer(answer)}`);
  const fetches = context.jwksFetches(sentAt, answer.at);
  if (fetches !== null && fetches > 1) return failed(`${describeAnswer(answer)}, after ${fetches} JWKS fetches (at most one refetch)`);
  return passed(`${describeAnswer(answer)}${fetches === null ? '' : `, after ${fetches} JWKS fetch${fetches === 1 ? '' : 'es'}`}`);
});
