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

// Masker.scrub with short secrets (under 8 characters): replaced wherever they stand as a whole token, that is where
// the characters around them could not continue the same token (letters, digits, `_ . ~ + / -`); `=`, punctuation,
// spaces, a JSON escape (`\n`) or a percent-encoded character in front are boundaries.
describe('journal: short secrets scrubbed where they stand as a whole token', () => {
  it('scrubs a short secret met in a query parameter from the rest of the URL and from the headers', () => {
    const masker = new Masker();
    const url = masker.url('/payment-orders?token=pw1&echo=pw1&note=a%20pw1');
    const headers = masker.headers({ 'x-echo': 'pw1', 'x-list': ['token pw1;', 'plain'], 'x-words': 'pw123 upw1 pw1x', accept: 'application/json' });
    expect(masker.scrub(url)).toBe('/payment-orders?token=***&echo=***&note=a%20***');
    expect(masker.scrubHeaders(headers)).toEqual({ 'x-echo': '***', 'x-list': ['token ***;', 'plain'], 'x-words': 'pw123 upw1 pw1x', accept: 'application/json' });
  });

  it('scrubs a short Basic password met in a header from the URL, the other headers and a body', () => {
    const masker = new Masker();
    const headers = masker.headers({ authorization: `Basic ${Buffer.from('client-1:s3cr').toString('base64')}`, 'x-echo': 'password=s3cr; again "s3cr"' });
    expect(masker.scrubHeaders(headers)).toEqual({ authorization: 'Basic ***cg==', 'x-echo': 'password=***; again "***"' });
    expect(masker.scrub('/oauth/token?hint=s3cr')).toBe('/oauth/token?hint=***');
    expect(masker.scrub(JSON.stringify({ example: 'CLIENT_ID=client-1\ns3cr\n' }))).toBe('{"example":"CLIENT_ID=client-1\\n***\\n"}');
  });

  it('does not replace the same letters inside a longer word or token', () => {
    const masker = new Masker();
    expect(masker.body('{"password":"pass"}', 'application/json')).toBe('{"password":"***"}');
    const words = 'password passport bypass pass-through pass_word pass.txt a/pass pass+1 ~pass passé 2pass';
    expect(masker.scrub(words)).toBe(words);
    expect(masker.scrub('"pass" (pass) pass, x=pass&y=1 %3Dpass pass')).toBe('"***" (***) ***, x=***&y=1 %3D*** ***');
  });

  it('leaves an exchange alone when no short secret appears in it, and ignores an empty secret', () => {
    const masker = new Masker();
    expect(masker.body('{"token":"","api_key":"k1"}', 'application/json')).toBe('{"token":"***","api_key":"***"}');
    const answer = masker.headers({ 'content-type': 'application/json', 'x-note': 'k12 ok' });
    expect(masker.scrubHeaders(answer)).toBe(answer);
    expect(masker.scrub('{"status":"ok"}')).toBe('{"status":"ok"}');
  });
});
