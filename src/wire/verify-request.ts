// Checking a signed incoming request, the same on both sides (profile sections 1 and 2): the flow's signed
// headers present, X-Timestamp and X-Nonce well formed, and X-Signature a detached JWS by a known key over the
// signature base rebuilt from the request AS RECEIVED (raw target, raw body bytes). Each check returns a typed
// failure with the profile's code and a detail; the side turns it into its own problem. Who may call, the
// timestamp window's wording and the nonce store stay with each side.
import type { KeyObject } from 'node:crypto';
import { JwsAlg } from './algorithms';
import { isNonce, parseTimestamp } from './freshness';
import { JwsFormatError, JwsRejection, parseDetached, ParsedDetachedJws, verifyDetached } from './jws';
import { contentDigestMatches, contentDigestOfSha256, SIGNED_HEADERS, SignedFlow, signatureBase } from './signature-base';

/** Why a signature was refused (the `reason` of a signature_invalid problem, profile v1.1 section 5). */
export type SignatureRejection = JwsRejection | 'kid_unknown' | 'digest_mismatch' | 'signature_mismatch';

export interface VerifyFailure {
  code: 'header_missing' | 'header_invalid' | 'signature_missing' | 'signature_invalid';
  detail: string;
  /** Set for signature_invalid. */
  reason?: SignatureRejection;
}

/** The request as it arrived: `target` is the path and raw query exactly as sent, `body` the raw bytes. */
export interface IncomingRequest {
  method: string;
  target: string;
  /** A single-valued header by lower-case name. */
  header(name: string): string | undefined;
  body: Buffer;
  /** SHA-256 of body, when the receiver already took it (the base's digest line and a Content-Digest check use it). */
  bodySha256?: Buffer;
}

export interface SignedHeaders {
  /** The flow's signed headers by lower-case name (profile section 1 table). */
  values: Record<string, string>;
  timestampMs: number;
}

export function isFailure(value: object | null): value is VerifyFailure {
  return value !== null && 'code' in value;
}

/** The flow's signed headers, every one present and non-empty, X-Timestamp and X-Nonce well formed. */
export function readSignedHeaders(flow: SignedFlow, header: (name: string) => string | undefined): SignedHeaders | VerifyFailure {
  const values: Record<string, string> = {};
  for (const name of SIGNED_HEADERS[flow]) {
    const value = header(name);
    if (value === undefined || value === '') return { code: 'header_missing', detail: `${name} is required` };
    values[name] = value;
  }
  const timestampMs = parseTimestamp(values['x-timestamp']);
  if (timestampMs === null) return { code: 'header_invalid', detail: 'x-timestamp must be an RFC 3339 UTC instant ending in Z' };
  if (!isNonce(values['x-nonce'])) return { code: 'header_invalid', detail: 'x-nonce must be 16 to 128 characters of [A-Za-z0-9_-]' };
  return { values, timestampMs };
}

/** The signature base of the request as received (a signed header it lacks counts as empty). */
export function incomingSignatureBase(flow: SignedFlow, request: IncomingRequest): string {
  const headers: Record<string, string> = {};
  for (const name of SIGNED_HEADERS[flow]) {
    const value = request.header(name);
    if (value !== undefined) headers[name] = value;
  }
  return signatureBase(flow, { method: request.method, target: request.target, headers, body: request.body, digest: request.bodySha256 && contentDigestOfSha256(request.bodySha256) });
}

/** Finds the signer's key for kid and alg (null: none). */
export type KeyLookup<R> = (kid: string, alg: JwsAlg) => R;

function parseSignature(value: string | undefined): ParsedDetachedJws | VerifyFailure {
  if (!value) return { code: 'signature_missing', detail: 'X-Signature is required (a detached JWS over the signature base)' };
  try {
    return parseDetached(value);
  } catch (error) {
    if (error instanceof JwsFormatError) return { code: 'signature_invalid', detail: error.message, reason: error.reason };
    throw error;
  }
}

/** Profile v1.1 section 1: a Content-Digest header, when sent, must match the bytes received. */
function digestFailure(request: IncomingRequest): VerifyFailure | null {
  const sent = request.header('content-digest');
  if (sent === undefined || contentDigestMatches(sent, request.body, request.bodySha256)) return null;
  return { code: 'signature_invalid', detail: 'the Content-Digest header does not match the body received', reason: 'digest_mismatch' };
}

function verifyWith(parsed: ParsedDetachedJws, key: KeyObject | null, keyOwner: string, flow: SignedFlow, request: IncomingRequest): VerifyFailure | null {
  if (!key) return { code: 'signature_invalid', detail: `kid "${parsed.header.kid}" is not a ${parsed.header.alg} key ${keyOwner}`, reason: 'kid_unknown' };
  if (!verifyDetached(parsed, incomingSignatureBase(flow, request), key)) {
    return { code: 'signature_invalid', detail: 'the signature does not match the signature base of this request', reason: 'signature_mismatch' };
  }
  return null;
}

/**
 * X-Signature: present, a detached JWS, by a key `findKey` knows, over this request's signature base.
 * `keyOwner` says whose keys were searched, for the detail ("of client acme", "in the Bank's JWKS").
 */
export function checkSignature(flow: SignedFlow, request: IncomingRequest, findKey: KeyLookup<KeyObject | null>, keyOwner: string): VerifyFailure | null {
  const parsed = parseSignature(request.header('x-signature'));
  if (isFailure(parsed)) return parsed;
  return digestFailure(request) ?? verifyWith(parsed, findKey(parsed.header.kid, parsed.header.alg), keyOwner, flow, request);
}

/** checkSignature with a key lookup that may have to fetch (a JWKS). */
export async function checkSignatureAsync(flow: SignedFlow, request: IncomingRequest, findKey: KeyLookup<Promise<KeyObject | null>>, keyOwner: string): Promise<VerifyFailure | null> {
  const parsed = parseSignature(request.header('x-signature'));
  if (isFailure(parsed)) return parsed;
  return digestFailure(request) ?? verifyWith(parsed, await findKey(parsed.header.kid, parsed.header.alg), keyOwner, flow, request);
}

/**
 * The last millisecond a spent nonce must count as spent: the window past the later of its timestamp and now. The
 * window is inclusive, so a store treats the nonce as expired only once this has passed (`expires_at < now`).
 */
export function nonceExpiresAt(timestampMs: number, nowMs: number, windowS: number): number {
  return Math.max(timestampMs, nowMs) + windowS * 1000;
}
