// Only the canonical base64url spelling is accepted: a token or signature whose last character differs only in
// unused bits decodes to the same bytes, but it is not a string the Bank (or the client) ever produced.
import { b64url, isB64url } from '../../src/wire/base64url';

describe('canonical base64url', () => {
  it('accepts what b64url produces for every length mod 3', () => {
    for (const input of ['a', 'ab', 'abc', 'abcd', '\u00ff\u00fe']) expect(isB64url(b64url(input))).toBe(true);
  });

  it('refuses a variant that only flips unused trailing bits, padding, and impossible lengths', () => {
    expect(b64url('a')).toBe('YQ');
    expect(isB64url('YR')).toBe(false);
    expect(isB64url('YQ==')).toBe(false);
    expect(isB64url('YQA')).toBe(true);
    expect(isB64url('Y')).toBe(false);
    expect(isB64url('Y+/')).toBe(false);
  });
});
