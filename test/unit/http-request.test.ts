// The signed client's HTTP exchange without axios (src/wire/http-request.ts, issue 15) sends and reads exactly what
// axios did: every call below goes once through axios, configured as the signed client had it, and once through
// httpRequest, to a TCP server that records the request's raw bytes and answers as the case says. The bytes on
// the wire, the answer (status, headers, body) and the failure (code and message) must be the same.
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import axios, { AxiosInstance } from 'axios';
import { httpRequest, HttpRequestError } from '../../src/wire/http-request';

type Answer = (socket: net.Socket) => void;

interface Outcome {
  request: string;
  answer: { status: number; headers: Record<string, unknown>; body: string } | null;
  error: string | null;
}

/** A raw HTTP/1.1 answer with these header lines and body. */
function raw(status: string, headers: string[], body: Buffer | string = ''): Answer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return (socket) => socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${[...headers, `Content-Length: ${bytes.length}`].join('\r\n')}\r\n\r\n`), bytes]));
}

/** A 200 whose body comes in these pieces, one every `everyMs`. */
function trickle(pieces: (Buffer | string)[], everyMs: number, headers: string[] = []): Answer {
  const bytes = pieces.map((piece) => (Buffer.isBuffer(piece) ? piece : Buffer.from(piece)));
  const length = bytes.reduce((total, piece) => total + piece.length, 0);
  return (socket) => {
    socket.write(`HTTP/1.1 200 OK\r\n${[...headers, `Content-Length: ${length}`].join('\r\n')}\r\n\r\n`);
    bytes.forEach((piece, index) => setTimeout(() => socket.destroyed || socket.write(piece), (index + 1) * everyMs));
  };
}

/** A server that keeps each request's raw bytes (up to the end of its body) and answers with `answer`. */
async function recordingServer(answer: Answer): Promise<{ port: number; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (received.length < end + 4 + length) return;
      requests.push(text.slice(0, end + 4 + length));
      received = received.subarray(end + 4 + length);
      answer(socket);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  timeoutMs?: number;
  maxResponseBytes?: number;
  deadlineMs?: number;
  /** user:password@ in the URL, before the host. */
  userinfo?: string;
}

function callUrl(port: number, call: Call): string {
  return `http://${call.userinfo ?? ''}127.0.0.1:${port}${call.path}`;
}

/** axios as src/wire/signed-client.ts configured it before issue 15. */
function axiosClient(agent: http.Agent, timeoutMs: number): AxiosInstance {
  return axios.create({
    timeout: timeoutMs, maxRedirects: 0, responseType: 'text', transformResponse: (data: unknown) => data, validateStatus: () => true,
    httpAgent: agent,
  });
}

function plain(headers: Record<string, unknown>): Record<string, unknown> {
  const toJSON = (headers as { toJSON?: () => Record<string, unknown> }).toJSON;
  const object = typeof toJSON === 'function' ? toJSON.call(headers) : headers;
  const { date: _date, ...rest } = object;
  return rest;
}

async function throughAxios(port: number, call: Call): Promise<Omit<Outcome, 'request'>> {
  const agent = new http.Agent({ keepAlive: true });
  const client = axiosClient(agent, call.timeoutMs ?? 2000);
  const signal = call.deadlineMs === undefined ? undefined : AbortSignal.timeout(call.deadlineMs);
  try {
    const response = await client.request<string>({
      method: call.method, url: callUrl(port, call), headers: call.headers, data: call.body,
      ...(signal ? { signal } : {}), ...(call.maxResponseBytes === undefined ? {} : { maxContentLength: call.maxResponseBytes }),
    });
    return { answer: { status: response.status, headers: plain(response.headers as unknown as Record<string, unknown>), body: String(response.data ?? '') }, error: null };
  } catch (error) {
    return { answer: null, error: axios.isAxiosError(error) ? `${error.code ?? 'ERROR'}: ${error.message}` : String(error) };
  } finally {
    agent.destroy();
  }
}

async function throughHttpRequest(port: number, call: Call): Promise<Omit<Outcome, 'request'>> {
  const agent = new http.Agent({ keepAlive: true });
  const signal = call.deadlineMs === undefined ? undefined : AbortSignal.timeout(call.deadlineMs);
  try {
    const response = await httpRequest({
      method: call.method, url: new URL(callUrl(port, call)), headers: call.headers, body: call.body, agent,
      timeoutMs: call.timeoutMs ?? 2000, maxResponseBytes: call.maxResponseBytes, signal,
    });
    return { answer: { status: response.status, headers: plain(response.headers), body: response.body }, error: null };
  } catch (error) {
    return { answer: null, error: error instanceof HttpRequestError ? `${error.code ?? 'ERROR'}: ${error.message}` : String(error) };
  } finally {
    agent.destroy();
  }
}

/** The same call both ways, each against a fresh server answering `answer`. */
async function both(call: Call, answer: Answer): Promise<{ axios: Outcome; ours: Outcome }> {
  const outcomes: Outcome[] = [];
  for (const send of [throughAxios, throughHttpRequest]) {
    const server = await recordingServer(answer);
    const result = await send(server.port, call);
    const request = (server.requests[0] ?? '').replace(`127.0.0.1:${server.port}`, '127.0.0.1:PORT');
    await server.close();
    outcomes.push({ request, ...result });
  }
  return { axios: outcomes[0], ours: outcomes[1] };
}

const JSON_OK = raw('200 OK', ['Content-Type: application/json', 'Set-Cookie: a=1', 'Set-Cookie: b=2', 'X-Padded:   spaced  '], '{"ok":true}');
const SIGNED = {
  'x-client-id': 'sandbox-bank', 'x-timestamp': '2026-11-23T10:00:00Z', 'x-nonce': 'n0nce-n0nce-n0nce-1', 'x-idempotency-key': 'k-1',
  'content-digest': 'sha-256=:abc=:', 'x-signature': 'eyJhbGciOiJFUzI1NiJ9..sig',
};

describe('httpRequest sends what axios sent', () => {
  const requests: [string, Call][] = [
    ['a signed callback (Buffer body, content-type last)', { method: 'POST', path: '/callbacks/orders/status', headers: { ...SIGNED, 'content-type': 'application/json' }, body: Buffer.from('{"reference":"R-1","status":"SUCCESS"}') }],
    ['a signed pull (GET, query)', { method: 'GET', path: '/payment-orders?offset=2026-11-01T00%3A00%3A00Z&limit=100', headers: { ...SIGNED, authorization: 'Bearer tok' } }],
    ['a token request (form string body, Basic)', { method: 'POST', path: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic eDp5' }, body: 'grant_type=client_credentials' }],
    ['a JSON string body', { method: 'POST', path: '/payment-orders', headers: { 'content-type': 'application/json' }, body: '{"reference":"R-2"}' }],
    ['a JSON string body with spaces around it', { method: 'POST', path: '/payment-orders', headers: { 'content-type': 'application/json' }, body: '  {"reference":"R-3"}\n' }],
    ['a string that is not JSON, sent as JSON', { method: 'POST', path: '/payment-orders', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"reference":' }],
    ['an empty string as JSON', { method: 'POST', path: '/x', headers: { 'content-type': 'application/json' }, body: '' }],
    ['a POST without a content type', { method: 'POST', path: '/x', headers: { 'x-a': '1' }, body: 'abc' }],
    ['a POST without a body', { method: 'POST', path: '/x', headers: {} }],
    ['a POST with an empty Buffer', { method: 'POST', path: '/x', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(0) }],
    ["a caller's Accept, User-Agent, Content-Type and Content-Length", { method: 'POST', path: '/x', headers: { 'user-agent': 'mine', Accept: 'text/html', 'Content-Type': 'text/plain', 'content-length': '3' }, body: 'abc' }],
    ['header values padded or empty, names in two spellings', { method: 'GET', path: '/x', headers: { 'x-padded': '  v  ', 'x-empty': '', 'X-Dup': 'a', 'x-dup': 'b' } }],
    ['credentials in the URL (Basic, percent-decoded)', { method: 'GET', path: '/x', headers: {}, userinfo: 'us%20er:p%40ss@' }],
    ['a user without a password in the URL', { method: 'GET', path: '/x', headers: {}, userinfo: 'only@' }],
    ['a fragment in the URL, not sent', { method: 'GET', path: '/x?a=1&b=%2F#frag', headers: {} }],
    ['a non-ASCII body and header value', { method: 'POST', path: '/x', headers: { 'content-type': 'application/json', 'x-name': 'Zoë' }, body: '{"name":"Zoë"}' }],
  ];
  for (const [name, call] of requests) {
    it(name, async () => {
      const { axios: theirs, ours } = await both(call, JSON_OK);
      expect(ours.request).toBe(theirs.request);
      expect(ours.answer).toEqual(theirs.answer);
      expect(ours.error).toBe(theirs.error);
    });
  }
});

describe('httpRequest reads answers and failures as axios did', () => {
  const gzip = zlib.gzipSync('{"gz":1}');
  const answers: [string, Answer, Partial<Call>?][] = [
    ['gzip', raw('200 OK', ['Content-Encoding: gzip'], gzip)],
    ['x-gzip', raw('200 OK', ['Content-Encoding: x-gzip'], gzip)],
    ['deflate (zlib)', raw('200 OK', ['Content-Encoding: deflate'], zlib.deflateSync('{"df":1}'))],
    ['deflate (raw)', raw('200 OK', ['Content-Encoding: deflate'], zlib.deflateRawSync('{"raw":1}'))],
    ['brotli', raw('200 OK', ['Content-Encoding: br'], zlib.brotliCompressSync('{"br":1}'))],
    ['an unknown encoding, left as it is', raw('200 OK', ['Content-Encoding: identity'], 'plain')],
    ['204 that says gzip', raw('204 No Content', ['Content-Encoding: gzip'])],
    ['a BOM', raw('200 OK', ['Content-Type: text/plain'], Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('bom')]))],
    ['bytes that are not UTF-8', raw('200 OK', ['Content-Type: text/plain'], Buffer.from([0xff, 0x41]))],
    ['a redirect, not followed', raw('302 Found', ['Location: /elsewhere'], 'moved')],
    ['a 500 with a problem', raw('500 Internal Server Error', ['Content-Type: application/problem+json'], '{"code":"internal"}')],
    ['an answer over the size limit', raw('200 OK', [], 'x'.repeat(5000)), { maxResponseBytes: 1000 }],
    ['a gzip answer over the size limit once inflated', raw('200 OK', ['Content-Encoding: gzip'], zlib.gzipSync('y'.repeat(5000))), { maxResponseBytes: 1000 }],
    ['no answer head within the time-out', () => undefined, { timeoutMs: 150 }],
    ['a head, then a body that stalls', (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'), { timeoutMs: 150 }],
    ['a gzip head, then a body that stalls', (socket) => socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gzip.length}\r\n\r\n`), gzip.subarray(0, 10)])), { timeoutMs: 150 }],
    // A piece every 50 ms against a 1 s time-out: a pause of the test's process under 950 ms times out neither.
    ['a body that trickles: never idle for the time-out, longer than it in all', trickle([...'abcdefghijklmnopqrstuvwxy'], 50), { timeoutMs: 1000 }],
    ['a gzip body that trickles likewise', trickle([...gzip].map((byte) => Buffer.from([byte])), 50, ['Content-Encoding: gzip']), { timeoutMs: 1000 }],
    ['the deadline before any answer', () => undefined, { timeoutMs: 5000, deadlineMs: 100 }],
    ['a reset before the answer', (socket) => socket.destroy()],
    ['a reset in the middle of the body', (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')],
    ['an answer that is not HTTP', (socket) => socket.end('garbage\r\n\r\n')],
  ];
  for (const [name, answer, options] of answers) {
    it(name, async () => {
      const call: Call = { method: 'GET', path: '/x', headers: {}, ...options };
      const { axios: theirs, ours } = await both(call, answer);
      expect(ours.request).toBe(theirs.request);
      expect(ours.answer).toEqual(theirs.answer);
      expect(ours.error).toBe(theirs.error);
    });
  }

  it('a refused connection', async () => {
    const server = await recordingServer(() => undefined);
    const { port } = server;
    await server.close();
    const call: Call = { method: 'GET', path: '/x', headers: {} };
    expect((await throughHttpRequest(port, call)).error).toBe((await throughAxios(port, call)).error);
  });
});
