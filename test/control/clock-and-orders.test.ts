// Control plane sections 2 and 3: test clocks fire settlements, callbacks, retries and dead messages in time
// order; outcomes, redelivery, pause/resume, reset and the order lists. No wall-clock waits: only advances.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { DemoClient, demo, sampleOrder } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector } from '../helpers/outbound';
import { expectProblem } from '../helpers/wire';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const ADMIN = 'admin-secret-token';

let bank: Bank;
let fake: FakeConnector;
let client: DemoClient;

beforeEach(async () => {
  ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', reportPending: false, retryScheduleS: [60, 600], retryHorizonS: 3600, adminToken: ADMIN }, { clock: new ManualClock(T0) }));
  client = new DemoClient(bank);
});
afterEach(async () => {
  await bank.outbound.stop(1000);
  bank.close();
  await fake.stop();
});

const admin = () => ({ authorization: `Bearer ${ADMIN}` });
const post = (path: string, body?: unknown) => request(bank.app).post(`/sandbox${path}`).set(admin()).send(body as object);
const get = (path: string) => request(bank.app).get(`/sandbox${path}`).set(admin());

async function createWith(scenario: string): Promise<string> {
  const order = sampleOrder({ metadata: { sandbox_scenario: scenario } });
  const created = await client.create(order);
  expect([200, 202]).toContain(created.status);
  return order.reference as string;
}

describe('test clocks', () => {
  it('without PENDING reports: PENDING:3600:SUCCESS pends at 3599 s, settles at 3600 s with its callback at the clocked time; redelivery sends the same bytes and key; reset forgets it', async () => {
    const attached = await post(`/clients/${demo.client_id}/clock`, { frozen_at: '2026-11-22T12:00:00Z' });
    expect(attached.status).toBe(201);
    expect(attached.body).toEqual({ client_id: demo.client_id, now: '2026-11-22T12:00:00.000Z', attached_at: '2026-11-22T10:00:00.000Z' });
    const reference = await createWith('PENDING:3600:SUCCESS');

    const first = await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 3599 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ from: '2026-11-22T12:00:00.000Z', to: '2026-11-22T12:59:59.000Z', fired: [] });
    expect((await get(`/orders/${demo.client_id}/${reference}`)).body.order.status).toBe('PENDING');
    expect(fake.callbacks).toEqual([]);

    const second = await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 1 });
    expect(second.body.fired).toEqual([
      { at: '2026-11-22T13:00:00.000Z', kind: 'settlement', reference, status: 'SUCCESS' },
      { at: '2026-11-22T13:00:00.000Z', kind: 'delivery', attempts: 1 },
    ]);
    expect(fake.callbacks).toHaveLength(1);
    const [callback] = fake.callbacks;
    expect(callback.signatureOk).toBe(true);
    expect(callback.parsed).toMatchObject({ reference, status: 'SUCCESS', processed_at: '2026-11-22T13:00:00.000Z' });

    const detail = await get(`/orders/${demo.client_id}/${reference}`);
    expect(detail.body.order).toMatchObject({ status: 'SUCCESS', processed_at: '2026-11-22T13:00:00.000Z' });
    expect(detail.body.history.map((entry: { status: string; at: string }) => [entry.status, entry.at])).toEqual([
      ['PENDING', '2026-11-22T12:00:00.000Z'],
      ['SUCCESS', '2026-11-22T13:00:00.000Z'],
    ]);
    const [message] = detail.body.messages;
    expect(message).toMatchObject({ kind: 'unit', state: 'delivered', idempotency_key: callback.idempotencyKey });
    expect(message.attempts).toEqual([expect.objectContaining({ at: '2026-11-22T13:00:00.000Z', http_status: 200, error: null })]);

    const redelivered = await post(`/callbacks/${message.message_id}/redeliver`);
    expect(redelivered.status).toBe(200);
    await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 0 });
    expect(fake.callbacks).toHaveLength(2);
    expect(fake.callbacks[1].body).toBe(callback.body);
    expect(fake.callbacks[1].idempotencyKey).toBe(callback.idempotencyKey);
    expect((await get(`/callbacks/${message.message_id}`)).body.attempts).toHaveLength(2);

    const reset = await post('/reset', { client_id: demo.client_id });
    expect(reset.body.deleted).toMatchObject({ orders: 1, callbacks: 1, callback_attempts: 2, test_clocks: 1 });
    expectProblem(await get(`/orders/${demo.client_id}/${reference}`), 404, 'not_found');
    expectProblem(await get(`/clients/${demo.client_id}/clock`), 404, 'not_found');
  });

  it('advancing is exact: 4 s leaves PENDING:5 pending, the fifth second settles it', async () => {
    await post(`/clients/${demo.client_id}/clock`);
    const reference = await createWith('PENDING:5:FAILED:BUS_ACCOUNT_BLOCKED');
    await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 4 });
    expect(bank.book.find(demo.client_id, reference)?.status).toBe('PENDING');
    await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 1 });
    expect(bank.book.find(demo.client_id, reference)).toMatchObject({ status: 'FAILED', reasonCode: 'BUS_ACCOUNT_BLOCKED', processedAt: T0 + 5000 });
  });

  it('retries follow their backoff and a message goes dead by clock advance alone; redelivery revives it with the same bytes', async () => {
    fake.behaviour = (kind) => (kind === 'pull' ? null : 500);
    await post(`/clients/${demo.client_id}/clock`);
    const reference = await createWith('ASYNC:0:SUCCESS');
    const first = await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 53 }); // the first retry is 60 s ± 10 % away
    expect(first.body.fired).toEqual([
      { at: '2026-11-22T10:00:00.000Z', kind: 'settlement', reference, status: 'SUCCESS' },
      { at: '2026-11-22T10:00:00.000Z', kind: 'delivery', attempts: 1 },
    ]);
    const whole = await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 7200 });
    const deliveries = whole.body.fired.filter((item: { kind: string }) => item.kind === 'delivery');
    // 60 s after the first attempt, then 600 s after each (±10 % jitter), until the 3600 s horizon.
    expect(deliveries.length).toBeGreaterThanOrEqual(5);
    const dead = await get('/callbacks?state=dead');
    expect(dead.body.data).toHaveLength(1);
    const message = dead.body.data[0];
    expect(message.attempts.every((attempt: { http_status: number }) => attempt.http_status === 500)).toBe(true);
    const gaps = message.attempts.slice(1).map((attempt: { at: string }, index: number) => (Date.parse(attempt.at) - Date.parse(message.attempts[index].at)) / 1000);
    expect(gaps[0]).toBeGreaterThanOrEqual(54);
    expect(gaps[0]).toBeLessThanOrEqual(66);
    for (const gap of gaps.slice(1)) expect(gap).toBeGreaterThanOrEqual(540);

    fake.behaviour = () => null;
    const revived = await post('/callbacks/redeliver', { client_id: demo.client_id });
    expect(revived.body).toEqual({ redelivered: [message.message_id] });
    await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 0 });
    expect((await get(`/callbacks/${message.message_id}`)).body.state).toBe('delivered');
    expect(new Set(fake.callbacks.map((callback) => callback.body)).size).toBe(1);
    expect(new Set(fake.callbacks.map((callback) => callback.idempotencyKey)).size).toBe(1);
  });

  it('a clocked client is left alone by the interval scheduler; other clients are not affected', async () => {
    await post(`/clients/${demo.client_id}/clock`);
    const reference = await createWith('ASYNC:0:SUCCESS');
    (bank.clock as ManualClock).advance(10_000);
    bank.outbound.settlement.tick();
    await bank.outbound.dispatcher.runOnce();
    expect(bank.book.find(demo.client_id, reference)?.status).toBe('PENDING');
    expect(fake.callbacks).toEqual([]);
  });

  it('refuses to move back, answers 404 without a clock or client, and 400 for a bad body', async () => {
    expectProblem(await post('/clients/nobody/clock'), 404, 'not_found');
    expectProblem(await get(`/clients/${demo.client_id}/clock`), 404, 'not_found');
    expectProblem(await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 1 }), 404, 'not_found');
    await post(`/clients/${demo.client_id}/clock`, { frozen_at: '2026-11-22T12:00:00Z' });
    expectProblem(await post(`/clients/${demo.client_id}/clock/advance`, { to: '2026-11-22T11:00:00Z' }), 400, 'clock_backwards');
    expectProblem(await post(`/clients/${demo.client_id}/clock`, { frozen_at: '2026-11-22T11:00:00Z' }), 400, 'clock_backwards');
    expectProblem(await post(`/clients/${demo.client_id}/clock/advance`, { seconds: -1 }), 400, 'clock_backwards');
    expectProblem(await post(`/clients/${demo.client_id}/clock/advance`, { seconds: 1, to: '2026-11-22T13:00:00Z' }), 400, 'body_invalid');
    expectProblem(await post(`/clients/${demo.client_id}/clock/advance`, { minutes: 1 }), 400, 'body_invalid');
    const detached = await request(bank.app).delete(`/sandbox/clients/${demo.client_id}/clock`).set(admin());
    expect(detached.body).toMatchObject({ detached: true, now: '2026-11-22T12:00:00.000Z' });
  });
});

describe('test clocks with the default reporting (PENDING reported, a 1 s batch window)', () => {
  /** A Bank of its own, as `npm start` reports: every PENDING too, and partial batches wait BATCH_WINDOW_MS. */
  async function withReportingBank(callbackMode: 'unit' | 'batch' | 'auto', run: (own: { bank: Bank; fake: FakeConnector; client: DemoClient }) => Promise<void>): Promise<void> {
    const own = await bankWithFakeConnector({ callbackMode, reportPending: true, batchWindowMs: 1000, retryScheduleS: [60, 600], retryHorizonS: 3600 }, { clock: new ManualClock(T0) });
    try {
      await run({ ...own, client: new DemoClient(own.bank) });
    } finally {
      await own.bank.outbound.stop(1000);
      own.bank.close();
      await own.fake.stop();
    }
  }
  const advance = (bank: Bank, body: object) => request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock/advance`).set(admin()).send(body);
  const attach = (bank: Bank) => request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock`).set(admin()).send({ frozen_at: '2026-11-22T12:00:00Z' });
  const createOn = async (client: DemoClient, scenario: string) => {
    const order = sampleOrder({ metadata: { sandbox_scenario: scenario } });
    expect([200, 202]).toContain((await client.create(order)).status);
    return order.reference as string;
  };

  it('the documented session (README step 5, docs/control-plane.md): each line does what its comment says', async () => {
    await withReportingBank('auto', async ({ bank, fake, client }) => {
      await attach(bank);
      const reference = await createOn(client, 'PENDING:3600:SUCCESS');
      // its PENDING callback, no settlement
      expect((await advance(bank, { seconds: 3599 })).body.fired).toEqual([{ at: '2026-11-22T12:00:00.000Z', kind: 'delivery', attempts: 1 }]);
      expect(fake.callbacks.map((callback) => callback.parsed.status)).toEqual(['PENDING']);
      // settlement + SUCCESS callback
      expect((await advance(bank, { seconds: 1 })).body.fired).toEqual([
        { at: '2026-11-22T13:00:00.000Z', kind: 'settlement', reference, status: 'SUCCESS' },
        { at: '2026-11-22T13:00:00.000Z', kind: 'delivery', attempts: 1 },
      ]);
      // SUCCESS, processed_at 13:00:00, both messages and their attempts
      const detail = (await request(bank.app).get(`/sandbox/orders/${demo.client_id}/${reference}`).set(admin())).body;
      expect(detail.order).toMatchObject({ status: 'SUCCESS', processed_at: '2026-11-22T13:00:00.000Z' });
      const messages = detail.messages as { message_id: number; idempotency_key: string; attempts: unknown[] }[];
      expect(messages.map((message) => [message.idempotency_key.split('-').pop(), message.attempts.length])).toEqual([['PENDING', 1], ['SUCCESS', 1]]);
      // the SUCCESS callback again (messages.at(-1)): same bytes, same key, sent on the clock's next advance
      const last = messages.at(-1) as { message_id: number };
      expect((await request(bank.app).post(`/sandbox/callbacks/${last.message_id}/redeliver`).set(admin())).status).toBe(200);
      expect(fake.callbacks).toHaveLength(2);
      expect((await advance(bank, { seconds: 0 })).body.fired).toEqual([{ at: '2026-11-22T13:00:00.000Z', kind: 'delivery', attempts: 1 }]);
      expect(fake.callbacks).toHaveLength(3);
      expect([fake.callbacks[2].body, fake.callbacks[2].idempotencyKey]).toEqual([fake.callbacks[1].body, fake.callbacks[1].idempotencyKey]);
    });
  });

  it('{"seconds": 0} sends a unit report queued at the frozen instant, at that instant', async () => {
    await withReportingBank('unit', async ({ bank, fake, client }) => {
      await attach(bank);
      const reference = await createOn(client, 'PENDING:3600:SUCCESS');
      const flushed = await advance(bank, { seconds: 0 });
      expect(flushed.body.fired).toEqual([{ at: '2026-11-22T12:00:00.000Z', kind: 'delivery', attempts: 1 }]);
      expect(fake.callbacks.map((callback) => callback.parsed)).toEqual([expect.objectContaining({ reference, status: 'PENDING' })]);
    });
  });

  it('a partial batch still waits for its window: sent when the window closes, not before', async () => {
    await withReportingBank('batch', async ({ bank, fake, client }) => {
      await attach(bank);
      await createOn(client, 'PENDING:3600:SUCCESS');
      expect((await advance(bank, { seconds: 0.999 })).body.fired).toEqual([]);
      expect((await advance(bank, { seconds: 0.001 })).body.fired).toEqual([{ at: '2026-11-22T12:00:01.000Z', kind: 'delivery', attempts: 1 }]);
      expect(fake.callbacks.map((callback) => callback.kind)).toEqual(['batch']);
    });
  });

  it('a final queued behind a report still being retried does not stop the advance: both are retried to their horizon and go dead in order', async () => {
    await withReportingBank('unit', async ({ bank, fake, client }) => {
      fake.behaviour = (kind) => (kind === 'pull' ? null : 500);
      await attach(bank);
      const reference = await createOn(client, 'PENDING:60:SUCCESS');
      const advanced = await advance(bank, { seconds: 25 * 3600 });
      expect(advanced.body.fired).toContainEqual({ at: '2026-11-22T12:01:00.000Z', kind: 'settlement', reference, status: 'SUCCESS' });
      const detail = (await request(bank.app).get(`/sandbox/orders/${demo.client_id}/${reference}`).set(admin())).body;
      const messages = detail.messages as { idempotency_key: string; state: string; attempts: { at: string }[] }[];
      expect(messages.map((message) => [message.idempotency_key.split('-').pop(), message.state])).toEqual([
        ['PENDING', 'dead'],
        ['SUCCESS', 'dead'],
      ]);
      // Retried through the schedule to the 3600 s horizon, the final only once the PENDING was dead.
      const [pending, success] = messages;
      expect(pending.attempts.length).toBeGreaterThanOrEqual(6);
      expect(success.attempts.length).toBeGreaterThanOrEqual(6);
      expect(Date.parse(success.attempts[0].at)).toBeGreaterThanOrEqual(Date.parse(pending.attempts[pending.attempts.length - 1].at));
    });
  });
});

describe('acting on orders', () => {
  it('forces an outcome exactly as a settlement would (callback and all); a final order is 409 order_final', async () => {
    const reference = await createWith('ASYNC:3600:SUCCESS');
    const forced = await post(`/orders/${demo.client_id}/${reference}/outcome`, { status: 'FAILED', reasonCode: 'BUS_REGULATORY', reasonMessage: 'sanctions hit' });
    expect(forced.status).toBe(200);
    expect(forced.body.order).toMatchObject({ status: 'FAILED', reason_code: 'BUS_REGULATORY', reason_message: 'sanctions hit', settle_at: null });
    await bank.outbound.dispatcher.runOnce();
    expect(fake.callbacks.map((callback) => callback.parsed)).toEqual([expect.objectContaining({ reference, status: 'FAILED', reasonCode: 'BUS_REGULATORY', reasonMessage: 'sanctions hit' })]);
    expectProblem(await post(`/orders/${demo.client_id}/${reference}/outcome`, { status: 'SUCCESS' }), 409, 'order_final');
  });

  it('a forced NO_CALLBACK order changes for reverse polling and sends no callback', async () => {
    const reference = await createWith('NO_CALLBACK');
    expect((await post(`/orders/${demo.client_id}/${reference}/outcome`, { status: 'SUCCESS' })).status).toBe(200);
    await bank.outbound.dispatcher.runOnce();
    expect(fake.callbacks).toEqual([]);
    expect(bank.book.find(demo.client_id, reference)?.status).toBe('SUCCESS');
  });

  it('shows the payment order as received: a pushed body is kept as its own JSON text (spacing and member order as sent), read back equal', async () => {
    const order = sampleOrder();
    const { reference, ...rest } = order;
    const rawBody = JSON.stringify({ ...rest, reference }, null, 2);
    expect((await client.create(order, { rawBody })).status).toBe(200);
    const stored = bank.db.prepare('SELECT payload FROM orders WHERE client_id = ? AND reference = ?').pluck().get(demo.client_id, reference);
    expect(stored).toBe(rawBody);
    const detail = await get(`/orders/${demo.client_id}/${reference}`);
    expect(detail.body.order.payment_order).toEqual(order);
  });

  it('refuses bad outcomes: unknown order 404, FAILED without a code, an unknown code, unknown fields', async () => {
    const reference = await createWith('NO_CALLBACK');
    expectProblem(await post(`/orders/${demo.client_id}/nope/outcome`, { status: 'SUCCESS' }), 404, 'not_found');
    expectProblem(await post(`/orders/${demo.client_id}/${reference}/outcome`, { status: 'FAILED' }), 400, 'body_invalid');
    expectProblem(await post(`/orders/${demo.client_id}/${reference}/outcome`, { status: 'FAILED', reasonCode: 'BUS_NOPE' }), 400, 'body_invalid');
    expectProblem(await post(`/orders/${demo.client_id}/${reference}/outcome`, { status: 'SUCCESS', extra: 1 }), 400, 'body_invalid');
    expectProblem(await request(bank.app).post(`/sandbox/orders/${demo.client_id}/${reference}/outcome`).set(admin()).set('content-type', 'text/plain').send('SUCCESS'), 415, 'unsupported_media_type');
    expectProblem(await request(bank.app).post(`/sandbox/orders/${demo.client_id}/${reference}/outcome`).set(admin()).set('content-type', 'application/json').send('{"status":'), 400, 'body_malformed');
  });

  it('lists orders newest first with filters and a cursor; bad parameters are 400 query_invalid', async () => {
    const references = [];
    for (const scenario of ['SUCCESS', 'NO_CALLBACK', 'SUCCESS', 'NO_CALLBACK', 'SUCCESS']) references.push(await createWith(scenario));
    const page1 = await get('/orders?limit=2');
    expect(page1.body.data.map((order: { reference: string }) => order.reference)).toEqual([references[4], references[3]]);
    const page2 = await get(`/orders?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data.map((order: { reference: string }) => order.reference)).toEqual([references[2], references[1]]);
    const page3 = await get(`/orders?limit=2&cursor=${page2.body.next_cursor}`);
    expect(page3.body).toEqual({ data: [expect.objectContaining({ reference: references[0] })], next_cursor: null });
    const pending = await get(`/orders?status=PENDING&client_id=${demo.client_id}&scenario=NO_CALLBACK&source=push`);
    expect(pending.body.data.map((order: { reference: string }) => order.reference)).toEqual([references[3], references[1]]);
    expect((await get(`/orders?reference=${references[2]}`)).body.data).toHaveLength(1);
    expect((await get('/orders?since=2026-11-22T10:00:01Z')).body.data).toEqual([]);
    for (const bad of ['status=DONE', 'limit=0', 'limit=1001', 'since=yesterday', 'cursor=xyz', 'colour=red', 'source=fax']) {
      expectProblem(await get(`/orders?${bad}`), 400, 'query_invalid');
    }
  });

  it('pause stops callbacks (they queue), resume sends them; an unknown client is 404', async () => {
    expect((await post(`/clients/${demo.client_id}/pause`)).body).toEqual({ client_id: demo.client_id, paused: true });
    const reference = await createWith('ASYNC:0:SUCCESS');
    bank.outbound.settlement.tick();
    await bank.outbound.dispatcher.runOnce();
    expect(fake.callbacks).toEqual([]);
    expect((await post(`/clients/${demo.client_id}/resume`)).body).toEqual({ client_id: demo.client_id, paused: false });
    await bank.outbound.dispatcher.runOnce();
    expect(fake.callbacks.map((callback) => callback.parsed.reference)).toEqual([reference]);
    expect(expectProblem(await post('/clients/nobody/pause'), 404, 'not_found').detail).toBe('no client nobody');
  });

  it('polls one client now and answers what was pulled', async () => {
    fake.orders = [sampleOrder({ reference: 'PULL-NOW-1', initiated_at: '2026-11-20T00:00:00Z' })];
    const polled = await post(`/clients/${demo.client_id}/poll`);
    expect(polled.body).toMatchObject({ clientId: demo.client_id, accepted: 1, outcome: 'ok' });
  });

  it('needs the admin token', async () => {
    expectProblem(await request(bank.app).get('/sandbox/orders'), 401, 'auth_missing');
    expectProblem(await request(bank.app).get('/sandbox/orders').set('authorization', 'Bearer wrong'), 401, 'auth_invalid');
    expectProblem(await request(bank.app).post('/sandbox/reset').send({}), 401, 'auth_missing');
  });
});
