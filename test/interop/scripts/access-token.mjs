// Item 2: jose validates the Bank's access token as an RFC 9068 JWT access token, against the Bank's JWKS.
import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { attempt, connector, need, requestToken, run } from './kit.mjs';

run(async () => {
  const { bankUrl, clientId, clientSecret } = connector();
  const { access_token: token } = await requestToken(bankUrl, clientId, oauth.ClientSecretBasic(clientSecret));
  const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', bankUrl));
  const verified = await attempt(async () => {
    const { payload, protectedHeader } = await jwtVerify(token, jwks, { typ: 'at+jwt', issuer: need('ISSUER'), audience: need('AUDIENCE') });
    return { payload, protectedHeader };
  });
  // Unverified views too, so that the claim checks say something even while verification fails.
  return { verified, header: decodeProtectedHeader(token), claims: decodeJwt(token) };
});
