// DPoP proof verification (RFC 9449) for the token endpoint and for DPoP-bound access tokens.
import { createHash } from 'node:crypto';
import { b64url } from '../../wire/base64url';
import { parseJwt, verifyJwtSignature } from '../../wire/compact-jwt';
import { jwkThumbprint, PublicJwk, publicKeyFromJwk } from '../../wire/keys';

export class DpopInvalidError extends Error {}

export interface DpopExpectation {
  method: string;
  /** scheme://host/path, no query or fragment. */
  htu: string;
  nowMs: number;
  windowS: number;
  /** The access token the proof must bind (`ath`); absent at the token endpoint. */
  accessToken?: string;
}

export interface VerifiedDpopProof {
  jkt: string;
  jti: string;
}

export function accessTokenHash(token: string): string {
  return b64url(createHash('sha256').update(token, 'ascii').digest());
}

function fail(why: string): never {
  throw new DpopInvalidError(why);
}

function proofKey(header: Record<string, unknown>): PublicJwk {
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) fail('DPoP proof has no jwk header');
  if ('d' in jwk) fail('DPoP proof jwk must be a public key');
  return jwk as PublicJwk;
}

/** Verifies one proof; the caller spends its jti. */
export function verifyDpopProof(proof: string, expected: DpopExpectation): VerifiedDpopProof {
  let jwt;
  try {
    jwt = parseJwt(proof);
  } catch (error) {
    fail(`DPoP proof is malformed: ${(error as Error).message}`);
  }
  if (jwt.header.typ !== 'dpop+jwt') fail('DPoP proof typ must be dpop+jwt');
  const jwk = proofKey(jwt.header);
  let key;
  try {
    key = publicKeyFromJwk(jwk);
  } catch {
    fail('DPoP proof jwk is not a usable public key');
  }
  if (!verifyJwtSignature(jwt, key)) fail('DPoP proof signature does not verify');
  const { htm, htu, iat, jti, ath } = jwt.claims;
  if (htm !== expected.method) fail('DPoP htm does not match the request method');
  if (htu !== expected.htu) fail('DPoP htu does not match the request URI');
  if (typeof iat !== 'number' || Math.abs(iat * 1000 - expected.nowMs) > expected.windowS * 1000) fail('DPoP iat is outside the window');
  if (typeof jti !== 'string' || jti.length < 8 || jti.length > 256) fail('DPoP jti is missing');
  if (expected.accessToken !== undefined && ath !== accessTokenHash(expected.accessToken)) fail('DPoP ath does not match the access token');
  return { jkt: jwkThumbprint(jwk), jti };
}
