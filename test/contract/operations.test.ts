// Contract tests: every operation of GET /openapi.json is called at least once for a success and once for a
// refusal, and every answer is judged against the document by the checker that startBank installs
// (helpers/contract.ts): status, content type, required headers and body schema. The last test fails, naming
// them, while a documented operation was never exercised here.
import http from 'node:http';
import net, { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { bankDocument } from '../../src/bank/http/openapi/documents';
import { DemoClient, demo, sampleOrder, startBank } from '../helpers/bank';
import { bankContract, ContractChecker, takeContractViolations } from '../helpers/contract';
import { DpopKey } from '../helpers/dpop';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector, drain } from '../helpers/outbound';
import { createCa, httpsRequest, listenMtls, opensslAvailable } from '../helpers/pki';

const ADMIN = 'contract-test-admin-token';
const HOST = 'bank.contract.test';
const documented = bankDocument({ httpPort: 8080, httpsPort: 8443 });
const documentedPaths = documented.paths as Record<string, Record<string, unknown>>;

let bank: Bank;
let fake: FakeConnector;
let client: DemoClient;

beforeAll(async () => {
  ({ bank, fake } = await bankWithFakeConnector({ adminToken: ADMIN, callbackMode: 'unit', reportPending: false, bodyLimitBytes: 32 * 1024 }));
  client = new DemoClient(bank);
});
afterAll(async () => {
  await bank.outbound.stop(1000);
  bank.close();
  await fake.stop();
});

const admin = (test: request.Test) => test.set('authorization', `Bearer ${ADMIN}`);
const get = (path: string) => admin(request(bank.app).get(path));
const post = (path: string, body?: unknown) => admin(request(bank.app).post(path)).send(body as object);

async function createWith(scenario: string, amount = '10.00'): Promise<string> {
  const order = sampleOrder({ metadata: { sandbox_scenario: scenario } }, amount);
  const created = await client.create(order);
  expect([200, 202]).toContain(created.status);
  return order.reference as string;
}

describe('payment orders', () => {
  it('create: 200, 202, an idempotent replay, and the main refusals', async () => {
    const order = sampleOrder();
    expect((await client.create(order, { idempotencyKey: 'contract-replay-1' })).status).toBe(200);
    const replay = await client.create(order, { idempotencyKey: 'contract-replay-1' });
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect((await client.create(sampleOrder({ metadata: { sandbox_scenario: 'ASYNC:5:SUCCESS' } }))).status).toBe(202);

    expect((await client.create(sampleOrder(), { headers: { authorization: undefined } })).status).toBe(401);
    expect((await client.create(sampleOrder(), { headers: { 'x-idempotency-key': undefined } })).status).toBe(400);
    expect((await client.create(sampleOrder({ currency: 'euro' }))).status).toBe(400);
    expect((await client.create(order)).status).toBe(409);
    expect((await client.create(sampleOrder(), { idempotencyKey: 'contract-replay-1' })).status).toBe(422);
    expect((await client.create(sampleOrder(), { headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await client.create(sampleOrder({ reason: 'x'.repeat(40_000) }))).status).toBe(413);
    expect((await client.create(sampleOrder(), { headers: { 'x-signature': 'eyJhbGciOiJFUzI1NiJ9..AAAA' } })).status).toBe(401);
  });

  it('reverse polling: 200, 404 for an unknown order, 429 under POLL_429, 401 for a bad signature', async () => {
    const reference = await createWith('NO_CALLBACK');
    expect((await client.status(reference)).status).toBe(200);
    expect((await client.status('CONTRACT-UNKNOWN')).status).toBe(404);
    expect((await client.status(await createWith('POLL_429:1:SUCCESS'))).status).toBe(429);
    expect((await client.status(reference, { headers: { 'x-signature': 'eyJhbGciOiJFUzI1NiJ9..AAAA' } })).status).toBe(401);
  });

  it('reverse polling without TLS in strict mode: 403 mtls_required', async () => {
    const strict = await startBank();
    try {
      const strictClient = new DemoClient(strict);
      expect((await strictClient.status('ANY-REFERENCE')).status).toBe(403);
    } finally {
      strict.close();
    }
  });

  it('token: Bearer and DPoP-bound tokens, RFC 6749 errors, 405 on GET', async () => {
    expect((await request(bank.app).post('/oauth/token').auth(demo.client_id, demo.client_secret).type('form').send({ grant_type: 'client_credentials' })).status).toBe(200);
    const key = new DpopKey();
    const nowS = () => Math.floor(Date.now() / 1000);
    const proof = key.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS() });
    const bound = await request(bank.app).post('/oauth/token').set('host', HOST).set('dpop', proof).auth(demo.client_id, demo.client_secret).type('form').send({ grant_type: 'client_credentials' });
    expect([bound.status, bound.body.token_type]).toEqual([200, 'DPoP']);
    const token = bound.body.access_token as string;
    const createProof = key.proof({ htm: 'POST', htu: `http://${HOST}/payment-orders`, iat: nowS(), accessToken: token });
    expect((await client.create(sampleOrder(), { headers: { host: HOST, authorization: `DPoP ${token}`, dpop: createProof } })).status).toBe(200);
    expect((await request(bank.app).post('/oauth/token').auth(demo.client_id, 'wrong-secret').type('form').send({ grant_type: 'client_credentials' })).status).toBe(401);
    expect((await request(bank.app).post('/oauth/token').auth(demo.client_id, demo.client_secret).type('form').send({ grant_type: 'password' })).status).toBe(400);
    expect((await request(bank.app).post('/oauth/token').set('content-type', 'text/plain').send('grant_type=client_credentials')).status).toBe(400);
    expect((await request(bank.app).get('/oauth/token')).status).toBe(405);
  });
});

describe('keys, health, metrics and these documents', () => {
  it('JWKS, liveness, readiness, metrics (admin only)', async () => {
    expect((await request(bank.app).get('/.well-known/jwks.json')).status).toBe(200);
    expect((await request(bank.app).get('/healthz')).status).toBe(200);
    expect((await request(bank.app).get('/readyz')).status).toBe(200);
    expect((await get('/metrics')).status).toBe(200);
    expect((await request(bank.app).get('/metrics')).status).toBe(401);
  });

  it('readiness: 503 not_ready when the database is gone', async () => {
    const broken = await startBank({ journal: 'off' });
    broken.db.close();
    const answer = await request(broken.app).get('/readyz');
    expect([answer.status, answer.body.code]).toEqual([503, 'not_ready']);
    broken.close();
  });

  it('/openapi.json, /openapi/connector.json and /docs: public, cacheable, 304 on a matching If-None-Match', async () => {
    for (const path of ['/openapi.json', '/openapi/connector.json', '/docs']) {
      const first = await request(bank.app).get(path);
      expect([first.status, first.headers['cache-control']]).toEqual([200, 'public, max-age=300']);
      const again = await request(bank.app).get(path).set('if-none-match', first.headers.etag);
      expect([again.status, again.text]).toEqual([304, '']);
    }
    expect((await request(bank.app).get('/openapi.json')).body).toEqual(documented);
  });

  it('undocumented paths and methods are refused as problems', async () => {
    expect((await request(bank.app).get('/payment-order')).status).toBe(404);
    expect((await request(bank.app).delete('/payment-orders')).status).toBe(405);
  });
});

describe('the control plane', () => {
  it('orders: list, detail, wait, outcome, and their refusals', async () => {
    const failed = await createWith('FAILED:BUS_ACCOUNT_CLOSED');
    const pending = await createWith('PENDING:3600:SUCCESS');
    await drain(bank);
    expect((await request(bank.app).get('/sandbox/orders')).status).toBe(401);
    expect((await request(bank.app).get('/sandbox/orders').set('authorization', 'Bearer wrong')).status).toBe(401);
    expect((await get('/sandbox/orders?limit=2&client_id=demo-connector')).status).toBe(200);
    expect((await get('/sandbox/orders?limit=0')).status).toBe(400);
    expect((await get(`/sandbox/orders/demo-connector/${failed}`)).status).toBe(200);
    expect((await get('/sandbox/orders/demo-connector/CONTRACT-UNKNOWN')).status).toBe(404);
    expect((await get(`/sandbox/orders/demo-connector/${failed}/wait`)).status).toBe(200);
    expect((await get(`/sandbox/orders/demo-connector/${pending}/wait?timeout_s=0`)).status).toBe(408);
    expect((await post(`/sandbox/orders/demo-connector/${pending}/outcome`, { status: 'FAILED' })).status).toBe(400);
    expect((await post(`/sandbox/orders/demo-connector/${pending}/outcome`, { status: 'SUCCESS' })).status).toBe(200);
    expect((await post(`/sandbox/orders/demo-connector/${pending}/outcome`, { status: 'SUCCESS' })).status).toBe(409);
    expect((await admin(request(bank.app).post('/sandbox/reset')).set('content-type', 'text/plain').send('all')).status).toBe(415);
  });

  it('callbacks: list, one, redeliver one and all dead, and an unknown message', async () => {
    await createWith('FAILED:BUS_ACCOUNT_CLOSED');
    await drain(bank);
    const page = await get('/sandbox/callbacks?client_id=demo-connector&limit=5');
    expect(page.status).toBe(200);
    const messageId = page.body.data[0].message_id as number;
    expect((await get(`/sandbox/callbacks/${messageId}`)).status).toBe(200);
    expect((await get('/sandbox/callbacks/999999999')).status).toBe(404);
    expect((await get('/sandbox/callbacks?state=lost')).status).toBe(400);
    expect((await post(`/sandbox/callbacks/${messageId}/redeliver`)).status).toBe(200);
    expect((await post('/sandbox/callbacks/999999999/redeliver')).status).toBe(404);
    expect((await post('/sandbox/callbacks/redeliver', { client_id: demo.client_id })).status).toBe(200);
    expect((await post('/sandbox/callbacks/redeliver', { state: 'pending' })).status).toBe(400);
    await drain(bank);
  });

  it('pulls, pause, resume and reset', async () => {
    expect((await post('/sandbox/clients/demo-connector/poll')).status).toBe(200);
    expect((await post('/sandbox/clients/nobody/poll')).status).toBe(404);
    expect((await post('/sandbox/poll')).status).toBe(200);
    expect((await request(bank.app).post('/sandbox/poll')).status).toBe(401);
    expect((await post('/sandbox/clients/demo-connector/pause')).status).toBe(200);
    expect((await post('/sandbox/clients/demo-connector/resume')).status).toBe(200);
    expect((await post('/sandbox/clients/nobody/pause')).status).toBe(404);
    expect((await post('/sandbox/clients/nobody/resume')).status).toBe(404);
    expect((await post('/sandbox/reset', { client_id: 7 })).status).toBe(400);
    expect((await post('/sandbox/reset', { client_id: 'nobody' })).status).toBe(200);
  });

  it('test clocks: attach, read, advance, detach, and their refusals', async () => {
    const registered = await post('/sandbox/clients', { client_id: 'contract-clocked' });
    expect(registered.status).toBe(201);
    const path = '/sandbox/clients/contract-clocked/clock';
    expect((await get(path)).status).toBe(404);
    expect((await post(path, { frozen_at: '2026-11-22T10:00:00Z' })).status).toBe(201);
    expect((await post(path, { frozen_at: '2026-11-22T09:00:00Z' })).status).toBe(400);
    expect((await get(path)).status).toBe(200);
    expect((await post(`${path}/advance`, { seconds: 60 })).status).toBe(200);
    expect((await post(`${path}/advance`, { to: '2026-11-22T09:00:00Z' })).status).toBe(400);
    expect((await post('/sandbox/clients/nobody/clock/advance', { seconds: 1 })).status).toBe(404);
    expect((await admin(request(bank.app).delete(path))).status).toBe(200);
    expect((await admin(request(bank.app).delete(path))).status).toBe(404);
  });

  it('the journal: list, one entry, clear', async () => {
    const page = await get('/sandbox/journal?limit=3');
    expect(page.status).toBe(200);
    expect((await get(`/sandbox/journal/${page.body.data[0].id}`)).status).toBe(200);
    expect((await get('/sandbox/journal/999999999')).status).toBe(404);
    expect((await get('/sandbox/journal?direction=sideways')).status).toBe(400);
    expect((await admin(request(bank.app).delete('/sandbox/journal'))).status).toBe(200);
    expect((await admin(request(bank.app).delete('/sandbox/journal?all=yes'))).status).toBe(400);
  });

  it('live events: the stream opens as text/event-stream; a bad Last-Event-ID is 400', async () => {
    expect(await openEventStream(bank)).toBe(200);
    expect((await get('/sandbox/events').set('last-event-id', 'yesterday')).status).toBe(400);
  });

  it('clients: register, list, read, change, delete, and their refusals', async () => {
    expect((await post('/sandbox/clients', { client_id: 'contract-client', auth_methods: ['bearer', 'api_key'] })).status).toBe(201);
    expect((await post('/sandbox/clients', { client_id: 'contract-client' })).status).toBe(409);
    expect((await post('/sandbox/clients', { client_id: 'no spaces allowed' })).status).toBe(400);
    expect((await get('/sandbox/clients?limit=2')).status).toBe(200);
    expect((await get('/sandbox/clients?page=2')).status).toBe(400);
    expect((await get('/sandbox/clients/contract-client')).status).toBe(200);
    expect((await get('/sandbox/clients/nobody')).status).toBe(404);
    expect((await admin(request(bank.app).patch('/sandbox/clients/contract-client')).send({ name: 'Contract client' })).status).toBe(200);
    expect((await admin(request(bank.app).patch('/sandbox/clients/contract-client')).send({ colour: 'blue' })).status).toBe(400);
    expect((await admin(request(bank.app).delete('/sandbox/clients/contract-client'))).status).toBe(200);
    expect((await admin(request(bank.app).delete('/sandbox/clients/contract-client'))).status).toBe(404);
  });

  it('fault profiles: set, read, remove, and their refusals', async () => {
    const path = '/sandbox/clients/demo-connector/faults';
    expect((await admin(request(bank.app).put(path)).send({ drop_rate: 0, seed: 7 })).status).toBe(200);
    expect((await admin(request(bank.app).put(path)).send({ drop_rate: 2 })).status).toBe(400);
    expect((await get(path)).status).toBe(200);
    expect((await admin(request(bank.app).delete(path))).status).toBe(204);
    expect((await get('/sandbox/clients/nobody/faults')).status).toBe(404);
    expect((await admin(request(bank.app).delete('/sandbox/clients/nobody/faults'))).status).toBe(404);
  });

  const conformanceDocumented = documentedPaths['/sandbox/conformance-runs'] !== undefined;
  (conformanceDocumented ? it : it.skip)('conformance runs: start, follow, reports, delete, and their refusals', async () => {
    expect((await post('/sandbox/conformance-runs', { client_id: 'nobody' })).status).toBe(404);
    const started = await post('/sandbox/conformance-runs', { client_id: demo.client_id, cases: ['pull.signed_request_accepted'] });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    await waitUntil(async () => (await get(`/sandbox/conformance-runs/${id}`)).body.state !== 'running');
    expect((await get('/sandbox/conformance-runs?limit=1')).status).toBe(200);
    expect((await get(`/sandbox/conformance-runs/${id}/junit.xml`)).status).toBe(200);
    expect((await get(`/sandbox/conformance-runs/${id}/report.html`)).status).toBe(200);
    expect((await get('/sandbox/conformance-runs/none/junit.xml')).status).toBe(404);
    expect((await get('/sandbox/conformance-runs/none/report.html')).status).toBe(404);
    expect((await get('/sandbox/conformance-runs?limit=none')).status).toBe(400);
    expect((await admin(request(bank.app).delete(`/sandbox/conformance-runs/${id}`))).status).toBe(200);
    expect((await get(`/sandbox/conformance-runs/${id}`)).status).toBe(404);
    expect((await admin(request(bank.app).delete(`/sandbox/conformance-runs/${id}`))).status).toBe(404);
  });
});

describe('the HTTPS listener', () => {
  (opensslAvailable() ? it : it.skip)('serves the same documents without credentials, and reverse polling with a client certificate (403 without)', async () => {
    const strict = await startBank();
    const ca = createCa();
    const listener = await listenMtls(strict.app, ca, ca.issue('localhost'));
    try {
      const overTls = await httpsRequest(listener.port, ca.cert, { method: 'GET', path: '/openapi.json', headers: {} });
      expect(overTls.status).toBe(200);
      expect(overTls.text).toBe((await request(strict.app).get('/openapi.json')).text);
      expect((await httpsRequest(listener.port, ca.cert, { method: 'GET', path: '/docs', headers: {} })).status).toBe(200);
      const strictClient = new DemoClient(strict);
      const order = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
      expect((await strictClient.create(order)).status).toBe(202);
      const target = `/payment-orders/${order.reference as string}/status`;
      const polled = await httpsRequest(listener.port, ca.cert, { method: 'GET', path: target, headers: await strictClient.statusHeaders(target), clientCert: ca.issue(demo.client_id) });
      expect(polled.status).toBe(200);
      const withoutCertificate = await httpsRequest(listener.port, ca.cert, { method: 'GET', path: target, headers: await strictClient.statusHeaders(target) });
      expect(withoutCertificate.status).toBe(403);
    } finally {
      await listener.close();
      strict.close();
    }
  });
});

describe('a request HTTP/1.1 cannot take (no Host), on every path', () => {
  /** One HTTP/1.1 request without Host, as raw bytes, to the app on a server made as the Bank's are. */
  async function withoutHost(method: string, path: string): Promise<{ status: number; contentType: string; body: Record<string, unknown>; requestId: string }> {
    const server = http.createServer({ requireHostHeader: false }, bank.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await new Promise((resolve, reject) => {
        const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
          socket.write(`${method} ${path} HTTP/1.1\r\nX-Request-Id: no-host-${method}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
        });
        let raw = '';
        socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        socket.on('error', reject);
        socket.on('end', () => {
          const [head, body] = raw.split('\r\n\r\n');
          const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? '';
          resolve({ status: Number(head.split(' ')[1]), contentType: header('content-type'), body: JSON.parse(body) as Record<string, unknown>, requestId: header('x-request-id') });
        });
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it.each([['GET', '/healthz'], ['GET', '/.well-known/jwks.json'], ['GET', '/openapi.json'], ['GET', '/openapi/connector.json'], ['GET', '/docs'], ['GET', '/sandbox/orders']])(
    '%s %s: 400 header_invalid as problem+json, with the request\'s own X-Request-Id',
    async (method, path) => {
      const answer = await withoutHost(method, path);
      expect([answer.status, answer.contentType, answer.body.code, answer.body.request_id, answer.requestId]).toEqual([400, 'application/problem+json', 'header_invalid', `no-host-${method}`, `no-host-${method}`]);
    },
  );

  it('POST /oauth/token: 400 invalid_request in RFC 6749 JSON (the token endpoint never answers problem+json)', async () => {
    const answer = await withoutHost('POST', '/oauth/token');
    expect([answer.status, answer.contentType.split(';')[0], answer.body.error, answer.body.code]).toEqual([400, 'application/json', 'invalid_request', 'header_invalid']);
  });
});

describe('the checker itself', () => {
  it('names a wrong status, a wrong content type, a missing header and a body that breaks the schema', () => {
    const checker = new ContractChecker(documented, { emptyWhenUndescribed: true });
    const headers = { 'content-type': 'application/json', 'x-request-id': 'r' };
    const answer = (status: number, body: string, extra: Record<string, string | undefined> = {}) => ({ method: 'GET', url: '/healthz', status, headers: { ...headers, ...extra }, body: Buffer.from(body), partial: false });
    expect(checker.check(answer(200, '{"status":"ok"}'))).toEqual([]);
    expect(checker.check(answer(201, '{"status":"ok"}'))).toEqual([expect.stringContaining('documents no 201 answer')]);
    expect(checker.check(answer(200, '{"status":"ok"}', { 'content-type': 'text/plain' }))).toEqual([expect.stringContaining('content type text/plain')]);
    expect(checker.check(answer(200, '{"status":"ok"}', { 'x-request-id': undefined }))).toEqual([expect.stringContaining('X-Request-Id is missing')]);
    expect(checker.check(answer(200, '{"status":"up"}'))).toEqual([expect.stringContaining('does not match')]);
    expect(checker.check({ ...answer(202, ''), method: 'POST', url: '/payment-orders', body: Buffer.from('{}') })).toEqual([expect.stringContaining('has no body in the document')]);
    expect(checker.check({ ...answer(200, '{}'), url: '/nowhere' })).toEqual([expect.stringContaining('not in the document')]);
  });
});

describe('coverage', () => {
  it('every documented operation answered at least once with a success and once with a refusal', () => {
    expect(takeContractViolations()).toEqual([]);
    const exercised = [...bankContract().exercised];
    const missing: string[] = [];
    for (const [path, item] of Object.entries(documentedPaths)) {
      for (const method of Object.keys(item).filter((key) => ['get', 'put', 'post', 'patch', 'delete'].includes(key))) {
        const statuses = exercised.filter((entry) => entry.startsWith(`${method.toUpperCase()} ${path} `)).map((entry) => entry.split(' ').pop() as string);
        const responses = Object.keys((item[method] as { responses: Record<string, unknown> }).responses);
        if (!statuses.some((status) => /^[23]/.test(status))) missing.push(`${method.toUpperCase()} ${path}: no success`);
        if (responses.some((status) => /^[45]/.test(status)) && !statuses.some((status) => /^[45]/.test(status))) missing.push(`${method.toUpperCase()} ${path}: no refusal`);
      }
    }
    expect(missing).toEqual([]);
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Opens GET /sandbox/events on a real socket, reads its first bytes, closes it; answers the status. */
async function openEventStream(target: Bank): Promise<number> {
  const server = http.createServer(target.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<number>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/sandbox/events', headers: { authorization: `Bearer ${ADMIN}` }, agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve(res.statusCode ?? 0);
        });
      });
      req.on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    // The server saw the socket close: its answer has been judged by now.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
