// answerJson: an answer's body parsed once however many readers ask (the poller and the journal read each pull
// page); an answer that is not JSON reads as null, and each answer object has its own parse.
import { answerJson, HttpAnswer } from '../../src/wire/signed-client';

const answer = (body: string): HttpAnswer => ({ status: 200, headers: {}, body, latencyMs: 1, error: null });

describe('answerJson', () => {
  it('parses an answer once and gives every reader the same value', () => {
    const page = answer('{"content":[{"reference":"A-1"}]}');
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const first = answerJson(page);
      expect(answerJson(page)).toBe(first);
      expect(first).toEqual({ content: [{ reference: 'A-1' }] });
      expect(parse.mock.calls).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('reads a body that is not JSON as null, once', () => {
    const html = answer('<html>bad gateway</html>');
    const parse = jest.spyOn(JSON, 'parse');
    try {
      expect(answerJson(html)).toBeNull();
      expect(answerJson(html)).toBeNull();
      expect(parse.mock.calls).toHaveLength(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('keeps each answer apart, even with the same body', () => {
    const one = answer('{"n":1}');
    const other = answer('{"n":1}');
    expect(answerJson(one)).not.toBe(answerJson(other));
    expect(answerJson(other)).toEqual({ n: 1 });
  });
});
