// Random identifiers on the hot path, hex-encoded from a pool of random bytes that is refilled in one call when
// used up: a randomBytes or randomUUID call per id costs three to four times as much (issue 15: a nonce 330 against
// 85 ns, a bank reference's 6 hex digits 460 against 130). The bytes are node's CSPRNG's, as randomBytes gives them.
import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(8192);
let used = pool.length;

/** Where the next `count` unused bytes of the pool start (refilled when fewer are left). */
function take(count: number): number {
  if (used + count > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const start = used;
  used += count;
  return start;
}

/** 32 characters of [0-9a-f], 128 random bits: a valid X-Nonce (profile section 2). */
export function newNonce(): string {
  const start = take(16);
  return pool.toString('hex', start, start + 16);
}

/** `length` random upper-case hex characters (at most 32). */
export function randomHex(length: number): string {
  const bytes = (length + 1) >> 1;
  const start = take(bytes);
  const hex = pool.toString('hex', start, start + bytes).toUpperCase();
  return length % 2 === 0 ? hex : hex.slice(0, length);
}
