// The signed client's HTTPS agent: the CA and the client certificate go in as one secure context (issue 15: node's
// agent otherwise keys its socket pool by their PEM text on every request). What must hold either way: the server
// is verified against the CA, the client certificate is presented, sockets are kept alive, and material that
// cannot be read is the request's error, never a throw.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TLSSocket } from 'node:tls';
import { ensureDevPki, PkiFiles } from '../../src/bank/security/pki';
import { systemClock } from '../../src/wire/clock';
import { generateSigningJwk, signingKeyFromJwk, SigningKey } from '../../src/wire/keys';
import { SignedClient, TlsMaterial } from '../../src/wire/signed-client';

let files: PkiFiles;
let signer: SigningKey;
let server: https.Server;
let url: string;
const seen: { peer: string; socket: number }[] = [];
const sockets = new Map<TLSSocket, number>();

beforeAll(async () => {
  files = (await ensureDevPki({ dir: fs.mkdtempSync(path.join(os.tmpdir(), 'signed-client-tls-')), bankClientId: 'sandbox-bank', clientIds: [], serverNames: [] })).files;
  signer = signingKeyFromJwk(await generateSigningJwk());
  server = https.createServer({ key: fs.readFileSync(files.serverKey), cert: fs.readFileSync(files.serverCert), ca: fs.readFileSync(files.caCert), requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const socket = req.socket as TLSSocket;
    if (!sockets.has(socket)) sockets.set(socket, sockets.size);
    seen.push({ peer: String(socket.getPeerCertificate().subject?.CN), socket: sockets.get(socket) as number });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as { port: number }).port}/callbacks`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const clientWith = (tls: TlsMaterial) => new SignedClient({ clientId: 'sandbox-bank', signer, clock: systemClock, timeoutMs: 5_000, tls });

describe('SignedClient over mutual TLS', () => {
  it('verifies the server by the CA, presents the client certificate, and reuses one socket', async () => {
    seen.length = 0;
    const client = clientWith({ ca: fs.readFileSync(files.caCert), cert: fs.readFileSync(files.bankClientCert), key: fs.readFileSync(files.bankClientKey) });
    for (let i = 0; i < 3; i += 1) expect((await client.send('POST', url, { 'content-type': 'application/json' }, '{}')).status).toBe(200);
    // The pool key stays short: no PEM among the agent's options, one secure context instead.
    const agent = (client as unknown as { keepAliveAgents(): { https: https.Agent & { options: https.AgentOptions } } }).keepAliveAgents().https;
    expect([agent.options.secureContext !== undefined, agent.options.ca, agent.options.cert, agent.options.key]).toEqual([true, undefined, undefined, undefined]);
    client.close();
    expect(seen.map((request) => request.peer)).toEqual(['sandbox-bank', 'sandbox-bank', 'sandbox-bank']);
    expect(new Set(seen.map((request) => request.socket)).size).toBe(1);
  });

  it('keeps TCP keep-alive at 60 s on its sockets, in flight and pooled, without a setsockopt for each request', async () => {
    const setKeepAlive = jest.spyOn(net.Socket.prototype, 'setKeepAlive');
    try {
      const client = clientWith({ ca: fs.readFileSync(files.caCert), cert: fs.readFileSync(files.bankClientCert), key: fs.readFileSync(files.bankClientKey) });
      for (let i = 0; i < 4; i += 1) expect((await client.send('POST', url, { 'content-type': 'application/json' }, '{}')).status).toBe(200);
      client.close();
      // Node's agent sets it each time a socket goes back to the pool (its keepAliveMsecs), the client once a socket.
      expect(setKeepAlive.mock.calls.length).toBeLessThanOrEqual(5);
      expect(new Set(setKeepAlive.mock.calls.map(([enable, delay]) => `${enable} ${delay}`))).toEqual(new Set(['true 60000']));
    } finally {
      setKeepAlive.mockRestore();
    }
  });

  it('without the CA, the server is not trusted', async () => {
    const client = clientWith({ cert: fs.readFileSync(files.bankClientCert), key: fs.readFileSync(files.bankClientKey) });
    const answer = await client.send('POST', url, {}, '{}');
    client.close();
    expect([answer.status, answer.error]).toEqual([null, expect.stringMatching(/certificate/i)]);
  });

  it('a key that cannot be read is the answer\'s error, for every https request; plain http still works', async () => {
    const client = clientWith({ ca: fs.readFileSync(files.caCert), cert: fs.readFileSync(files.bankClientCert), key: Buffer.from('not a key') });
    for (let i = 0; i < 2; i += 1) {
      const answer = await client.send('POST', url, {}, '{}');
      expect([answer.status, answer.error]).toEqual([null, expect.stringMatching(/^Error: .+/)]);
    }
    const plain = http.createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const answer = await client.send('POST', `http://127.0.0.1:${(plain.address() as { port: number }).port}/callbacks`, {}, '{}');
    client.close();
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));
    expect(answer.status).toBe(200);
  });
});
