// Issue 13 (5/7), metrics: GET /metrics is Prometheus text, and its series move with what the Bank does:
// requests by route pattern (never the raw path), refusals by problem code, callbacks, pulls, test clock advances
// and the outbox. Who may scrape follows the /sandbox rule.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { attemptLabel } from '../../src/bank/observability/metrics';
import { DemoClient, demo, sampleOrder, startBank } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector, connectorOrder, drain } from '../helpers/outbound';
import { Exposition, parsePrometheusText, sumOf, valueOf } from './prometheus-text';
import { createAs, registerClient, sandbox, Signer, tokenFor } from '../control/client-helpers';
import { unreachableUrl } from '../connector/helpers';

const ADMIN = 'metrics-admin-token';

async function scrape(bank: Bank, token: string | null = null): Promise<Exposition> {
  const answer = token === null ? await request(bank.app).get('/metrics') : await request(bank.app).get('/metrics').set('authorization', `Bearer ${token}`);
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(answer.text);
}

describe('GET /metrics', () => {
  let bank: Bank;
  let client: DemoClient;

  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
    client = new DemoClient(bank);
  });
  afterAll(() => bank.close());

  it('is Prometheus text with every metric of the Bank, typed, and the process metrics, all prefixed sandbox_bank_', async () => {
    const metrics = await scrape(bank);
    const expected: Record<string, string> = {
      sandbox_bank_http_requests_total: 'counter',
      sandbox_bank_http_request_duration_seconds: 'histogram',
      sandbox_bank_http_refusals_total: 'counter',
      sandbox_bank_callback_attempts_total: 'counter',
      sandbox_bank_callbacks_total: 'counter',
      sandbox_bank_callback_attempts_per_callback: 'histogram',
      sandbox_bank_pull_cycles_total: 'counter',
      sandbox_bank_pulled_orders_total: 'counter',
      sandbox_bank_pulled_pages_total: 'counter',
      sandbox_bank_clock_advances_total: 'counter',
      sandbox_bank_clock_advance_fired_total: 'counter',
      sandbox_bank_outbox_depth: 'gauge',
      sandbox_bank_outbox_oldest_age_seconds: 'gauge',
      sandbox_bank_process_cpu_user_seconds_total: 'counter',
      sandbox_bank_process_resident_memory_bytes: 'gauge',
      sandbox_bank_nodejs_eventloop_lag_seconds: 'gauge',
    };
    for (const [name, type] of Object.entries(expected)) {
      expect([name, metrics.types.get(name)]).toEqual([name, type]);
      expect(metrics.help.get(name)).toBeTruthy();
    }
    expect([...metrics.types.keys()].filter((name) => !name.startsWith('sandbox_bank_'))).toEqual([]);
    expect(valueOf(metrics, 'sandbox_bank_outbox_depth', { state: 'pending' })).toBe(0);
  });

  it('counts a signed create under its route, method and status, with its latency', async () => {
    const labels = { route: '/payment-orders', method: 'POST' };
    const before = await scrape(bank);
    const created = await client.create(sampleOrder());
    expect(created.status).toBe(200);
    const after = await scrape(bank);
    const series = { ...labels, status: '200' };
    expect(valueOf(after, 'sandbox_bank_http_requests_total', series) - valueOf(before, 'sandbox_bank_http_requests_total', series)).toBe(1);
    expect(valueOf(after, 'sandbox_bank_http_request_duration_seconds_count', series) - valueOf(before, 'sandbox_bank_http_request_duration_seconds_count', series)).toBe(1);
    expect(valueOf(after, 'sandbox_bank_http_request_duration_seconds_bucket', { ...series, le: '+Inf' })).toBe(valueOf(after, 'sandbox_bank_http_request_duration_seconds_count', series));
    expect(valueOf(after, 'sandbox_bank_http_request_duration_seconds_sum', series)).toBeGreaterThan(0);
  });

  it('labels by route pattern, never by the raw path: order ids and unknown paths do not become label values', async () => {
    const reference = sampleOrder().reference as string;
    await client.status(reference);
    await request(bank.app).get(`/sandbox/orders/${demo.client_id}/${reference}`);
    await request(bank.app).get(`/no-such-path-${reference}`);
    const answer = await request(bank.app).get('/metrics');
    expect(answer.text).not.toContain(reference);
    const metrics = parsePrometheusText(answer.text);
    expect(valueOf(metrics, 'sandbox_bank_http_requests_total', { route: '/payment-orders/:id/status', method: 'GET', status: '404' })).toBe(1);
    // A /sandbox route that answers a problem keeps its mount path (the error leaves the router before the count).
    expect(valueOf(metrics, 'sandbox_bank_http_requests_total', { route: '/sandbox/orders/:client_id/:reference', method: 'GET', status: '404' })).toBe(1);
    expect(valueOf(metrics, 'sandbox_bank_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
  });

  it('counts refusals by problem code', async () => {
    const before = await scrape(bank);
    const refused = await request(bank.app).post('/payment-orders').set('content-type', 'application/json').send('{}');
    expect(refused.status).toBe(400);
    const code = refused.body.code as string;
    const wrongMethod = await request(bank.app).delete('/payment-orders');
    expect(wrongMethod.body.code).toBe('method_not_allowed');
    const after = await scrape(bank);
    const moved = (labels: Record<string, string>) => valueOf(after, 'sandbox_bank_http_refusals_total', labels) - valueOf(before, 'sandbox_bank_http_refusals_total', labels);
    expect(moved({ code })).toBe(1);
    expect(moved({ code: 'method_not_allowed' })).toBe(1);
    expect(valueOf(after, 'sandbox_bank_http_requests_total', { route: '/payment-orders', method: 'DELETE', status: '405' })).toBe(1);
  });

  it('keeps each Bank in its own registry', async () => {
    const other = await startBank({ sandboxMode: 'relaxed' });
    try {
      const mine = await scrape(bank);
      const theirs = await scrape(other);
      expect(sumOf(mine, 'sandbox_bank_http_requests_total', { route: '/payment-orders' })).toBeGreaterThan(0);
      expect(sumOf(theirs, 'sandbox_bank_http_requests_total', { route: '/payment-orders' })).toBe(0);
    } finally {
      other.close();
    }
  });
});

describe('who may scrape', () => {
  it('strict mode: the admin token, as for /sandbox', async () => {
    const bank = await startBank({ sandboxMode: 'strict', adminToken: ADMIN });
    try {
      const anonymous = await request(bank.app).get('/metrics');
      expect([anonymous.status, anonymous.body.code]).toEqual([401, 'auth_missing']);
      const wrong = await request(bank.app).get('/metrics').set('authorization', 'Bearer not-the-token');
      expect([wrong.status, wrong.body.code]).toEqual([401, 'auth_invalid']);
      const metrics = await scrape(bank, ADMIN);
      expect(valueOf(metrics, 'sandbox_bank_http_refusals_total', { code: 'auth_missing' })).toBe(1);
      expect(valueOf(metrics, 'sandbox_bank_http_requests_total', { route: '/metrics', method: 'GET', status: '401' })).toBe(2);
    } finally {
      bank.close();
    }
  });

  it('strict mode without ADMIN_TOKEN: disabled, like /sandbox', async () => {
    const bank = await startBank({ sandboxMode: 'strict', adminToken: null });
    try {
      const answer = await request(bank.app).get('/metrics');
      expect([answer.status, answer.body.code, answer.body.reason]).toEqual([401, 'auth_invalid', 'admin_disabled']);
    } finally {
      bank.close();
    }
  });
});

describe('the outgoing side', () => {
  let bank: Bank;
  let fake: FakeConnector;

  beforeEach(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: [0.01] }));
  });
  afterEach(async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('counts callback attempts by outcome and attempt number, and callbacks delivered with the attempts they took', async () => {
    const failures = new Map<string, number>();
    fake.behaviour = (kind, key) => {
      if (kind === 'pull') return null;
      const seen = failures.get(key) ?? 0;
      failures.set(key, seen + 1);
      return seen === 0 ? 500 : null;
    };
    const created = await new DemoClient(bank).create(sampleOrder({ metadata: { sandbox_scenario: 'PENDING:0:SUCCESS' } }));
    expect(created.status).toBe(200);
    const queued = await scrape(bank);
    expect(sumOf(queued, 'sandbox_bank_outbox_depth')).toBeGreaterThan(0);
    await drain(bank);

    const metrics = await scrape(bank);
    const delivered = fake.callbacks.filter((callback) => callback.answeredWith === 200).length;
    expect(delivered).toBeGreaterThan(0);
    expect(valueOf(metrics, 'sandbox_bank_callbacks_total', { outcome: 'delivered' })).toBe(delivered);
    expect(valueOf(metrics, 'sandbox_bank_callback_attempts_total', { outcome: 'failed', attempt: '1' })).toBe(delivered);
    expect(valueOf(metrics, 'sandbox_bank_callback_attempts_total', { outcome: 'ok', attempt: '2' })).toBe(delivered);
    expect(valueOf(metrics, 'sandbox_bank_callback_attempts_per_callback_bucket', { outcome: 'delivered', le: '1' })).toBe(0);
    expect(valueOf(metrics, 'sandbox_bank_callback_attempts_per_callback_bucket', { outcome: 'delivered', le: '2' })).toBe(delivered);
    expect(valueOf(metrics, 'sandbox_bank_callback_attempts_per_callback_sum', { outcome: 'delivered' })).toBe(2 * delivered);
    expect(sumOf(metrics, 'sandbox_bank_outbox_depth')).toBe(0);
    expect(valueOf(metrics, 'sandbox_bank_outbox_oldest_age_seconds', { state: 'pending' })).toBe(0);
  });

  it('counts a dead callback', async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: [0.01], retryHorizonS: 1 }, { clock: new ManualClock(Date.now()) }));
    fake.behaviour = (kind) => (kind === 'pull' ? null : 503);
    fake.orders = [connectorOrder('METRICS-DEAD-1', '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    await bank.outbound.dispatcher.runOnce();
    (bank.clock as ManualClock).advance(5_000);
    await bank.outbound.dispatcher.runOnce();
    const metrics = await scrape(bank);
    expect(valueOf(metrics, 'sandbox_bank_callbacks_total', { outcome: 'dead' })).toBe(1);
    expect(valueOf(metrics, 'sandbox_bank_callback_attempts_total', { outcome: 'failed', attempt: '2' })).toBe(1);
    expect(valueOf(metrics, 'sandbox_bank_callback_attempts_per_callback_count', { outcome: 'dead' })).toBe(1);
  });

  it('counts pull cycles and pulled orders', async () => {
    fake.orders = [connectorOrder('METRICS-PULL-1', '2026-11-20T00:00:00Z'), connectorOrder('METRICS-PULL-2', '2026-11-20T00:00:01Z')];
    await bank.outbound.poller.runCycle();
    const metrics = await scrape(bank);
    expect(sumOf(metrics, 'sandbox_bank_pull_cycles_total')).toBe(1);
    expect(valueOf(metrics, 'sandbox_bank_pull_cycles_total', { outcome: 'ok' })).toBe(1);
    expect(valueOf(metrics, 'sandbox_bank_pulled_orders_total', { result: 'accepted' })).toBe(2);
    expect(valueOf(metrics, 'sandbox_bank_pulled_pages_total')).toBeGreaterThan(0);
    // What is still to report is in the outbox until the dispatcher runs.
    expect(sumOf(metrics, 'sandbox_bank_outbox_depth')).toBeGreaterThan(0);
  });

  it('counts test clock advances and what they fired', async () => {
    const attach = await request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock`).send({ frozen_at: '2026-11-22T12:00:00Z' });
    expect(attach.status).toBe(201);
    await new DemoClient(bank).create(sampleOrder({ metadata: { sandbox_scenario: 'PENDING:60:SUCCESS' } }));
    const advanced = await request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock/advance`).send({ seconds: 120 });
    expect(advanced.status).toBe(200);
    const metrics = await scrape(bank);
    expect(valueOf(metrics, 'sandbox_bank_clock_advances_total')).toBe(1);
    expect(valueOf(metrics, 'sandbox_bank_clock_advance_fired_total')).toBe(advanced.body.fired.length);
    expect(valueOf(metrics, 'sandbox_bank_http_requests_total', { route: '/sandbox/clients/:id/clock/advance', method: 'POST', status: '200' })).toBe(1);
  });
});

describe('the outbox gauges and deleted clients', () => {
  it("leave out what a deleted client's Connector will never be sent, so the oldest age does not grow for ever", async () => {
    const clock = new ManualClock(Date.now());
    const bank = await startBank({ sandboxMode: 'relaxed', pollCron: 'off' }, { clock });
    try {
      const created = await registerClient(bank, { client_id: 'gone-soon', connector: { url: await unreachableUrl() } });
      const signer: Signer = { clientId: 'gone-soon', jwk: created.private_jwk!, token: await tokenFor(bank, 'gone-soon', created.client_secret) };
      expect((await createAs(bank, signer, sampleOrder({ metadata: { sandbox_scenario: 'PENDING:60:SUCCESS' } }))).status).toBe(200);
      clock.advance(3_600_000);
      const before = await scrape(bank);
      expect(sumOf(before, 'sandbox_bank_outbox_depth')).toBeGreaterThan(0);
      expect(sumOf(before, 'sandbox_bank_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(3600);
      expect((await sandbox(bank).delete('/sandbox/clients/gone-soon')).status).toBe(200);
      const after = await scrape(bank);
      expect(sumOf(after, 'sandbox_bank_outbox_depth')).toBe(0);
      expect(sumOf(after, 'sandbox_bank_outbox_oldest_age_seconds')).toBe(0);
    } finally {
      bank.close();
    }
  });
});

describe('attempt labels', () => {
  it('are 1 to 5, then 6+', () => {
    expect([1, 2, 5, 6, 40].map(attemptLabel)).toEqual(['1', '2', '5', '6+', '6+']);
  });
});
