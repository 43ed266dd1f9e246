// Small Connectors that misbehave at the HTTP or socket level, for the conformance run's safety tests: each is a
// plain node server that does one bad thing to every request. Closing one drops whatever it still holds open.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { ConformanceRun } from '../../src/bank/conformance/model';
import { connectorOrder } from '../helpers/outbound';

export interface HostileConnector {
  url: string;
  /** Requests it got (connections, for the raw socket servers). */
  hits: number;
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listening(server: net.Server, scheme: 'http' | 'https', sockets: Set<net.Socket>, hostile: { hits: number }): Promise<HostileConnector> {
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(hostile, {
    url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

/** An HTTP Connector whose every request goes to `handler` (the request body is read and dropped). */
export function httpConnector(handler: Handler): Promise<HostileConnector> {
  const hostile = { hits: 0 };
  const server = http.createServer((req, res) => {
    hostile.hits += 1;
    req.resume();
    handler(req, res);
  });
  return listening(server, 'http', new Set(), hostile);
}

/** The same over TLS with `tls` (key and cert), asking for no client certificate: any client gets through. */
export function httpsConnector(tls: { key: Buffer; cert: Buffer }, handler: Handler): Promise<HostileConnector> {
  const hostile = { hits: 0 };
  const server = https.createServer({ ...tls, requestCert: false }, (req, res) => {
    hostile.hits += 1;
    req.resume();
    handler(req, res);
  });
  return listening(server, 'https', new Set(), hostile);
}

/** A TCP server that does `onRequest` to the socket as soon as the first request bytes arrive. */
export function socketConnector(onRequest: (socket: net.Socket) => void): Promise<HostileConnector> {
  const hostile = { hits: 0 };
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      hostile.hits += 1;
      onRequest(socket);
    });
  });
  return listening(server, 'http', new Set(), hostile);
}

// ---------------------------------------------------------------------------------------------------------------
// The behaviours

/** Never answers (the request stays open until the client gives up). */
export const hangs: Handler = () => undefined;

/** Resets the connection (TCP RST) on the request, before any answer. */
export const resets = (socket: net.Socket): void => {
  socket.resetAndDestroy();
};

/** Bytes that are not HTTP at all, then a close. */
export const notHttp = (socket: net.Socket): void => {
  socket.end('SSH-2.0-OpenSSH_9.6 this is not an HTTP server\r\n');
};

/** 200, with a body that is not JSON. */
export const garbage: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('<html><body>Welcome to nginx!</body></html>\u0000\u00ff');
};

export const FIVE_MB = 5 * 1024 * 1024;

/** 200 with a 5 MB JSON body, sent in chunks without Content-Length (the limit must hold while it streams). */
export const hugeBody: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  res.write('{"padding":"');
  for (let sent = 0; sent < FIVE_MB; sent += chunk.length) res.write(chunk);
  res.end('"}');
};

/** 200, then one byte of body every 200 ms, never ending. */
export const trickles: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{');
  const timer = setInterval(() => res.write(' '), 200);
  res.on('close', () => clearInterval(timer));
};

const PAGE_ORDERS = Array.from({ length: 40 }, (_, index) => connectorOrder(`HOSTILE-${String(index).padStart(3, '0')}`, `2026-11-20T10:${String(index).padStart(2, '0')}:00Z`));

/** 200 to everything, whatever the signature: a valid page of 40 orders to any pull, `{}` to any callback. */
export const acceptsAnything: Handler = (req, res) => {
  const page = { offset: '1970-01-01T00:00:00Z', limit: 100, size: PAGE_ORDERS.length, total_elements: PAGE_ORDERS.length, content: PAGE_ORDERS };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.method === 'GET' ? page : {}));
};

// ---------------------------------------------------------------------------------------------------------------
// Runs against them

/** Registers a client (POST /sandbox/clients) whose Connector is at `url`, pulled with a static token. */
export async function registerConnector(bank: Bank, clientId: string, url: string, connector: Record<string, unknown> = {}): Promise<void> {
  const registered = await request(bank.app)
    .post('/sandbox/clients')
    .send({ client_id: clientId, connector: { url, callback_mode: 'auto', poll: false, token: 'hostile-pull-token', ...connector } });
  if (registered.status !== 201) throw new Error(`registering ${clientId}: ${registered.status} ${JSON.stringify(registered.body)}`);
}

/** Starts a run through the API and waits for its end. */
export async function runToEnd(bank: Bank, body: Record<string, unknown>): Promise<ConformanceRun> {
  const started = await request(bank.app).post('/sandbox/conformance-runs').send(body);
  if (started.status !== 202) throw new Error(`the run did not start: ${started.status} ${JSON.stringify(started.body)}`);
  const run = await bank.conformance.finished(started.body.id);
  if (!run) throw new Error('the run disappeared');
  return run;
}
