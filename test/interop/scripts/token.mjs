// Item 1: oauth4webapi at POST /oauth/token, client_credentials. Successes (client_secret_basic,
// client_secret_post, DPoP-bound) and the errors a Connector must be able to parse.
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import { attempt, connector, requestToken, run } from './kit.mjs';

run(async () => {
  const { bankUrl, clientId, clientSecret } = connector();
  const token = (clientAuth, options) => attempt(() => requestToken(bankUrl, clientId, clientAuth, options));
  const summary = async (clientAuth, options) => {
    const result = await token(clientAuth, options);
    if (!result.ok) return result;
    const { token_type, wire_token_type, expires_in, access_token } = result;
    return { ok: true, token_type, wire_token_type, expires_in, claims: decodeJwt(access_token) };
  };

  const keyPair = await oauth.generateKeyPair('ES256');
  const thumbprint = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
  const client = { client_id: clientId };
  // A proof for another method than the request's: RFC 9449 section 4.3 check 8 fails.
  const wrongHtm = oauth.DPoP(client, keyPair, { [oauth.modifyAssertion]: (_header, payload) => void (payload.htm = 'GET') });

  return {
    basic: await summary(oauth.ClientSecretBasic(clientSecret)),
    post: await summary(oauth.ClientSecretPost(clientSecret)),
    dpop: { ...(await summary(oauth.ClientSecretBasic(clientSecret), { dpop: oauth.DPoP(client, keyPair) })), thumbprint },
    wrong_secret_basic: await token(oauth.ClientSecretBasic(`${clientSecret}-wrong`)),
    wrong_secret_post: await token(oauth.ClientSecretPost(`${clientSecret}-wrong`)),
    unsupported_grant: await token(oauth.ClientSecretBasic(clientSecret), { grantType: 'password' }),
    bad_dpop_proof: await token(oauth.ClientSecretBasic(clientSecret), { dpop: wrongHtm }),
  };
});
