// The JWS algorithms the profile allows, mapped to node:crypto parameters.
import { constants, KeyObject, sign, verify } from 'node:crypto';

export const ALLOWED_ALGS = ['ES256', 'PS256', 'RS256'] as const;
export type JwsAlg = (typeof ALLOWED_ALGS)[number];

export function isAllowedAlg(alg: unknown): alg is JwsAlg {
  return typeof alg === 'string' && (ALLOWED_ALGS as readonly string[]).includes(alg);
}

function keyParams(alg: JwsAlg, key: KeyObject) {
  switch (alg) {
    case 'ES256':
      return { key, dsaEncoding: 'ieee-p1363' as const };
    case 'PS256':
      return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
    case 'RS256':
      return { key, padding: constants.RSA_PKCS1_PADDING };
  }
}

/** The key type each algorithm needs; a key of another type fails verification. */
export function keyFitsAlg(alg: JwsAlg, key: KeyObject): boolean {
  const type = key.asymmetricKeyType;
  if (alg === 'ES256') return type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  return type === 'rsa';
}

export function signBytes(alg: JwsAlg, key: KeyObject, data: Buffer | string): Buffer {
  return sign('sha256', Buffer.from(data), keyParams(alg, key));
}

export function verifyBytes(alg: JwsAlg, key: KeyObject, data: Buffer | string, signature: Buffer): boolean {
  if (!keyFitsAlg(alg, key)) return false;
  try {
    return verify('sha256', Buffer.from(data), keyParams(alg, key), signature);
  } catch {
    return false;
  }
}
