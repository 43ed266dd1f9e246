// The signature base of profile section 1: the payload every X-Signature signs, rebuilt from the HTTP request.
import { createHash } from 'node:crypto';

export type SignedFlow = 'create' | 'pull' | 'status' | 'callback';

/** Header lines in the base, in order, per flow (profile section 1 table). content-digest is always last. */
export const SIGNED_HEADERS: Record<SignedFlow, readonly string[]> = {
  create: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
  pull: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
  status: ['x-client-id', 'x-timestamp', 'x-nonce'],
  callback: ['x-client-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
};

/** RFC 9530 Content-Digest value over the raw body bytes. */
export function contentDigest(body: Buffer | string): string {
  return contentDigestOfSha256(createHash('sha256').update(body).digest());
}

/** The same value for a body whose SHA-256 the caller already took. */
export function contentDigestOfSha256(sha256: Buffer): string {
  return `sha-256=:${sha256.toString('base64')}:`;
}

const DIGEST_ALGORITHMS: Readonly<Record<string, string>> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };
const DIGEST_MEMBER = /^\s*([a-z0-9-]+)\s*=\s*:([A-Za-z0-9+/]*={0,2}):\s*$/;

/**
 * Checks a received Content-Digest header (RFC 9530 §2, a structured-field dictionary) against the body bytes:
 * every member with an algorithm we know must match, and at least one must be known. Profile v1.1 section 1.
 * `bodySha256`: the body's SHA-256 when the caller already took it (it is then trusted, not taken again).
 */
export function contentDigestMatches(header: string, body: Buffer | string, bodySha256?: Buffer): boolean {
  let checked = 0;
  for (const member of header.split(',')) {
    const match = DIGEST_MEMBER.exec(member);
    if (!match) return false;
    const algorithm = DIGEST_ALGORITHMS[match[1]];
    if (!algorithm) continue;
    const digest = algorithm === 'sha256' && bodySha256 ? bodySha256 : createHash(algorithm).update(body).digest();
    if (digest.toString('base64') !== match[2]) return false;
    checked += 1;
  }
  return checked > 0;
}

export interface SignatureBaseInput {
  method: string;
  /** Path plus `?query` exactly as sent on the wire. */
  target: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer | string;
  /** contentDigest(body), when the caller already has it. */
  digest?: string;
}

export function signatureBase(flow: SignedFlow, input: SignatureBaseInput): string {
  const lines = [`@method: ${input.method.toUpperCase()}`, `@target-uri: ${input.target}`];
  for (const name of SIGNED_HEADERS[flow]) lines.push(`${name}: ${input.headers[name] ?? ''}`);
  lines.push(`content-digest: ${input.digest ?? contentDigest(input.body)}`);
  return lines.join('\n');
}
