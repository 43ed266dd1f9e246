import { defineCase, describeAnswer, failed, passed, runKey, statusFor } from '../../case';

export default defineCase('unit.rotated_key_accepted', 1, async (context, [order]) => {
  const { probe } = context;
  const signer = await context.rotatedKey();
  const request = probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit'), { signer });
  const sentAt = probe.now;
  const answer = await probe.send(request, `SUCCESS for ${order.reference}, signed by the new key ${signer.kid}`);
  if (answer.status === 200) return passed('200 with a key published after the Connector last fetched the JWKS');
  const fetches = context.jwksFetches(sentAt, answer.at);
  const refetch = fetches === null ? '' : fetches === 0 ? ': the Connector did not refetch the JWKS on the unknown kid' : `, after ${fetches} JWKS fetch(es)`;
  return failed(`a callback signed by a newly published Bank key answered ${describeAnswer(answer)}${refetch}`);
});
