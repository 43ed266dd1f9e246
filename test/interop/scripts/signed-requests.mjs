// Item 3: create (POST /payment-orders) and reverse polling (GET /payment-orders/{ref}/status) signed with jose,
// authorised by a Bearer token (global fetch) and by a DPoP-bound token (oauth4webapi protectedResourceRequest,
// which adds the DPoP proof with htm, htu, iat, jti and ath). Plus a signature whose header carries `crit`.
import * as oauth from 'oauth4webapi';
import { attempt, capture, connector, insecureFor, need, requestToken, run, signedHeaders, statusTarget } from './kit.mjs';

run(async () => {
  const settings = connector();
  const { bankUrl, clientId, clientSecret } = settings;
  const template = JSON.parse(need('ORDER'));
  const orderBody = (suffix) => JSON.stringify({ ...template, reference: `${template.reference}-${suffix}` });
  const url = (target) => new URL(target, bankUrl);

  // Bearer: headers by hand, sent with Node's global fetch.
  const bearer = await requestToken(bankUrl, clientId, oauth.ClientSecretBasic(clientSecret));
  const withBearer = async (method, target, flow, body, sign) => {
    const headers = { ...(await signedHeaders(flow, method, target, body, settings, sign)), authorization: `Bearer ${bearer.access_token}` };
    return capture(await fetch(url(target), { method, headers, body: body || undefined }));
  };

  // DPoP: one key pair for the token request and every proof, so the proofs match the token's cnf.jkt.
  const dpop = oauth.DPoP({ client_id: clientId }, await oauth.generateKeyPair('ES256'));
  const dpopToken = await requestToken(bankUrl, clientId, oauth.ClientSecretBasic(clientSecret), { dpop });
  const withDpop = async (method, target, flow, body) => {
    const headers = new Headers(await signedHeaders(flow, method, target, body, settings));
    const options = { DPoP: dpop, ...insecureFor(bankUrl) };
    return capture(await oauth.protectedResourceRequest(dpopToken.access_token, method, url(target), headers, body || undefined, options));
  };

  const bearerBody = orderBody('BEARER');
  const dpopBody = orderBody('DPOP');
  const bearerCreate = await attempt(() => withBearer('POST', '/payment-orders', 'create', bearerBody));
  const bearerPoll = await attempt(() => withBearer('GET', statusTarget(JSON.parse(bearerBody).reference), 'status', ''));
  const dpopCreate = await attempt(() => withDpop('POST', '/payment-orders', 'create', dpopBody));
  const dpopPoll = await attempt(() => withDpop('GET', statusTarget(JSON.parse(dpopBody).reference), 'status', ''));
  // A critical extension that jose understands and signs, but that the Bank does not know.
  const crit = { header: { crit: ['urn:example:interop'], 'urn:example:interop': true }, options: { crit: { 'urn:example:interop': true } } };
  const critCreate = await attempt(() => withBearer('POST', '/payment-orders', 'create', orderBody('CRIT'), crit));

  return {
    bearer: { token_type: bearer.wire_token_type, create: bearerCreate, poll: bearerPoll },
    dpop: { token_type: dpopToken.wire_token_type, create: dpopCreate, poll: dpopPoll },
    crit: { create: critCreate },
  };
});
