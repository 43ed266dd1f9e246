// Item 4: what the Bank sends a Connector verifies with jose (scripts/verify-callbacks.mjs): unit callbacks and
// the pull, signed per profile section 1, and (v1.1) every body with its RFC 9530 Content-Digest header.
// A recording Connector on a real socket keeps each request as received; the Bank pulls one order from it and
// gets another by create, both with scenario ASYNC:0:SUCCESS, so each is reported by callback.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DemoClient, sampleOrder, tempDir } from '../helpers/bank';
import { connectorOrder, drain } from '../helpers/outbound';
import { expectResult, INTEROP_TIMEOUT_MS, listen, Listening, listenBank, ListeningBank, Outcome, runScript } from './interop';

interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body_b64: string;
}

interface VerifiedRequest {
  method: string;
  url: string;
  flow: 'pull' | 'callback';
  body: Record<string, unknown> | null;
  signature: Outcome<{ protectedHeader: Record<string, unknown> }>;
  content_digest: { header: string | null; of_body: string };
}

const SCENARIO = { sandbox_scenario: 'ASYNC:0:SUCCESS' };

/** A Connector that serves `orders` once on the pull, answers 200 to everything else, and records every request. */
async function recordingConnector(orders: Record<string, unknown>[]): Promise<Listening & { requests: RecordedRequest[] }> {
  const requests: RecordedRequest[] = [];
  let pending = orders;
  const server = await listen((req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers, body_b64: Buffer.concat(chunks).toString('base64') });
      if (req.method === 'GET' && pending.length > 0) {
        const page = { offset: new URL(req.url ?? '/', 'http://connector').searchParams.get('offset'), limit: 100, size: pending.length, total_elements: pending.length, content: pending };
        pending = [];
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
      }
      if (req.method === 'GET') return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  return { ...server, requests };
}

describe('jose verifies the Bank callbacks and pull', () => {
  let connector: Awaited<ReturnType<typeof recordingConnector>>;
  let server: ListeningBank;
  let verified: VerifiedRequest[];
  const pulled = connectorOrder(`PULLED-${Date.now()}`, '2026-11-20T00:00:00Z', { metadata: SCENARIO });
  const created = sampleOrder({ metadata: SCENARIO });

  beforeAll(async () => {
    connector = await recordingConnector([pulled]);
    server = await listenBank({ sandboxMode: 'relaxed', connectorUrl: connector.url, callbackMode: 'unit', pollCron: 'off', retryScheduleS: [0.02], batchWindowMs: 0 });
    expect((await new DemoClient(server.bank).create(created)).status).toBe(202);
    await server.bank.outbound.poller.runCycle();
    await drain(server.bank);
    const file = path.join(tempDir('sandbox-bank-interop-'), 'requests.json');
    fs.writeFileSync(file, JSON.stringify(connector.requests));
    verified = (await runScript<{ verified: VerifiedRequest[] }>('verify-callbacks.mjs', { BANK_URL: server.url, REQUESTS_FILE: file })).verified;
  }, INTEROP_TIMEOUT_MS);
  afterAll(async () => {
    await server.close();
    await connector.close();
  });

  const callbacks = () => verified.filter((request) => request.flow === 'callback');

  it('received a pull and a SUCCESS unit callback for each order', () => {
    expect(verified.some((request) => request.flow === 'pull')).toBe(true);
    for (const reference of [pulled.reference, created.reference]) {
      // Contract 4.2.2: POST {connector}/callbacks/orders/status with the status update object.
      expect(callbacks()).toContainEqual(expect.objectContaining({ method: 'POST', url: '/callbacks/orders/status', body: expect.objectContaining({ reference, status: 'SUCCESS' }) }));
    }
  });

  it('every X-Signature verifies with flattenedVerify over the rebuilt base and the Bank JWKS', () => {
    // RFC 7515 section 5.2 validation, with the detached payload reattached (appendix F); profile section 1: the
    // protected header is {alg, kid, typ: "JOSE"} and kid names a key of the Bank's JWKS.
    for (const request of verified) {
      expectResult(request, { signature: { ok: true, protectedHeader: { alg: 'ES256', kid: expect.any(String), typ: 'JOSE' } } });
    }
  });

  it('v1.1: every callback with a body carries Content-Digest = sha-256=:<base64 SHA-256 of the body>:', () => {
    // RFC 9530 section 2: Content-Digest over the content bytes, as a Structured Field dictionary (sha-256=:b64:).
    expect(callbacks().length).toBeGreaterThan(0);
    for (const request of callbacks()) expect({ url: request.url, digest: request.content_digest.header }).toEqual({ url: request.url, digest: request.content_digest.of_body });
  });
});
