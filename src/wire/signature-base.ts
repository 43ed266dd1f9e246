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
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

export interface SignatureBaseInput {
  method: string;
  /** Path plus `?query` exactly as sent on the wire. */
  target: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer | string;
}

export function signatureBase(flow: SignedFlow, input: SignatureBaseInput): string {
  const lines = [`@method: ${input.method.toUpperCase()}`, `@target-uri: ${input.target}`];
  for (const name of SIGNED_HEADERS[flow]) lines.push(`${name}: ${input.headers[name] ?? ''}`);
  lines.push(`content-digest: ${contentDigest(input.body)}`);
  return lines.join('\n');
}
