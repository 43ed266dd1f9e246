// Requests that node's HTTP parser refuses before express sees them still get a problem body (profile section 5).
import net from 'node:net';
import tls from 'node:tls';
import { ChildBank, kill, startChildBank } from '../helpers/child-bank';
import { tempDir } from '../helpers/bank';
import { waitFor } from '../helpers/outbound';

function rawExchange(port: number, request: string, overTls = false): Promise<string> {
  return new Promise((resolve, reject) => {
    // Over TLS without a client certificate: the mTLS listener lets such a request reach its HTTP handling.
    const socket = overTls
      ? tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => socket.write(request))
      : net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

/** A raw connection: what it has received so far, a wait for some of it, and the whole once the Bank closes it. */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('error', () => undefined);
  return {
    write: (text: string) => socket.write(text),
    /** Resolves once `text` has arrived (the test's time-out fails it otherwise). */
    until: async (text: string) => {
      while (!received.includes(text)) await new Promise<void>((wake) => waiters.push(wake));
    },
    closed,
  };
}

/** The status lines of the responses in a raw transcript. */
function statusLines(transcript: string): string[] {
  return transcript.match(/HTTP\/1\.1 \d{3}[^\r]*/g) ?? [];
}

const ADMIN = 'parser-errors-admin-token';

describe('HTTP parser errors', () => {
  let bank: ChildBank;
  let port: number;
  let httpsPort: number;

  beforeAll(async () => {
    bank = await startChildBank({ DATA_DIR: tempDir(), POLL_CRON: 'off', ADMIN_TOKEN: ADMIN });
    port = Number(new URL(bank.httpUrl).port);
    const listening = bank.logs.find((line) => line.includes('"sandbox bank listening"'))!;
    httpsPort = Number(new URL((JSON.parse(listening) as { https: string }).https).port);
  });
  afterAll(async () => {
    await kill(bank, 'SIGTERM');
  });

  it.each([
    ['two Content-Length headers', 'POST /payment-orders HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['Content-Length with Transfer-Encoding', 'POST /payment-orders HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}'],
  ])('%s: 400 problem+json header_invalid', async (_name, request) => {
    const answer = await rawExchange(port, request);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('Content-Type: application/problem+json');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: 'header_invalid', title: 'A header is malformed' });
    expect(typeof body.request_id).toBe('string');
  });

  // Node's own statuses for these (lib/_http_server.js socketOnError), with a problem body.
  it.each([
    ['a URL over the parser limit', `GET /payment-orders/${'A'.repeat(20_000)}/status HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['a 17 KB header', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17_000)}\r\n\r\n`],
    ['3000 headers', `GET /healthz HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`],
  ])('%s: 431 problem+json header_invalid', async (_name, request) => {
    const answer = await rawExchange(port, request);
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 431, code: 'header_invalid' });
  });

  it('a bad chunk in a body the app is still reading: 400 problem+json body_malformed', async () => {
    const answer = await rawExchange(port, 'POST /payment-orders HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: 'body_malformed' });
    expect(body.detail).toContain('HPE_INVALID_CHUNK_SIZE');
  });

  // RFC 9112 §3.2. Node answers this one itself (requireHostHeader) with an empty 400 unless the Bank takes it over.
  it.each([
    ['the plain listener', false],
    ['the mTLS listener', true],
  ])('an HTTP/1.1 request without Host on %s: 400 problem+json header_invalid saying Host is missing', async (_name, overTls) => {
    const answer = await rawExchange(overTls ? httpsPort : port, 'GET /readyz HTTP/1.1\r\nConnection: close\r\n\r\n', overTls);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: 'header_invalid', title: 'A header is malformed' });
    expect(body.detail).toMatch(/no Host header/);
    expect(typeof body.request_id).toBe('string');
  });

  it('are logged and counted like the refusals the app writes', async () => {
    const answer = await rawExchange(port, 'FOO /payment-orders HTTP/1.1\r\nHost: x\r\n\r\n');
    const requestId = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(answer)?.[1];
    expect(requestId).toBeDefined();
    const logged = () => bank.logs.filter((line) => line.includes(String(requestId)));
    await waitFor(() => logged().length > 0, 5_000, 'the rejection line');
    expect(logged().map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([expect.objectContaining({ message: 'request rejected', code: 'header_invalid' })]);
    const metrics = await (await fetch(`${bank.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metrics).toMatch(/^sandbox_bank_http_refusals_total\{code="header_invalid"\} [1-9]/m);
    expect(metrics).toMatch(/^sandbox_bank_http_requests_total\{route="unmatched",method="unparsed",status="400"\} [1-9]/m);
  });

  it('plain HTTP sent to the HTTPS port: 403 mtls_required in plain HTTP, naming the plain listener', async () => {
    const answer = await rawExchange(httpsPort, 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { code: string; detail: string };
    expect(body.code).toBe('mtls_required');
    expect(body.detail).toContain(`plain-HTTP listener at http://localhost:${port}`);
  });

  it('are counted under the status they were answered with (431 for an oversized head)', async () => {
    const answer = await rawExchange(port, `GET /readyz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    const metrics = await (await fetch(`${bank.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metrics).toMatch(/^sandbox_bank_http_requests_total\{route="unmatched",method="unparsed",status="431"\} [1-9]/m);
  });

  it('a body that fails to parse after the head was read is counted once, by the app (499), not also as unparsed', async () => {
    const scrape = async () => (await fetch(`${bank.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const unparsed = (metrics: string) => Number(/^sandbox_bank_http_requests_total\{route="unmatched",method="unparsed",status="400"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    const before = unparsed(await scrape());
    const answer = await rawExchange(port, 'POST /oauth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nzz\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    await waitFor(() => bank.logs.some((line) => line.includes('"path":"/oauth/token"') && line.includes('"status":499')), 5_000, 'the access line of the request');
    expect(unparsed(await scrape())).toBe(before);
  });

  // Node's own handler (socketOnError) writes nothing over a response on its way; the Bank's must not either.
  it('a bad chunk after the request was answered closes the connection, with no second answer', async () => {
    const connection = rawConnection(port);
    connection.write('POST /nope HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
    await connection.until('"route_not_found"');
    connection.write('zz\r\n');
    const transcript = await connection.closed;
    expect(statusLines(transcript)).toEqual(['HTTP/1.1 404 Not Found']);
  });

  it('bytes after a pipelined Connection: close request are ignored: every pending response is sent, then the connection closes', async () => {
    const connection = rawConnection(port);
    const get = (extra = '') => `GET /healthz HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
    connection.write(get() + get() + get('Connection: close\r\n') + get());
    const transcript = await connection.closed;
    expect(statusLines(transcript)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  });

  it('a parse error behind a pipelined request still unanswered closes the connection instead of answering in its place', async () => {
    const connection = rawConnection(port);
    connection.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n');
    const transcript = await connection.closed;
    expect(statusLines(transcript).filter((line) => !line.startsWith('HTTP/1.1 200'))).toEqual([]);
  });

  it('CONNECT: 405 problem+json method_not_allowed, then the connection closes', async () => {
    const answer = await rawExchange(port, 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer).toMatch(/\r\nAllow: \r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('CONNECT: the Bank closes its socket whole, even when the client keeps its side open', async () => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => undefined);
    socket.resume();
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('end', () => {
      // Half-open on the Bank's side, these bytes would be taken in silently; closed whole, they meet a reset.
      const knock = setInterval(() => (socket.writable ? socket.write('x') : clearInterval(knock)), 50);
      socket.on('close', () => clearInterval(knock));
    });
    socket.write('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    await closed;
  }, 15_000);

  it('an HTTP/1.0 request without Host is still served, as node serves it', async () => {
    const answer = await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
