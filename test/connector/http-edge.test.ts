// The reference Connector's HTTP edge: what its body reader refuses (an unsupported Content-Encoding, a body that
// does not decode, a client gone mid-body) leaves as the right problem, never as a 500 with an error-level stack;
// and every answer carries an X-Request-Id (the caller's when it is a plain token, else a new one), which every
// problem body repeats as request_id.
import http from 'node:http';
import net from 'node:net';
import { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import request from 'supertest';
import type { Logger } from 'winston';
import { buildConnectorApp } from '../../src/connector/app';
import { BankJwks } from '../../src/connector/bank-jwks';
import { CONNECTOR_DEFAULTS } from '../../src/connector/config';
import { openConnectorStore } from '../../src/connector/store';
import { startConnector, unreachableUrl } from './helpers';

interface Logged {
  level: string;
  message: string;
  meta: Record<string, unknown>;
}

/** The Connector's app, with a push that echoes the order and a log that is kept. */
function connectorApp() {
  const logged: Logged[] = [];
  const log = (level: string) => (message: string, meta: Record<string, unknown> = {}) => void logged.push({ level, message, meta });
  const logger = { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') } as unknown as Logger;
  const store = openConnectorStore(':memory:', 30_000);
  const jwks = new BankJwks(() => Promise.reject(new Error('no JWKS in this test')), Date.now, logger);
  const push = async (order: { reference: string }) => ({ httpStatus: 202, body: null, retryAfterS: null, error: null, status: 'AWAITING' as const, reference: order.reference });
  const app = buildConnectorApp({ config: CONNECTOR_DEFAULTS, store, jwks, logger, push });
  return { app, logged, store };
}

const errorsLogged = (logged: Logged[]) => logged.filter((line) => line.level === 'error');

const ORDER = JSON.stringify({ reference: 'EDGE-1', initiated_at: '2026-11-22T09:00:00Z' });

describe('body reader errors are problems, not 500s', () => {
  it('an unsupported Content-Encoding is 415 unsupported_media_type, with the codings accepted, and no error log', async () => {
    const { app, logged } = connectorApp();
    const response = await request(app).post('/orders').set({ 'content-type': 'application/json', 'content-encoding': 'foo' }).send(ORDER);
    expect(response.status).toBe(415);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status: 415, code: 'unsupported_media_type', instance: '/orders' });
    expect(response.body.detail).toMatch(/Content-Encoding/);
    expect(response.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(errorsLogged(logged)).toEqual([]);
  });

  it('gzip that is not gzip is 400 body_malformed, and no error log', async () => {
    const { app, logged } = connectorApp();
    const response = await request(app).post('/orders').set({ 'content-type': 'application/json', 'content-encoding': 'gzip' }).send(ORDER);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, code: 'body_malformed' });
    expect(response.body.detail).toMatch(/gzip/);
    expect(errorsLogged(logged)).toEqual([]);
  });

  it('real gzip is still decoded (the reader inflates what it supports)', async () => {
    const { app } = connectorApp();
    // (octet-stream: superagent would serialise a Buffer sent as application/json; POST /orders reads any type)
    const response = await request(app).post('/orders').set({ 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }).send(zlib.gzipSync(ORDER));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ reference: 'EDGE-1', bank_http_status: 202 });
  });

  it('a body over the limit is still 413 body_too_large', async () => {
    const { app, logged } = connectorApp();
    const response = await request(app).post('/orders').set('content-type', 'application/json').send(' '.repeat(1024 * 1024 + 1));
    expect([response.status, response.body.code]).toEqual([413, 'body_too_large']);
    expect(errorsLogged(logged)).toEqual([]);
  });

  it.each([
    ['identity', Buffer.from(ORDER.slice(0, 10))],
    ['gzip', zlib.gzipSync(ORDER).subarray(0, 10)],
  ])('a client that goes away mid-body (%s) is logged as such, without an error-level stack', async (encoding, partial) => {
    const { app, logged } = connectorApp();
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const head = `POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Encoding: ${encoding}\r\nContent-Length: 500\r\n\r\n`;
      socket.write(Buffer.concat([Buffer.from(head), partial]));
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      const deadline = Date.now() + 2_000;
      while (Date.now() < deadline && !logged.some((line) => /went away/.test(line.message))) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(logged.filter((line) => /went away/.test(line.message)).map((line) => line.level)).toEqual(['info']);
      expect(errorsLogged(logged)).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('X-Request-Id', () => {
  it('a problem to a caller that sent none (the Bank\'s callbacks send none) carries a generated request_id, echoed in X-Request-Id', async () => {
    const { app } = connectorApp();
    const response = await request(app).post('/callbacks/orders/status').set('content-type', 'text/plain').send('{}');
    expect([response.status, response.body.code]).toEqual([415, 'unsupported_media_type']);
    expect(response.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['x-request-id']).toBe(response.body.request_id);
  });

  it('every problem carries it: an unknown route, a bad body, a 500-free edge', async () => {
    const { app } = connectorApp();
    for (const response of [
      await request(app).get('/nowhere'),
      await request(app).post('/orders').set('content-type', 'application/json').send('{not json'),
      await request(app).post('/orders').set({ 'content-type': 'application/json', 'content-encoding': 'foo' }).send(ORDER),
    ]) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(typeof response.body.request_id).toBe('string');
      expect(response.body.request_id).toBe(response.headers['x-request-id']);
    }
  });

  it('a sane X-Request-Id from the caller is kept, in the header, the problem and the access log', async () => {
    const { app, logged } = connectorApp();
    const given = 'req-2026.11.22:abc_DEF-9';
    const response = await request(app).get('/nowhere').set('x-request-id', given);
    expect(response.headers['x-request-id']).toBe(given);
    expect(response.body.request_id).toBe(given);
    expect(logged.find((line) => line.message === 'request')?.meta.request_id).toBe(given);
    const ok = await request(app).get('/healthz').set('x-request-id', given);
    expect(ok.headers['x-request-id']).toBe(given);
  });

  it.each([
    ['spaces', 'a b'],
    ['too long', 'x'.repeat(201)],
    ['a non-ASCII character', 'réq-1'],
  ])('an X-Request-Id with %s is replaced by a generated one, never echoed', async (_what, given) => {
    const { app } = connectorApp();
    const response = await request(app).get('/nowhere').set('x-request-id', given);
    expect(response.headers['x-request-id']).not.toBe(given);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.request_id).toBe(response.headers['x-request-id']);
    expect(response.text).not.toContain(given);
  });

  it('200 visible ASCII characters are kept, as the Bank keeps them and the Connector document says (XRequestId)', async () => {
    const { app } = connectorApp();
    const given = `${'A'.repeat(190)}<b>"a/b+`;
    expect((await request(app).get('/healthz').set('x-request-id', given)).headers['x-request-id']).toBe(given);
  });
});

describe('a Host-less request on a real socket (RFC 9112 §3.2)', () => {
  const exchange = (url: string, request: string) =>
    new Promise<string>((resolve, reject) => {
      const { port, hostname } = new URL(url);
      const socket = net.connect(Number(port), hostname, () => socket.write(request));
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });

  it('HTTP/1.1 without Host is 400 header_invalid as a problem with its request_id, as the Bank answers it; HTTP/1.0 is served', async () => {
    const connector = await startConnector(await unreachableUrl());
    try {
      const answer = await exchange(connector.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
      expect(body).toMatchObject({ status: 400, code: 'header_invalid', detail: expect.stringMatching(/no Host header/), request_id: expect.any(String) });
      expect(await exchange(connector.url, 'GET /healthz HTTP/1.0\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      await connector.close();
    }
  });
});
