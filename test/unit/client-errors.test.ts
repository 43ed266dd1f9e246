// What the Bank's servers answer to a clientError (wire/client-errors.ts, used by bank/server.ts answerParserErrors):
// node's own default statuses, with a problem of the profile, and no answer at all where nothing would read one.
import { clientErrorProblem, clientErrorState } from '../../src/wire/client-errors';

describe('clientErrorProblem', () => {
  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', false, 408, 'header_invalid'],
    ['ERR_HTTP_REQUEST_TIMEOUT', true, 408, 'body_malformed'],
    ['HPE_HEADER_OVERFLOW', false, 431, 'header_invalid'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', true, 413, 'body_too_large'],
    ['HPE_INVALID_CHUNK_SIZE', true, 400, 'body_malformed'],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', false, 400, 'header_invalid'],
    ['HPE_INVALID_METHOD', false, 400, 'header_invalid'],
    [undefined, false, 400, 'header_invalid'],
  ])('%s (in the body: %s) is %i %s', (code, inBody, status, problemCode) => {
    const problem = clientErrorProblem(code, inBody);
    expect([problem?.status, problem?.code]).toEqual([status, problemCode]);
    if (code) expect(problem?.detail).toContain(code);
  });

  it.each(['ERR_TLS_SESSION_ATTACK', 'ERR_SSL_WRONG_VERSION_NUMBER', 'EPIPE', 'ETIMEDOUT'])('%s is not answered: the socket is destroyed', (code) => {
    expect(clientErrorProblem(code, false)).toBeNull();
    expect(clientErrorProblem(code, true)).toBeNull();
  });
});

describe('clientErrorState', () => {
  const request = (complete: boolean) => ({ complete });
  it('a failure with no request read and no response pending is fresh', () => {
    expect(clientErrorState({ _httpMessage: null, parser: { incoming: null } })).toBe('fresh');
    expect(clientErrorState({ _httpMessage: null, parser: { incoming: request(true) } })).toBe('fresh');
  });
  it("a failure in the body of the request whose response has not started is the body's", () => {
    const incoming = request(false);
    expect(clientErrorState({ _httpMessage: { headersSent: false, req: incoming }, parser: { incoming } })).toBe('body');
  });
  it('a response started, one queued for an earlier request, or a request already answered: busy', () => {
    const incoming = request(false);
    expect(clientErrorState({ _httpMessage: { headersSent: true, req: incoming }, parser: { incoming } })).toBe('busy');
    expect(clientErrorState({ _httpMessage: { headersSent: false, req: request(true) }, parser: { incoming } })).toBe('busy');
    expect(clientErrorState({ _httpMessage: { headersSent: false, req: incoming }, parser: { incoming: request(true) } })).toBe('busy');
    expect(clientErrorState({ _httpMessage: null, parser: { incoming } })).toBe('busy');
  });
});
