// Random ids from a pool of CSPRNG bytes (wire/random-ids.ts): their format, and no repeats across refills.
import { newNonce, randomHex } from '../../src/wire/random-ids';

describe('random ids', () => {
  it('a nonce is 32 lower-case hex characters, and 20,000 of them (40 refills of the pool) never repeat', () => {
    const nonces = Array.from({ length: 20_000 }, newNonce);
    for (const nonce of nonces) expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it.each([1, 6, 7, 16, 31, 32])('randomHex(%i) is that many upper-case hex characters', (length) => {
    for (let round = 0; round < 500; round += 1) expect(randomHex(length)).toMatch(new RegExp(`^[0-9A-F]{${length}}$`));
  });

  it('draws every hex digit in every position (the bytes are used, not a constant)', () => {
    const seen = Array.from({ length: 6 }, () => new Set<string>());
    for (let round = 0; round < 2_000; round += 1) [...randomHex(6)].forEach((digit, position) => seen[position].add(digit));
    for (const digits of seen) expect(digits.size).toBe(16);
  });
});
