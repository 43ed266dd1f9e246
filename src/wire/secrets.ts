// Client secrets and API keys are stored as SHA-256 hashes: sandbox credentials are long random strings,
// so a slow KDF buys nothing and would cost the API-key path its throughput.
import { createHash, timingSafeEqual } from 'node:crypto';

const PREFIX = 'sha256:';

export function hashSecret(secret: string): string {
  return PREFIX + createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  if (!storedHash.startsWith(PREFIX)) return false;
  const expected = Buffer.from(storedHash.slice(PREFIX.length), 'hex');
  const actual = createHash('sha256').update(secret, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Compares a presented secret (a Bearer token, an admin token) with the expected one in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
