// The run API's refusals and lists (conformance.md section 1, control-plane conventions): one run at a time per
// client (409 run_in_progress, also for DELETE of a running run), 404 for unknown clients and runs, 400 for a client
// without a Connector URL, an unknown case id or a bad body (and nothing stored), cursor paging newest first, the
// report endpoints' content types; and the live events: one conformance.case_finished per case, as it finishes.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { expectSchema } from '../helpers/control-schemas';
import { startBank } from '../helpers/bank';
import { expectProblem } from '../helpers/wire';
import { acceptsAnything, HostileConnector, httpConnector, registerConnector, runToEnd } from './hostile-connectors';
import { takeSseMessages } from '../helpers/sse';

jest.setTimeout(60_000);

/** A Connector that holds every request until released, then answers as `acceptsAnything`: a run that stays running. */
async function gatedConnector(): Promise<HostileConnector & { release(): void }> {
  let open = false;
  const held: (() => void)[] = [];
  const connector = await httpConnector((req, res) => {
    const answer = () => acceptsAnything(req, res);
    if (open) answer();
    else held.push(answer);
  });
  return Object.assign(connector, {
    release: () => {
      open = true;
      for (const answer of held.splice(0)) answer();
    },
  });
}

const ONE_CASE = ['pull.signed_request_accepted'];

let bank: Bank;
let accepting: HostileConnector;
const connectors: HostileConnector[] = [];

beforeAll(async () => {
  // A deadline far beyond any test step: a gated run stays running until its Connector is released.
  bank = await startBank({ sandboxMode: 'relaxed', pollCron: 'off', conformanceExchangeTimeoutMs: 30_000 });
  accepting = await httpConnector(acceptsAnything);
  connectors.push(accepting);
  await registerConnector(bank, 'api-accepting', accepting.url);
});
afterAll(async () => {
  await Promise.all(connectors.map((connector) => connector.close()));
  await bank.outbound.stop(1000);
  bank.close();
});

const runsOf = (clientId: string) => request(bank.app).get('/sandbox/conformance-runs').query({ client_id: clientId });
const start = (body: unknown) => request(bank.app).post('/sandbox/conformance-runs').send(body as object);

describe('one run at a time per client', () => {
  it('refuses a second run for the same client with 409 run_in_progress while the first runs, and a DELETE of it too', async () => {
    const gate = await gatedConnector();
    connectors.push(gate);
    await registerConnector(bank, 'api-gated', gate.url);
    const first = await start({ client_id: 'api-gated', cases: ONE_CASE });
    expect(first.status).toBe(202);
    expect(first.body.state).toBe('running');
    expect(first.headers.location).toBe(`/sandbox/conformance-runs/${first.body.id}`);

    const second = await start({ client_id: 'api-gated', cases: ONE_CASE });
    expect(expectProblem(second, 409, 'run_in_progress').detail).toContain('api-gated');
    expectProblem(await request(bank.app).delete(`/sandbox/conformance-runs/${first.body.id}`), 409, 'run_in_progress');
    // "Pull now" would store what the Connector serves while the run pulls it: refused too.
    expectProblem(await request(bank.app).post('/sandbox/clients/api-gated/poll'), 409, 'run_in_progress');
    // Another client's run is not held up by it.
    const other = await start({ client_id: 'api-accepting', cases: ONE_CASE });
    expect(other.status).toBe(202);
    // The refused start stored nothing: still one run for the client, and it is the first.
    const listed = await runsOf('api-gated');
    expect(listed.body.data.map((run: { id: string }) => run.id)).toEqual([first.body.id]);
    expect((await request(bank.app).get(`/sandbox/conformance-runs/${first.body.id}`)).body.state).toBe('running');

    gate.release();
    const finished = await bank.conformance.finished(first.body.id);
    expect(finished?.state).toBe('finished');
    expect(finished?.results.map((result) => [result.id, result.verdict])).toEqual([['pull.signed_request_accepted', 'PASSED']]);
    await bank.conformance.finished(other.body.id);
    // Over: the next run may start, and the finished one may be deleted.
    const next = await start({ client_id: 'api-gated', cases: ONE_CASE });
    expect(next.status).toBe(202);
    await bank.conformance.finished(next.body.id);
    const deleted = await request(bank.app).delete(`/sandbox/conformance-runs/${first.body.id}`);
    expect(deleted.status).toBe(200);
    expectSchema('conformance-run-deleted', deleted.body);
    expectProblem(await request(bank.app).get(`/sandbox/conformance-runs/${first.body.id}`), 404, 'not_found');
  });
});

describe('refused starts store nothing', () => {
  beforeAll(async () => {
    const registered = await request(bank.app).post('/sandbox/clients').send({ client_id: 'api-no-connector' });
    expect(registered.status).toBe(201);
  });

  it.each([
    ['an unknown client', 404, 'not_found', { client_id: 'nobody-registered-this' }, /nobody-registered-this/],
    ['a client without a Connector URL', 400, 'body_invalid', { client_id: 'api-no-connector' }, /no Connector URL/],
    ['an unknown case id', 400, 'body_invalid', { client_id: 'api-accepting', cases: ['pull.signed_request_accepted', 'pull.no_such_case'] }, /pull\.no_such_case/],
    ['an unknown id in skip', 400, 'body_invalid', { client_id: 'api-accepting', skip: ['unit.made_up'] }, /unit\.made_up/],
    ['cases and skip that leave nothing', 400, 'body_invalid', { client_id: 'api-accepting', cases: ONE_CASE, skip: ONE_CASE }, /no case to play/],
    ['no client_id', 400, 'body_invalid', { cases: ONE_CASE }, /client_id/],
    ['an unknown member', 400, 'body_invalid', { client_id: 'api-accepting', clients: ['x'] }, /clients/],
    ['an empty cases list', 400, 'body_invalid', { client_id: 'api-accepting', cases: [] }, /cases/],
    ['a window of 0 s', 400, 'body_invalid', { client_id: 'api-accepting', window_s: 0 }, /window_s/],
    ['a body that is an array', 400, 'body_invalid', [{ client_id: 'api-accepting' }], /must be object/],
  ])('%s: %i %s', async (_what, status, code, body, detail) => {
    const before = (await request(bank.app).get('/sandbox/conformance-runs')).body.data.length;
    const problem = expectProblem(await start(body), status, code);
    expect(JSON.stringify(problem)).toMatch(detail);
    expect((await request(bank.app).get('/sandbox/conformance-runs')).body.data.length).toBe(before);
  });

  it('a body that is not JSON: 400 body_malformed', async () => {
    const response = await request(bank.app).post('/sandbox/conformance-runs').set('content-type', 'application/json').send('{"client_id": "api-accepting",');
    expectProblem(response, 400, 'body_malformed');
  });

  it('a query parameter on the start: 400 query_invalid', async () => {
    expectProblem(await request(bank.app).post('/sandbox/conformance-runs?dry_run=1').send({ client_id: 'api-accepting', cases: ONE_CASE }), 400, 'query_invalid');
  });
});

describe('runs that do not exist', () => {
  it.each([
    ['GET', '/sandbox/conformance-runs/no-such-run'],
    ['GET', '/sandbox/conformance-runs/no-such-run/junit.xml'],
    ['GET', '/sandbox/conformance-runs/no-such-run/report.html'],
    ['DELETE', '/sandbox/conformance-runs/no-such-run'],
  ])('%s %s: 404 not_found', async (method, path) => {
    const response = method === 'GET' ? await request(bank.app).get(path) : await request(bank.app).delete(path);
    expect(expectProblem(response, 404, 'not_found').detail).toContain('no-such-run');
  });
});

describe('listing and reports', () => {
  const ids: string[] = [];

  beforeAll(async () => {
    await registerConnector(bank, 'api-listed', accepting.url);
    // One after another (one run at a time per client): the list shows them newest first.
    for (let index = 0; index < 3; index += 1) ids.push((await runToEnd(bank, { client_id: 'api-listed', cases: ONE_CASE })).id);
  });

  it('pages newest first with next_cursor until null, each page a conformance-run-page', async () => {
    const first = await request(bank.app).get('/sandbox/conformance-runs').query({ client_id: 'api-listed', limit: 2 });
    expect(first.status).toBe(200);
    expectSchema('conformance-run-page', first.body);
    expect(first.body.data.map((run: { id: string }) => run.id)).toEqual([ids[2], ids[1]]);
    expect(typeof first.body.next_cursor).toBe('string');
    const second = await request(bank.app).get('/sandbox/conformance-runs').query({ client_id: 'api-listed', limit: 2, cursor: first.body.next_cursor });
    expect(second.status).toBe(200);
    expectSchema('conformance-run-page', second.body);
    expect(second.body.data.map((run: { id: string }) => run.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
    // Summaries, not results: the counts are there, the exchanges are not.
    expect(first.body.data[0]).toMatchObject({ client_id: 'api-listed', state: 'finished', summary: { total: 1, passed: 1 } });
    expect(first.body.data[0].results).toBeUndefined();
  });

  it('without client_id lists every client\'s runs', async () => {
    const all = await request(bank.app).get('/sandbox/conformance-runs').query({ limit: 1000 });
    expect(all.body.data.map((run: { id: string }) => run.id)).toEqual(expect.arrayContaining(ids));
    expect(all.body.data.some((run: { client_id: string }) => run.client_id !== 'api-listed')).toBe(true);
  });

  it.each([
    ['a cursor it never gave out', { cursor: 'bm90LWEtY3Vyc29y' }],
    ['a limit of 0', { limit: 0 }],
    ['an unknown parameter', { state: 'running' }],
  ])('refuses %s with 400 query_invalid', async (_what, query) => {
    expectProblem(await request(bank.app).get('/sandbox/conformance-runs').query(query), 400, 'query_invalid');
  });

  it('serves the JUnit file as XML and the report as HTML, named after the run', async () => {
    const junit = await request(bank.app).get(`/sandbox/conformance-runs/${ids[0]}/junit.xml`);
    expect(junit.status).toBe(200);
    expect(junit.headers['content-type']).toMatch(/^application\/xml(;|$)/);
    expect(junit.headers['content-disposition']).toBe(`inline; filename="conformance-${ids[0]}.xml"`);
    expect(junit.text).toMatch(/^<\?xml[^>]*\?>\s*<testsuites/);
    expect(junit.text).toContain('name="pull.signed_request_accepted"');
    const html = await request(bank.app).get(`/sandbox/conformance-runs/${ids[0]}/report.html`);
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html(;|$)/);
    expect(html.headers['content-disposition']).toBe(`inline; filename="conformance-${ids[0]}.html"`);
    expect(html.text).toMatch(/^<!DOCTYPE html>/i);
    expect(html.text).toContain('pull.signed_request_accepted');
  });

  it('GET of a run matches conformance-run, with its result', async () => {
    const run = await request(bank.app).get(`/sandbox/conformance-runs/${ids[1]}`);
    expect(run.status).toBe(200);
    expectSchema('conformance-run', run.body);
    expect(run.body.results.map((result: { id: string; verdict: string }) => [result.id, result.verdict])).toEqual([['pull.signed_request_accepted', 'PASSED']]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Live events

interface StreamedEvent {
  event: string;
  data: { type: string; client_id: string | null; data: Record<string, unknown> };
}

/** Opens GET /sandbox/events?client_id= on a real socket and collects the events as they arrive. */
function openEvents(port: number, clientId: string): Promise<{ events: StreamedEvent[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: `/sandbox/events?client_id=${clientId}`, headers: { accept: 'text/event-stream' }, agent: false }, (res) => {
      const events: StreamedEvent[] = [];
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const taken = takeSseMessages<StreamedEvent['data']>(pending + chunk);
        pending = taken.rest;
        for (const message of taken.messages) events.push({ event: message.event ?? '', data: message.data });
      });
      res.on('error', () => undefined);
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('live events', () => {
  let server: http.Server;
  let port: number;
  let gate: HostileConnector & { release(): void };

  beforeAll(async () => {
    server = http.createServer(bank.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    gate = await gatedConnector();
    connectors.push(gate);
    await registerConnector(bank, 'api-events', gate.url);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('streams one conformance.case_finished per case, naming the run, the case and its verdict, while the run goes on', async () => {
    const stream = await openEvents(port, 'api-events');
    // Every group, the client cases skipped after a one-second window (no Connector pushes anything here).
    const started = await start({ client_id: 'api-events', window_s: 1 });
    expect(started.status).toBe(202);
    const planned: string[] = started.body.cases;
    const finishedCases = () => stream.events.filter((event) => event.event === 'conformance.case_finished');
    // Nothing is judged while the Connector holds the discovery pull; once it answers, the cases come in.
    expect(finishedCases()).toEqual([]);
    gate.release();
    await until(() => finishedCases().length === planned.length, `${planned.length} conformance.case_finished events`);
    const run = await bank.conformance.finished(started.body.id);
    const events = finishedCases();
    for (const event of events) {
      expectSchema('event', event.data);
      expect(event.data).toMatchObject({ type: 'conformance.case_finished', client_id: 'api-events' });
    }
    const verdicts = Object.fromEntries((run?.results ?? []).map((result) => [result.id, result.verdict]));
    expect(Object.fromEntries(events.map((event) => [event.data.data.case_id, event.data.data.verdict]))).toEqual(verdicts);
    expect(new Set(events.map((event) => event.data.data.run_id))).toEqual(new Set([started.body.id]));
    expect(events.map((event) => event.data.data.case_id).sort()).toEqual([...planned].sort());
    stream.close();
  });
});
