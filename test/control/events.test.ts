// Control plane section 6: the live event stream (GET /sandbox/events, Server-Sent Events) and the order wait
// (GET /sandbox/orders/{client_id}/{reference}/wait). Streams are read over a real socket, as a browser's
// streaming fetch() would read them.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { EVENT_TYPES } from '../../src/bank/application/events';
import { FakeConnector } from '../helpers/fake-connector';
import { demo, DemoClient, sampleOrder, startBank } from '../helpers/bank';
import { bankWithFakeConnector, connectorOrder, drain, waitFor } from '../helpers/outbound';
import { expectSchema } from '../helpers/control-schemas';
import { expectProblem } from '../helpers/wire';
import { takeSseMessages } from '../helpers/sse';

interface SseEvent {
  id: string;
  event: string;
  data: { id: number; type: string; at: string; client_id: string | null; data: Record<string, unknown> };
}

interface SseStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** The raw body so far. */
  text(): string;
  next(predicate: (event: SseEvent) => boolean, what: string): Promise<SseEvent>;
  close(): void;
}

function listen(bank: Bank): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(bank.app);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port })));
}

async function stopServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** Opens GET `path` and parses the stream as it arrives (events and comment lines). */
function openStream(port: number, path: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      let raw = '';
      let pending = '';
      const events: SseEvent[] = [];
      const comments: string[] = [];
      const waiters: (() => void)[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        const taken = takeSseMessages<SseEvent['data']>(pending + chunk, (comment) => comments.push(comment));
        pending = taken.rest;
        for (const message of taken.messages) events.push({ id: message.id ?? '', event: message.event ?? '', data: message.data });
        for (const wake of waiters.splice(0)) wake();
      });
      res.on('error', () => undefined);
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        text: () => raw,
        next: (predicate, what) =>
          new Promise((found, fail) => {
            const timer = setTimeout(() => fail(new Error(`no ${what} in the stream; got ${events.map((event) => event.event).join(', ')}`)), 20_000);
            const check = () => {
              const hit = events.find(predicate);
              if (hit) {
                clearTimeout(timer);
                found(hit);
              } else waiters.push(check);
            };
            check();
          }),
        close: () => req.destroy(),
      };
      resolve(stream);
    });
    req.on('error', reject);
  });
}


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withScenario(scenario: string, amount?: string) {
  return sampleOrder({ metadata: { initiator: 'test-suite', sandbox_scenario: scenario } }, amount);
}

describe('GET /sandbox/events', () => {
  let bank: Bank;
  let fake: FakeConnector;
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: [5], retryHorizonS: 1 }, { sseHeartbeatMs: 50 }));
    ({ server, port } = await listen(bank));
  });
  afterAll(async () => {
    await stopServer(server);
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('is a text/event-stream of id/event/data messages with every event type, in id order', async () => {
    const stream = await openStream(port, '/sandbox/events');
    expect(stream.status).toBe(200);
    expect(String(stream.headers['content-type'])).toMatch(/^text\/event-stream/);
    expect(String(stream.headers['cache-control'])).toContain('no-cache');

    const client = new DemoClient(bank);
    // order.created, then order.status_changed once the one-second PENDING settles.
    const pending = withScenario('PENDING:1:SUCCESS');
    expect((await client.create(pending)).status).toBe(200);
    const created = await stream.next((event) => event.event === 'order.created' && event.data.data.reference === pending.reference, 'order.created');
    expect(created.data).toMatchObject({ type: 'order.created', client_id: demo.client_id, data: { client_id: demo.client_id, reference: pending.reference, status: 'PENDING', from: null } });
    expect(created.data.data.bank_reference).toMatch(/^SBK/);
    expect(created.data.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created.id).toBe(String(created.data.id));
    await sleep(1100);
    bank.book.settleAllDue();
    const changed = await stream.next((event) => event.event === 'order.status_changed' && event.data.data.reference === pending.reference, 'order.status_changed');
    expect(changed.data.data).toMatchObject({ client_id: demo.client_id, reference: pending.reference, status: 'SUCCESS', from: 'PENDING' });

    // callback.attempted and callback.delivered: the Connector takes the callbacks.
    await drain(bank);
    const delivered = await stream.next((event) => event.event === 'callback.delivered', 'callback.delivered');
    expect(delivered.data.data).toMatchObject({ client_id: demo.client_id, http_status: 200, error: null });
    expect(typeof delivered.data.data.message_id).toBe('number');
    expect(typeof delivered.data.data.idempotency_key).toBe('string');
    const attempted = await stream.next((event) => event.event === 'callback.attempted' && event.data.data.message_id === delivered.data.data.message_id, 'callback.attempted');
    expect(Number(attempted.id)).toBeLessThan(Number(delivered.id));

    // callback.dead: the Connector refuses, and the next retry would fall past the one-second horizon.
    fake.behaviour = (kind) => (kind === 'pull' ? null : 500);
    const doomed = withScenario('PENDING:0:SUCCESS');
    expect((await client.create(doomed)).status).toBe(200);
    await drain(bank);
    const dead = await stream.next((event) => event.event === 'callback.dead', 'callback.dead');
    expect(dead.data.data).toMatchObject({ client_id: demo.client_id, http_status: 500, error: 'HTTP 500' });
    fake.behaviour = () => null;

    // poll.completed, with the pull's report.
    fake.orders = [connectorOrder('EVT-PULL-1', '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    const polled = await stream.next((event) => event.event === 'poll.completed', 'poll.completed');
    expect(polled.data.data).toMatchObject({ client_id: demo.client_id, pages: 1, accepted: 1, outcome: 'ok' });
    await stream.next((event) => event.event === 'order.created' && event.data.data.reference === 'EVT-PULL-1', 'order.created of the pulled order');

    // request.refused, naming the journal entry of the refusal.
    const refused = await request(bank.app).post('/payment-orders').set('content-type', 'application/json').send('{}');
    expect(refused.status).toBe(400);
    const refusal = await stream.next((event) => event.event === 'request.refused' && event.data.data.request_id === refused.body.request_id, 'request.refused');
    expect(refusal.data.data).toMatchObject({ code: refused.body.code, method: 'POST', path: '/payment-orders' });
    expect(typeof refusal.data.data.journal_id).toBe('number');
    const entry = await request(bank.app).get(`/sandbox/journal/${refusal.data.data.journal_id}`);
    expect(entry.status).toBe(200);
    expect(entry.body).toMatchObject({ code: refused.body.code, path: '/payment-orders', status: 400 });

    // clock.advanced: a test clock moved (control-plane.md section 3).
    expect((await request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock`).send({})).status).toBe(201);
    expect((await request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock/advance`).send({ seconds: 1 })).status).toBe(200);
    const advanced = await stream.next((event) => event.event === 'clock.advanced', 'clock.advanced');
    expect(advanced.data.data).toMatchObject({ client_id: demo.client_id, fired: 0 });

    for (const event of stream.events) expectSchema('event', event.data);
    const seen = new Set(stream.events.map((event) => event.event));
    // conformance.case_finished belongs to the conformance run (issue 4/7), which does not exist yet.
    for (const type of EVENT_TYPES.filter((one) => one !== 'conformance.case_finished')) expect([type, seen.has(type)]).toEqual([type, true]);
    const ids = stream.events.map((event) => Number(event.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    stream.close();
  });

  it('sends a heartbeat comment at the configured interval', async () => {
    const stream = await openStream(port, '/sandbox/events');
    await waitFor(() => stream.comments.filter((comment) => comment === 'heartbeat').length >= 2, 10_000, 'two heartbeats');
    stream.close();
  });

  it('resumes after Last-Event-ID (header or ?last_event_id=) from the stored events, without gaps or repeats', async () => {
    const client = new DemoClient(bank);
    const first = await openStream(port, '/sandbox/events');
    const orders = [withScenario('SUCCESS'), withScenario('SUCCESS'), withScenario('SUCCESS')];
    expect((await client.create(orders[0])).status).toBe(200);
    const mark = await first.next((event) => event.event === 'order.created' && event.data.data.reference === orders[0].reference, 'the first order');
    first.close();
    for (const order of orders.slice(1)) expect((await client.create(order)).status).toBe(200);

    const resumes: { headers: Record<string, string>; path: string }[] = [
      { headers: { 'last-event-id': mark.id }, path: '/sandbox/events' },
      { headers: {}, path: `/sandbox/events?last_event_id=${mark.id}` },
    ];
    for (const resume of resumes) {
      const stream = await openStream(port, resume.path, resume.headers);
      for (const order of orders.slice(1)) await stream.next((event) => event.event === 'order.created' && event.data.data.reference === order.reference, `order.created of ${order.reference}`);
      const ids = stream.events.map((event) => Number(event.id));
      expect(ids[0]).toBe(Number(mark.id) + 1);
      expect(ids).toEqual(ids.map((_, index) => ids[0] + index));
      expect(stream.events.some((event) => event.data.data.reference === orders[0].reference && event.event === 'order.created')).toBe(false);
      stream.close();
    }
  });

  it('filters by client_id, replay included', async () => {
    const other = await openStream(port, '/sandbox/events?client_id=someone-else&last_event_id=0');
    const mine = await openStream(port, `/sandbox/events?client_id=${demo.client_id}&last_event_id=0`);
    const order = withScenario('SUCCESS');
    expect((await new DemoClient(bank).create(order)).status).toBe(200);
    await mine.next((event) => event.data.data.reference === order.reference, 'the order, for its client');
    await sleep(100);
    expect(mine.events.length).toBeGreaterThan(1);
    expect(mine.events.every((event) => event.data.client_id === demo.client_id)).toBe(true);
    expect(other.events).toEqual([]);
    other.close();
    mine.close();
  });

  it('refuses bad parameters with 400 query_invalid and a bad Last-Event-ID with 400 header_invalid', async () => {
    expectProblem(await request(bank.app).get('/sandbox/events?client=x'), 400, 'query_invalid');
    expectProblem(await request(bank.app).get('/sandbox/events?last_event_id=-1'), 400, 'query_invalid');
    expectProblem(await request(bank.app).get('/sandbox/events?client_id='), 400, 'query_invalid');
    expectProblem(await request(bank.app).get('/sandbox/events').set('last-event-id', 'abc'), 400, 'header_invalid');
  });

  it('stops listening when the reader goes away', async () => {
    await sleep(50);
    const before = bank.events.subscribers;
    const stream = await openStream(port, '/sandbox/events');
    await waitFor(() => bank.events.subscribers === before + 1, 5000, 'the subscription');
    stream.close();
    await waitFor(() => bank.events.subscribers === before, 5000, 'the unsubscription');
  });
});

describe('the event log', () => {
  it('streams only committed events: a rolled-back transaction publishes nothing', async () => {
    const bank = await startBank({ sandboxMode: 'relaxed' });
    const heard: string[] = [];
    const subscription = bank.events.subscribe((event) => heard.push(String(event.data.note)));
    expect(() =>
      bank.db.transaction(() => {
        bank.events.publish('poll.completed', 'x', { note: 'rolled back' });
        throw new Error('abort');
      })(),
    ).toThrow('abort');
    bank.events.publish('poll.completed', 'x', { note: 'kept' });
    await sleep(20);
    expect(heard).toEqual(['kept']);
    subscription.unsubscribe();
    bank.close();
  });

  it('a subscriber hears only what is published after it came: not the events nobody heard, nor a rolled-back one', async () => {
    const bank = await startBank({ sandboxMode: 'relaxed' });
    bank.events.publish('poll.completed', 'x', { note: 'before' });
    await sleep(20);
    expect(() =>
      bank.db.transaction(() => {
        bank.events.publish('poll.completed', 'x', { note: 'rolled back' });
        throw new Error('abort');
      })(),
    ).toThrow('abort');
    await sleep(20);
    const heard: string[] = [];
    const subscription = bank.events.subscribe((event) => heard.push(String(event.data.note)));
    bank.events.publish('poll.completed', 'x', { note: 'after' });
    await sleep(20);
    expect(heard).toEqual(['after']);
    subscription.unsubscribe();
    bank.close();
  });

  it('keeps the newest EVENTS_RETENTION events', async () => {
    const bank = await startBank({ sandboxMode: 'relaxed', eventsRetention: 5 });
    for (let index = 0; index < 20; index += 1) bank.events.publish('poll.completed', 'x', { index });
    await sleep(20);
    const rows = bank.db.prepare('SELECT data FROM events ORDER BY id').pluck().all() as string[];
    expect(rows.map((row) => JSON.parse(row).index)).toEqual([15, 16, 17, 18, 19]);
    bank.close();
  });
});

describe('/sandbox/events and wait need the admin token', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed', adminToken: 'admin-token-for-events-0001' });
  });
  afterAll(() => bank.close());

  it.each(['/sandbox/events', '/sandbox/orders/demo-connector/X/wait'])('%s: 401 auth_missing without it, auth_invalid with another, a stream with it', async (path) => {
    expectProblem(await request(bank.app).get(path), 401, 'auth_missing');
    expectProblem(await request(bank.app).get(path).set('authorization', 'Bearer not-the-token'), 401, 'auth_invalid');
  });

  it('streams with the right token (as a browser fetch() sends it)', async () => {
    const { server, port } = await listen(bank);
    const stream = await openStream(port, '/sandbox/events', { authorization: 'Bearer admin-token-for-events-0001' });
    expect(stream.status).toBe(200);
    expect(String(stream.headers['content-type'])).toMatch(/^text\/event-stream/);
    stream.close();
    await stopServer(server);
  });
});

describe('GET /sandbox/orders/{client_id}/{reference}/wait', () => {
  let bank: Bank;
  let client: DemoClient;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
    client = new DemoClient(bank);
  });
  afterAll(() => bank.close());

  it('answers 200 with the order as soon as it reaches the awaited status', async () => {
    const order = withScenario('PENDING:1:FAILED:BUS_ACCOUNT_CLOSED');
    expect((await client.create(order)).status).toBe(200);
    const waiting = request(bank.app).get(`/sandbox/orders/${demo.client_id}/${order.reference}/wait?status=final&timeout_s=60`).then((response) => response);
    await sleep(1100);
    bank.book.settleAllDue();
    const response = await waiting;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ client_id: demo.client_id, reference: order.reference, status: 'FAILED', reason_code: 'BUS_ACCOUNT_CLOSED' });
  });

  it('answers at once when the order is already there (status=PENDING, status=SUCCESS)', async () => {
    const pending = withScenario('PENDING:3600:SUCCESS');
    expect((await client.create(pending)).status).toBe(200);
    const now = await request(bank.app).get(`/sandbox/orders/${demo.client_id}/${pending.reference}/wait?status=PENDING`);
    expect(now.status).toBe(200);
    expect(now.body.status).toBe('PENDING');
    const done = withScenario('SUCCESS');
    expect((await client.create(done)).status).toBe(200);
    const final = await request(bank.app).get(`/sandbox/orders/${demo.client_id}/${done.reference}/wait?status=SUCCESS&timeout_s=0`);
    expect(final.status).toBe(200);
    expect(final.body.status).toBe('SUCCESS');
  });

  it('answers 408 wait_timeout with the current state when the time is up', async () => {
    const order = withScenario('PENDING:3600:SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    const response = await request(bank.app).get(`/sandbox/orders/${demo.client_id}/${order.reference}/wait?timeout_s=1`);
    const problem = expectProblem(response, 408, 'wait_timeout');
    expect(problem.order).toMatchObject({ client_id: demo.client_id, reference: order.reference, status: 'PENDING' });
    expect(problem).toMatchObject({ awaited: 'final', timeout_s: 1 });
    expectSchema('wait-timeout', problem);
    expect(bank.events.subscribers).toBe(0);
  });

  it('answers 404 not_found for an unknown order or client', async () => {
    expectProblem(await request(bank.app).get(`/sandbox/orders/${demo.client_id}/NO-SUCH-ORDER/wait`), 404, 'not_found');
    expectProblem(await request(bank.app).get('/sandbox/orders/nobody/NO-SUCH-ORDER/wait?timeout_s=1'), 404, 'not_found');
  });

  it('refuses bad parameters with 400 query_invalid', async () => {
    const order = withScenario('SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    const path = `/sandbox/orders/${demo.client_id}/${order.reference}/wait`;
    for (const query of ['status=DONE', 'timeout_s=301', 'timeout_s=-1', 'timeout_s=1.5', 'timeout=5', 'status=final&status=final']) {
      expectProblem(await request(bank.app).get(`${path}?${query}`), 400, 'query_invalid');
    }
  });
});
