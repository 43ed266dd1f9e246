// DPoP proof verification (RFC 9449) for the token endpoint and for DPoP-bound access tokens.
import { createHash } from 'node:crypto';
import { b64url } from '../../wire/base64url';
import { parseJwt, verifyJwtSignature } from '../../wire/compact-jwt';
import { jwkThumbprint, PublicJwk, publicKeyFromJwk } from '../../wire/keys';

/** Why a proof was refused: the `reason` of the problem (profile section 5). */
export type DpopRejection = 'dpop_malformed' | 'dpop_jwk' | 'dpop_signature' | 'dpop_htm' | 'dpop_htu' | 'dpop_iat' | 'dpop_jti' | 'dpop_ath' | 'dpop_replayed';

export class DpopInvalidError extends Error {
  constructor(readonly reason: DpopRejection, message: string) {
    super(message);
  }
}

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

function fail(reason: DpopRejection, why: string): never {
  throw new DpopInvalidError(reason, why);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** RFC 3986 §6.2.2.2: percent-encodings in upper case, and unreserved characters decoded. */
function normalizePercentEncoding(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * RFC 9449 §4.3 compares htu after RFC 3986 §6.2.2 and §6.2.3 normalisation: scheme and host in lower case,
 * the default port dropped, dot segments removed, an empty path as "/", query and fragment ignored.
 * Returns null for a value that is not an absolute http(s) URI.
 */
export function normalizeHtu(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return `${url.protocol}//${url.host}${normalizePercentEncoding(url.pathname)}`;
}

function proofKey(header: Record<string, unknown>): PublicJwk {
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) fail('dpop_jwk', 'DPoP proof has no jwk header');
  if ('d' in jwk) fail('dpop_jwk', 'DPoP proof jwk must be a public key');
  return jwk as PublicJwk;
}

/** Verifies one proof; the caller spends its jti. */
export function verifyDpopProof(proof: string, expected: DpopExpectation): VerifiedDpopProof {
  let jwt;
  try {
    jwt = parseJwt(proof);
  } catch (error) {
    fail('dpop_malformed', `DPoP proof is malformed: ${(error as Error).message}`);
  }
  if (jwt.header.typ !== 'dpop+jwt') fail('dpop_malformed', 'DPoP proof typ must be dpop+jwt');
  const jwk = proofKey(jwt.header);
  let key;
  try {
    key = publicKeyFromJwk(jwk);
  } catch {
    fail('dpop_jwk', 'DPoP proof jwk is not a usable public key');
  }
  if (!verifyJwtSignature(jwt, key)) fail('dpop_signature', 'DPoP proof signature does not verify');
  const { htm, htu, iat, jti, ath } = jwt.claims;
  if (htm !== expected.method) fail('dpop_htm', 'DPoP htm does not match the request method');
  if (typeof htu !== 'string' || normalizeHtu(htu) !== normalizeHtu(expected.htu)) fail('dpop_htu', `DPoP htu does not match the request URI ${expected.htu}`);
  if (typeof iat !== 'number' || Math.abs(iat * 1000 - expected.nowMs) > expected.windowS * 1000) fail('dpop_iat', 'DPoP iat is outside the window');
  if (typeof jti !== 'string') fail('dpop_jti', 'DPoP jti is missing');
  if (jti.length < 8 || jti.length > 256) fail('dpop_jti', `DPoP jti must be 8 to 256 characters, got ${jti.length}`);
  if (expected.accessToken !== undefined && ath !== accessTokenHash(expected.accessToken)) fail('dpop_ath', 'DPoP ath does not match the access token');
  return { jkt: jwkThumbprint(jwk), jti };
}
