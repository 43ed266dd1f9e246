// Signing keys a run makes for itself (a rotated Bank key, a key in no JWKS): node:crypto, not node-jose, since
// a run should not pay node-jose's load time.
import { generateKeyPairSync } from 'node:crypto';
import { jwkThumbprint, PublicJwk, SigningKey, signingKeyFromJwk } from '../../wire/keys';

export function freshSigningKey(): SigningKey {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as PublicJwk;
  return signingKeyFromJwk({ ...jwk, kid: jwkThumbprint(jwk), alg: 'ES256', use: 'sig' });
}
