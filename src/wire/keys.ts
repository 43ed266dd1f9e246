// JWK handling: generation and export with node:crypto, cached KeyObjects for the hot path.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, JsonWebKey, KeyObject } from 'node:crypto';
import { b64url } from './base64url';
import { isAllowedAlg, JwsAlg, keyFitsAlg } from './algorithms';

export interface PublicJwk extends JsonWebKey {
  kid?: string;
  alg?: string;
  use?: string;
}

export interface Jwks {
  keys: PublicJwk[];
}

export interface VerificationKey {
  kid: string;
  alg: JwsAlg | null;
  key: KeyObject;
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export function publicOnly(jwk: PublicJwk): PublicJwk {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as PublicJwk;
}

export function publicKeyFromJwk(jwk: PublicJwk): KeyObject {
  return createPublicKey({ key: publicOnly(jwk), format: 'jwk' });
}

export function privateKeyFromJwk(jwk: PublicJwk): KeyObject {
  return createPrivateKey({ key: jwk, format: 'jwk' });
}

/** RFC 7638 thumbprint (SHA-256, base64url) of a public JWK. */
export function jwkThumbprint(jwk: PublicJwk): string {
  const required: Record<string, string[]> = { EC: ['crv', 'kty', 'x', 'y'], RSA: ['e', 'kty', 'n'], OKP: ['crv', 'kty', 'x'] };
  const members = required[jwk.kty ?? ''];
  if (!members) throw new Error(`unsupported kty ${jwk.kty}`);
  const canonical = `{${members.map((name) => `"${name}":${JSON.stringify((jwk as Record<string, unknown>)[name])}`).join(',')}}`;
  return b64url(createHash('sha256').update(canonical).digest());
}

/** Verification keys of one signer, by kid. Throws on a key that cannot serve the profile's algorithms. */
export class KeySet {
  private readonly byKid = new Map<string, VerificationKey>();

  constructor(jwks: Jwks) {
    for (const jwk of jwks.keys) {
      if (!jwk.kid) throw new Error('every JWK needs a kid');
      const alg = jwk.alg === undefined ? null : jwk.alg;
      if (alg !== null && !isAllowedAlg(alg)) throw new Error(`JWK ${jwk.kid}: alg ${alg} is not ES256, PS256 or RS256`);
      const key = publicKeyFromJwk(jwk);
      this.byKid.set(jwk.kid, { kid: jwk.kid, alg, key });
    }
  }

  /** The key for kid when it may verify `alg`; null otherwise (unknown kid, or a key bound to another alg). */
  find(kid: string, alg: JwsAlg): KeyObject | null {
    const entry = this.byKid.get(kid);
    if (!entry || (entry.alg !== null && entry.alg !== alg) || !keyFitsAlg(alg, entry.key)) return null;
    return entry.key;
  }
}

export interface SigningKey {
  kid: string;
  alg: JwsAlg;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: PublicJwk;
}

/**
 * Generates an ES256 signing key; returns its private JWK (kid set to the RFC 7638 thumbprint). node:crypto, not
 * node-jose: this runs on a fresh data dir's first start, where loading node-jose alone costs about 0.2 s.
 */
export async function generateSigningJwk(): Promise<PublicJwk> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as PublicJwk;
  return { ...jwk, kid: jwkThumbprint(jwk), alg: 'ES256', use: 'sig' };
}

export function signingKeyFromJwk(jwk: PublicJwk): SigningKey {
  if (!jwk.kid || !isAllowedAlg(jwk.alg)) throw new Error('a signing JWK needs a kid and an allowed alg');
  return { kid: jwk.kid, alg: jwk.alg, privateKey: privateKeyFromJwk(jwk), publicKey: publicKeyFromJwk(jwk), publicJwk: publicOnly(jwk) };
}
