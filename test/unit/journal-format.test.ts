// cut (application/journal-format.ts): a journal body kept to `limit` bytes of UTF-8, a character cut in two
// becoming U+FFFD. It encodes only the start of a long text; the result must be what cutting the whole text's
// bytes gives, for any mix of 1- to 4-byte characters.
import { cut, Masker } from '../../src/bank/application/journal-format';

/** The definition: every byte of the text, cut, decoded. */
function cutWhole(text: string, limit: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text);
  return bytes.length <= limit ? { text, truncated: false } : { text: bytes.subarray(0, limit).toString('utf8'), truncated: true };
}

const PIECES = ['a', 'Z', '{', 'é', 'ß', '€', '中', '😀', '𝄞', '\u{10FFFF}'];

/** A deterministic pseudo-random text of `length` pieces. */
function text(seed: number, length: number): string {
  let state = seed;
  let out = '';
  for (let index = 0; index < length; index += 1) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    out += PIECES[state % PIECES.length];
  }
  return out;
}

describe('journal bodies: cut', () => {
  it('keeps a text within the limit as it is', () => {
    expect(cut('{"reference":"ORD-1"}', 100)).toEqual({ text: '{"reference":"ORD-1"}', truncated: false });
    expect(cut('€€', 6)).toEqual({ text: '€€', truncated: false });
  });

  it('cuts at the byte limit, a split character becoming U+FFFD', () => {
    expect(cut('abc€', 4)).toEqual({ text: 'abc\uFFFD', truncated: true });
    expect(cut('a😀b', 3)).toEqual({ text: 'a\uFFFD', truncated: true });
    expect(cut('x'.repeat(10), 4)).toEqual({ text: 'xxxx', truncated: true });
  });

  it('gives what cutting all the bytes gives, for any mix of characters and limits', () => {
    for (let seed = 1; seed <= 200; seed += 1) {
      const sample = text(seed, 1 + (seed % 60));
      for (const limit of [1, 2, 3, 4, 5, 7, 16, 31, 64]) expect([seed, limit, cut(sample, limit)]).toEqual([seed, limit, cutWhole(sample, limit)]);
    }
  });
});

// Masker.scrubHeaders, the second pass: a secret met in one header is scrubbed from every other, and headers that
// hold none come back as they are (the journal's common case, taken without a copy).
describe('journal headers: scrubbed in the second pass', () => {
  const token = 'tok-0123456789abcdefWXYZ';

  it('scrubs a secret met in Authorization wherever else it appears, single or repeated', () => {
    const masker = new Masker();
    const request = masker.headers({ authorization: `Bearer ${token}`, 'x-echo': `was ${token}`, 'x-list': ['plain', `and ${token}`], 'x-plain': 'kept' });
    const scrubbed = masker.scrubHeaders(request);
    expect(scrubbed).toEqual({ authorization: 'Bearer ***WXYZ', 'x-echo': 'was ***WXYZ', 'x-list': ['plain', 'and ***WXYZ'], 'x-plain': 'kept' });
    expect(request['x-echo']).toBe(`was ${token}`);
  });

  it('answers the same headers when none holds a remembered secret', () => {
    const masker = new Masker();
    masker.headers({ authorization: `Bearer ${token}` });
    const answer = masker.headers({ 'content-type': 'application/json', vary: ['accept', 'origin'] });
    expect(masker.scrubHeaders(answer)).toBe(answer);
  });
});
