// What the Bank's servers do with a `clientError` (bank/server.ts, answerParserErrors): node's HTTP parser refused
// the bytes, a request was too slow, or the socket itself failed. Node's own handler (lib/_http_server.js,
// socketOnError) writes a bare status line; the Bank answers with a problem body instead, but only where node's
// handler would write at all, and never over a response already on its way.
import { STATUS_CODES } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problemBody, ProblemError } from './problems';

/** The undocumented but stable (node 0.x to 24) state node's server keeps on a socket it parses. */
interface ParsedSocket {
  /** The response being written on the socket now (the oldest of pipelined requests), if any. */
  _httpMessage?: { headersSent: boolean; req?: unknown } | null;
  /** The request the parser is reading, or the last one it read, until its response ends. */
  parser?: { incoming?: { complete: boolean } | null } | null;
}

/**
 * Where the failed bytes stand with respect to the responses on the socket:
 * - `fresh`: no response is pending, and the failure is in a new request's head: the request never reached the app,
 *   so the answer written here is its only one (logged and counted here);
 * - `body`: the failure is in the body of the one request the app is handling, whose response has not started:
 *   answered here (as node does), the app logs and counts it when the socket closes;
 * - `busy`: a response is on its way (started, or queued for an earlier pipelined request), or the request that failed
 *   was already answered (a 404 sent before its body ended): anything written now would be read as the answer to
 *   another request, so nothing is.
 */
export type ClientErrorState = 'fresh' | 'body' | 'busy';

export function clientErrorState(socket: unknown): ClientErrorState {
  const { _httpMessage: pending, parser } = socket as ParsedSocket;
  const incoming = parser?.incoming;
  const inBody = incoming != null && !incoming.complete;
  if (!pending) return inBody ? 'busy' : 'fresh';
  return inBody && pending.req === incoming && !pending.headersSent ? 'body' : 'busy';
}

/**
 * The answer to a clientError, or null when the socket is only destroyed. Node's default statuses (408 for a request
 * too slow, 431 for a head over the parser's limit, 413 for chunk extensions over theirs, 400 for any other parse
 * error), with the profile's nearest code: a failure in the head is `header_invalid`, one in the body
 * `body_malformed` (`body_too_large` for the chunk extensions). Errors that are not about the request's bytes (TLS,
 * such as a renegotiation attack, or the socket's own) get no answer. docs/profile-decisions.md, "Requests the HTTP
 * parser refuses".
 */
export function clientErrorProblem(code: string | undefined, inBody: boolean): ProblemError | null {
  const part = inBody ? 'body' : 'head';
  const malformed = inBody ? 'body_malformed' : 'header_invalid';
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ProblemError(malformed, `the request's ${part} did not arrive in time (${code})`, { status: 408 });
    case 'HPE_HEADER_OVERFLOW':
      return new ProblemError('header_invalid', `the request line and headers are over the size the Bank reads (${code})`, { status: 431 });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ProblemError('body_too_large', `the chunk extensions are over the size the Bank reads (${code})`);
    default:
      if (code !== undefined && !code.startsWith('HPE_')) return null;
      return new ProblemError(malformed, `the request's ${part} could not be parsed as HTTP/1.1 (${code ?? 'parse error'})`);
  }
}

/** A whole HTTP/1.1 response with a problem body, written straight on a socket, which it closes. */
export function rawProblemResponse(problem: ProblemError, requestId: string, instance = '', headers: Record<string, string> = {}): string {
  const body = JSON.stringify(problemBody(problem, instance, requestId));
  let head = `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return `${head}X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`;
}
