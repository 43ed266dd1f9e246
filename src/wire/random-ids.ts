// Random identifiers on the hot path. randomUUID draws from Node's cached entropy pool, which is several times
// cheaper than a randomBytes call per id; 122 random bits is plenty for nonces and references.
import { randomUUID } from 'node:crypto';

/** 32 characters of [0-9a-f]: a valid X-Nonce (profile section 2). */
export function newNonce(): string {
  return randomUUID().replace(/-/g, '');
}

/** `length` upper-case hex characters (at most 32). */
export function randomHex(length: number): string {
  return newNonce().slice(0, length).toUpperCase();
}
