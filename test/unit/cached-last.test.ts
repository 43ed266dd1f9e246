// cachedLast: the one-entry cache the Connector's client and the journal keep for the URL every callback shares.
import { cachedLast } from '../../src/wire/cached-last';

describe('cachedLast', () => {
  it('computes again only when the key changes', () => {
    const seen: string[] = [];
    const length = cachedLast((key) => (seen.push(key), key.length));
    expect([length('ab'), length('ab'), length('abc'), length('abc'), length('ab')]).toEqual([2, 2, 3, 3, 2]);
    expect(seen).toEqual(['ab', 'abc', 'ab']);
  });

  it('does not keep a throw: the next call with that key computes again', () => {
    let calls = 0;
    const parse = cachedLast((key) => {
      calls += 1;
      return new URL(key);
    });
    expect(() => parse('not a url')).toThrow();
    expect(() => parse('not a url')).toThrow();
    expect(calls).toBe(2);
    const url = parse('https://connector.example/callbacks');
    expect(parse('https://connector.example/callbacks')).toBe(url);
    expect(calls).toBe(3);
  });
});
