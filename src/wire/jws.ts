// Compact JWS with a detached payload (RFC 7515 appendix F), signed and verified with node:crypto KeyObjects.
import { KeyObject } from 'node:crypto';
import { isAllowedAlg, JwsAlg, signBytes, verifyBytes } from './algorithms';
import { b64url, decodedB64url, fromB64url, isB64url } from './base64url';

export interface JwsHeader {
  alg: JwsAlg;
  kid: string;
  typ?: string;
  [name: string]: unknown;
}

export function signDetached(payload: string, key: KeyObject, header: JwsHeader): string {
  const protectedHeader = b64url(JSON.stringify(header));
  const signature = signBytes(header.alg, key, `${protectedHeader}.${b64url(payload)}`);
  return `${protectedHeader}..${b64url(signature)}`;
}

export interface ParsedDetachedJws {
  header: JwsHeader;
  protectedHeader: string;
  signature: Buffer;
}

/** Why a JWS could not be used (the `reason` of a signature_invalid problem, profile section 5). */
export type JwsRejection = 'malformed' | 'alg_not_allowed' | 'crit_unsupported';

export class JwsFormatError extends Error {
  constructor(message: string, readonly reason: JwsRejection = 'malformed') {
    super(message);
  }
}

/** Header parameters that change how the payload is read: no such extension is understood here (RFC 7515 §4.1.11). */
const PAYLOAD_EXTENSIONS = ['crit', 'b64', 'zip'];

/** The protected header as sent, unchecked, for explaining a refusal; null when it cannot be decoded. */
export function peekHeader(jws: string): Record<string, unknown> | null {
  const encoded = jws.split('.')[0];
  if (!encoded || !isB64url(encoded)) return null;
  try {
    const header: unknown = JSON.parse(fromB64url(encoded).toString('utf8'));
    return typeof header === 'object' && header !== null && !Array.isArray(header) ? (header as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The protected header, decoded and checked; throws JwsFormatError. */
function checkedHeader(encoded: string): JwsHeader {
  let header: unknown;
  try {
    header = JSON.parse(fromB64url(encoded).toString('utf8'));
  } catch {
    throw new JwsFormatError('protected header is not JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new JwsFormatError('protected header is not an object');
  const { alg, kid } = header as Record<string, unknown>;
  if (!isAllowedAlg(alg)) throw new JwsFormatError('alg must be ES256, PS256 or RS256', 'alg_not_allowed');
  if (typeof kid !== 'string' || kid === '') throw new JwsFormatError('kid is missing');
  const extension = PAYLOAD_EXTENSIONS.find((name) => name in (header as Record<string, unknown>));
  if (extension) throw new JwsFormatError(`the "${extension}" header parameter is not supported (RFC 7515 section 4.1.11): no JWS extension is understood here`, 'crit_unsupported');
  return Object.freeze(header as JwsHeader);
}

// A signer sends the same protected header with every request (same alg, kid, typ), so the checked header is
// kept by its encoded text: one Map lookup instead of a base64url decode, a JSON.parse and the checks.
// Bounded in entries and in key length, since the text is the sender's.
const HEADER_CACHE_LIMIT = 256;
const HEADER_CACHE_KEY_LIMIT = 512;
const checkedHeaders = new Map<string, JwsHeader>();

/** The checked header of `encoded`, from the cache or checked now (its spelling included); undefined if malformed. */
function cachedHeader(encoded: string): JwsHeader | undefined {
  let header = checkedHeaders.get(encoded);
  if (header === undefined) {
    if (!isB64url(encoded)) return undefined;
    header = checkedHeader(encoded);
    if (encoded.length > HEADER_CACHE_KEY_LIMIT) return header;
    if (checkedHeaders.size >= HEADER_CACHE_LIMIT) checkedHeaders.clear();
    checkedHeaders.set(encoded, header);
  }
  return header;
}

/** Parses `protected..signature`; throws JwsFormatError on anything else. The header is frozen (shared). */
export function parseDetached(jws: string): ParsedDetachedJws {
  const parts = jws.split('.');
  const signature = parts.length === 3 && parts[1] === '' && parts[0] && parts[2] ? decodedB64url(parts[2]) : undefined;
  // The signature's spelling is checked before the header is looked at, as it always was.
  const header = signature === undefined ? undefined : cachedHeader(parts[0]);
  if (header === undefined) throw new JwsFormatError('expected a compact JWS with a detached payload: <protected>..<signature>');
  if (header.alg === 'ES256' && (signature as Buffer).length !== ES256_SIGNATURE_BYTES) throw new JwsFormatError(es256LengthMessage(signature as Buffer));
  return { header, protectedHeader: parts[0], signature: signature as Buffer };
}

/** RFC 7518 section 3.4: an ES256 signature is R and S, 32 bytes each, side by side. */
const ES256_SIGNATURE_BYTES = 64;

/**
 * Said of an ES256 signature of another length: most often the DER encoding that OpenSSL, Python's cryptography
 * and Java return by default, which would otherwise read as a signature that does not match the base.
 */
function es256LengthMessage(signature: Buffer): string {
  const der = signature.length > 2 && signature[0] === 0x30 && signature[1] === signature.length - 2;
  const hint = der ? ': it looks DER-encoded (ASN.1 SEQUENCE of r and s); convert it to r || s, each left-padded to 32 bytes' : '';
  return `an ES256 signature is 64 bytes, r || s (RFC 7518 section 3.4); this one is ${signature.length} bytes${hint}`;
}

export function verifyDetached(parsed: ParsedDetachedJws, payload: string, key: KeyObject): boolean {
  return verifyBytes(parsed.header.alg, key, `${parsed.protectedHeader}.${b64url(payload)}`, parsed.signature);
}
