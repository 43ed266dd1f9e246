// Fault profiles (conformance.md section 4): PUT/GET/DELETE /sandbox/clients/{id}/faults, and what a profile does
// to the callbacks and pulls the Bank sends that client and to the status answers it gives it. Every injected fault
// is marked in the journal; the Bank's own guarantees hold (a dropped callback is delivered later, a conflicting
// final never changes the order). Time moves by test clock advances only.
import request from 'supertest';
import { Bank, createBank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { createLogger } from '../../src/wire/logger';
import { DemoClient, demo, sampleOrder } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector, connectorOrder } from '../helpers/outbound';
import { expectSchema } from '../helpers/control-schemas';
import { expectProblem } from '../helpers/wire';
import { BankConfig } from '../../src/bank/config';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const ADMIN = 'admin-secret-token';
const CLIENT = demo.client_id;
const DROPPED = 'dropped by fault profile';
const CONFIG: Partial<BankConfig> = { callbackMode: 'unit', reportPending: false, retryScheduleS: [60, 600], retryHorizonS: 86_400, adminToken: ADMIN };

const ZEROS = { duplicate_rate: 0, reorder_rate: 0, delay_ms: 0, drop_rate: 0, bad_signature_rate: 0, conflicting_final_rate: 0, status_429_rate: 0, seed: 0 };

interface Attempt {
  http_status: number | null;
  error: string | null;
}
interface Message {
  message_id: number;
  idempotency_key: string;
  state: string;
  attempts: Attempt[];
}
interface Entry {
  id: number;
  direction: 'in' | 'out';
  path: string;
  status: number | null;
  fault: string | null;
  references: string[];
}

const open: { bank: Bank; fake: FakeConnector }[] = [];

async function start(overrides: Partial<BankConfig> = {}): Promise<{ bank: Bank; fake: FakeConnector }> {
  const started = await bankWithFakeConnector({ ...CONFIG, ...overrides }, { clock: new ManualClock(T0) });
  open.push(started);
  return started;
}

afterEach(async () => {
  for (const { bank, fake } of open.splice(0)) {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  }
});

function sandbox(bank: Bank) {
  const admin = (test: request.Test) => test.set('authorization', `Bearer ${ADMIN}`);
  return {
    get: (path: string) => admin(request(bank.app).get(`/sandbox${path}`)),
    put: (path: string, body?: unknown) => admin(request(bank.app).put(`/sandbox${path}`)).send(body as object),
    post: (path: string, body?: unknown) => admin(request(bank.app).post(`/sandbox${path}`)).send(body as object),
    delete: (path: string) => admin(request(bank.app).delete(`/sandbox${path}`)),
  };
}

async function setFaults(bank: Bank, profile: Record<string, unknown>): Promise<void> {
  const answer = await sandbox(bank).put(`/clients/${CLIENT}/faults`, profile);
  expect([answer.status, answer.text]).toEqual([200, expect.any(String)]);
}

async function attachClock(bank: Bank): Promise<void> {
  expect((await sandbox(bank).post(`/clients/${CLIENT}/clock`, { frozen_at: '2026-11-22T12:00:00Z' })).status).toBe(201);
}

async function advance(bank: Bank, seconds: number) {
  const answer = await sandbox(bank).post(`/clients/${CLIENT}/clock/advance`, { seconds });
  expect(answer.status).toBe(200);
  return answer.body as { fired: { kind: string }[] };
}

async function createOrders(bank: Bank, references: string[], scenario = 'PENDING:10:SUCCESS'): Promise<void> {
  const client = new DemoClient(bank);
  for (const reference of references) {
    const created = await client.create(sampleOrder({ reference, metadata: { sandbox_scenario: scenario } }));
    expect([reference, [200, 202].includes(created.status)]).toEqual([reference, true]);
  }
}

async function detail(bank: Bank, reference: string) {
  const answer = await sandbox(bank).get(`/orders/${CLIENT}/${reference}`);
  expect(answer.status).toBe(200);
  return answer.body as { order: { status: string }; history: unknown[]; messages: Message[] };
}

async function outgoing(bank: Bank): Promise<Entry[]> {
  const answer = await sandbox(bank).get(`/journal?client_id=${CLIENT}&direction=out&limit=1000`);
  expect(answer.status).toBe(200);
  expectSchema('journal-page', answer.body);
  return (answer.body.data as Entry[]).reverse();
}

const callbacksIn = (entries: Entry[]) => entries.filter((entry) => entry.path.startsWith('/callbacks/'));

describe('PUT, GET and DELETE /sandbox/clients/{id}/faults', () => {
  it('a client without a profile shows zeros and active: false; PUT stores a profile (absent members 0), GET shows it, DELETE removes it', async () => {
    const { bank } = await start();
    const api = sandbox(bank);
    expect((await api.get(`/clients/${CLIENT}/faults`)).body).toEqual({ client_id: CLIENT, active: false, ...ZEROS, updated_at: null });

    const put = await api.put(`/clients/${CLIENT}/faults`, { drop_rate: 0.5, delay_ms: 250, seed: 7 });
    expect(put.status).toBe(200);
    const stored = { client_id: CLIENT, active: true, ...ZEROS, drop_rate: 0.5, delay_ms: 250, seed: 7, updated_at: '2026-11-22T10:00:00.000Z' };
    expect(put.body).toEqual(stored);
    expect((await api.get(`/clients/${CLIENT}/faults`)).body).toEqual(stored);

    // A PUT replaces the whole profile.
    expect((await api.put(`/clients/${CLIENT}/faults`, { duplicate_rate: 1 })).body).toEqual({ ...stored, drop_rate: 0, delay_ms: 0, seed: 0, duplicate_rate: 1 });

    const removed = await api.delete(`/clients/${CLIENT}/faults`);
    expect([removed.status, removed.text]).toEqual([204, '']);
    expect((await api.get(`/clients/${CLIENT}/faults`)).body).toMatchObject({ active: false, duplicate_rate: 0 });
    expect((await api.delete(`/clients/${CLIENT}/faults`)).status).toBe(204);
  });

  it('refuses a bad body with 400 and stores nothing', async () => {
    const { bank } = await start();
    const api = sandbox(bank);
    const bad: [string, unknown][] = [
      ['unknown member', { drop_rate: 0.1, jitter: 1 }],
      ['rate above 1', { drop_rate: 1.5 }],
      ['negative rate', { duplicate_rate: -0.1 }],
      ['rate as text', { status_429_rate: '0.5' }],
      ['fractional delay', { delay_ms: 1.5 }],
      ['delay above a minute', { delay_ms: 60_001 }],
      ['seed as text', { seed: '7' }],
      ['fractional seed', { seed: 1.5 }],
      ['not an object', [0.5]],
    ];
    for (const [what, body] of bad) {
      const answer = await api.put(`/clients/${CLIENT}/faults`, body);
      expect([what, answer.status, answer.body.code]).toEqual([what, 400, 'body_invalid']);
    }
    const malformed = await request(bank.app).put(`/sandbox/clients/${CLIENT}/faults`).set('authorization', `Bearer ${ADMIN}`).type('json').send('{"drop_rate": ');
    expectProblem(malformed, 400, 'body_malformed');
    const text = await request(bank.app).put(`/sandbox/clients/${CLIENT}/faults`).set('authorization', `Bearer ${ADMIN}`).type('text').send('drop_rate=1');
    expectProblem(text, 415, 'unsupported_media_type');
    expect((await api.get(`/clients/${CLIENT}/faults`)).body.active).toBe(false);
    expect(bank.db.prepare('SELECT COUNT(*) FROM client_faults').pluck().get()).toBe(0);
  });

  it('an unknown client is 404 not_found; without the admin token 401', async () => {
    const { bank } = await start();
    const api = sandbox(bank);
    expectProblem(await api.put('/clients/nobody/faults', { drop_rate: 1 }), 404, 'not_found');
    expectProblem(await api.get('/clients/nobody/faults'), 404, 'not_found');
    expectProblem(await api.delete('/clients/nobody/faults'), 404, 'not_found');
    expect((await request(bank.app).get(`/sandbox/clients/${CLIENT}/faults`)).status).toBe(401);
    expect(bank.db.prepare('SELECT COUNT(*) FROM client_faults').pluck().get()).toBe(0);
  });

  it('a profile survives a restart', async () => {
    const { bank } = await start();
    await setFaults(bank, { duplicate_rate: 0.25, seed: 42 });
    const before = (await sandbox(bank).get(`/clients/${CLIENT}/faults`)).body;
    bank.close();
    const again = await createBank(bank.config, { logger: createLogger('error', true), clock: new ManualClock(T0 + 1000) });
    try {
      expect((await sandbox(again).get(`/clients/${CLIENT}/faults`)).body).toEqual(before);
    } finally {
      again.close();
    }
  });

  it('a reset of the client and the deletion of a client remove its profile', async () => {
    const { bank } = await start();
    const api = sandbox(bank);
    await setFaults(bank, { drop_rate: 1 });
    const reset = await api.post('/reset', { client_id: CLIENT });
    expect(reset.status).toBe(200);
    expect(reset.body.deleted).toMatchObject({ client_faults: 1 });
    expect((await api.get(`/clients/${CLIENT}/faults`)).body.active).toBe(false);

    expect((await api.post('/clients', { client_id: 'faulty' })).status).toBe(201);
    expect((await api.put('/clients/faulty/faults', { duplicate_rate: 1 })).status).toBe(200);
    expect((await api.delete('/clients/faulty')).status).toBe(200);
    expectProblem(await api.get('/clients/faulty/faults'), 404, 'not_found');
    expect((await api.post('/clients', { client_id: 'faulty' })).status).toBe(201);
    expect((await api.get('/clients/faulty/faults')).body).toMatchObject({ active: false, duplicate_rate: 0 });
  });
});

describe('faults in callbacks', () => {
  it('duplicate_rate 1: every callback arrives twice with one key (fresh nonce), one attempt recorded, the copy marked "duplicate"', async () => {
    const { bank, fake } = await start();
    const references = ['DUP-1', 'DUP-2', 'DUP-3'];
    await setFaults(bank, { duplicate_rate: 1 });
    await attachClock(bank);
    await createOrders(bank, references);
    await advance(bank, 10);

    expect(fake.callbacks).toHaveLength(6);
    const byKey = new Map<string, typeof fake.callbacks>();
    for (const callback of fake.callbacks) byKey.set(callback.idempotencyKey, [...(byKey.get(callback.idempotencyKey) ?? []), callback]);
    expect(byKey.size).toBe(3);
    for (const copies of byKey.values()) {
      expect(copies).toHaveLength(2);
      expect(copies[1].body).toBe(copies[0].body);
      expect(copies.every((copy) => copy.signatureOk)).toBe(true);
    }
    expect(fake.keyBodyMismatches).toEqual([]);
    for (const reference of references) {
      const [message] = (await detail(bank, reference)).messages;
      expect(message).toMatchObject({ state: 'delivered', attempts: [{ http_status: 200, error: null }] });
    }
    const entries = callbacksIn(await outgoing(bank));
    expect(entries.map((entry) => entry.fault).sort()).toEqual([null, null, null, 'duplicate', 'duplicate', 'duplicate'].sort());
    const nonces = new Set<string>();
    for (const entry of entries) {
      const full = await sandbox(bank).get(`/journal/${entry.id}`);
      expectSchema('journal-entry', full.body);
      expect(full.body.fault).toBe(entry.fault);
      nonces.add(full.body.request.headers['x-nonce']);
    }
    expect(nonces.size).toBe(6);
  });

  it('drop_rate 1: a dropped attempt is a failed attempt, not a delivery; after three drops the message is delivered', async () => {
    const { bank, fake } = await start();
    await setFaults(bank, { drop_rate: 1 });
    await attachClock(bank);
    await createOrders(bank, ['DROP-1']);
    await advance(bank, 10);

    expect(fake.callbacks).toEqual([]);
    let [message] = (await detail(bank, 'DROP-1')).messages;
    expect(message).toMatchObject({ state: 'pending', attempts: [{ http_status: null, error: DROPPED }] });
    const listed = await sandbox(bank).get(`/callbacks?client_id=${CLIENT}`);
    expect(listed.body.data.map((item: Message) => item.state)).toEqual(['pending']);

    await advance(bank, 3600);
    [message] = (await detail(bank, 'DROP-1')).messages;
    expect(message.state).toBe('delivered');
    expect(message.attempts.map((attempt) => attempt.error ?? attempt.http_status)).toEqual([DROPPED, DROPPED, DROPPED, 200]);
    expect(fake.callbacks).toHaveLength(1);
    expect(fake.finals.get('DROP-1')?.status).toBe('SUCCESS');
    const entries = callbacksIn(await outgoing(bank));
    expect(entries.map((entry) => [entry.fault, entry.status])).toEqual([['drop', null], ['drop', null], ['drop', null], [null, 200]]);
  });

  it('drop_rate 0.5, seed 7: two runs drop exactly the same attempts, and every message is delivered in the end', async () => {
    const references = Array.from({ length: 10 }, (_, index) => `SEEDED-${index + 1}`);
    const run = async () => {
      const { bank, fake } = await start();
      await setFaults(bank, { drop_rate: 0.5, seed: 7 });
      await attachClock(bank);
      await createOrders(bank, references);
      await advance(bank, 10);
      await advance(bank, 7200);
      const dropped: string[] = [];
      for (const reference of references) {
        const [message] = (await detail(bank, reference)).messages;
        expect([reference, message.state]).toEqual([reference, 'delivered']);
        message.attempts.forEach((attempt, index) => {
          if (attempt.error === DROPPED) dropped.push(`${reference}#${index + 1}`);
        });
      }
      expect(references.map((reference) => fake.finals.get(reference)?.status)).toEqual(references.map(() => 'SUCCESS'));
      const marked = callbacksIn(await outgoing(bank)).filter((entry) => entry.fault === 'drop');
      expect(marked).toHaveLength(dropped.length);
      expect(fake.callbacks).toHaveLength(references.length);
      return dropped;
    };
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    // The rate did something, and not everything: some first attempts were dropped, some went through.
    const firstAttempts = first.filter((attempt) => attempt.endsWith('#1')).length;
    expect(firstAttempts).toBeGreaterThan(0);
    expect(firstAttempts).toBeLessThan(references.length);
  });

  it('bad_signature_rate 1: the first attempts are refused by the Connector, a later one is correctly signed and delivered', async () => {
    const { bank, fake } = await start();
    await setFaults(bank, { bad_signature_rate: 1 });
    await attachClock(bank);
    await createOrders(bank, ['BADSIG-1']);
    await advance(bank, 10);
    await advance(bank, 3600);

    expect(fake.callbacks.map((callback) => [callback.signatureOk, callback.answeredWith])).toEqual([[false, 401], [false, 401], [false, 401], [true, 200]]);
    const [message] = (await detail(bank, 'BADSIG-1')).messages;
    expect(message.state).toBe('delivered');
    expect(callbacksIn(await outgoing(bank)).map((entry) => entry.fault)).toEqual(['bad_signature', 'bad_signature', 'bad_signature', null]);
  });

  it('conflicting_final_rate 1: the opposite final follows under its own key; the order, its history and its messages are unchanged', async () => {
    const { bank, fake } = await start();
    await setFaults(bank, { conflicting_final_rate: 1 });
    await attachClock(bank);
    await createOrders(bank, ['CONFLICT-OK']);
    await createOrders(bank, ['CONFLICT-KO'], 'PENDING:10:FAILED:BUS_INSUFFICIENT_FUNDS');
    expect((await sandbox(bank).post(`/clients/${CLIENT}/pause`)).status).toBe(200);
    await advance(bank, 10);
    const settled = { ok: await detail(bank, 'CONFLICT-OK'), ko: await detail(bank, 'CONFLICT-KO') };
    expect(settled.ok.order.status).toBe('SUCCESS');
    expect(settled.ko.order.status).toBe('FAILED');
    expect((await sandbox(bank).post(`/clients/${CLIENT}/resume`)).status).toBe(200);
    await advance(bank, 0);

    const received = fake.callbacks.map((callback) => [callback.parsed.reference, callback.parsed.status, callback.parsed.reasonCode ?? null]);
    expect(received).toEqual(expect.arrayContaining([
      ['CONFLICT-OK', 'SUCCESS', null],
      ['CONFLICT-OK', 'FAILED', 'BUS_NOT_SPECIFIED'],
      ['CONFLICT-KO', 'FAILED', 'BUS_INSUFFICIENT_FUNDS'],
      ['CONFLICT-KO', 'SUCCESS', null],
    ]));
    expect(received).toHaveLength(4);
    expect(fake.conflicts.sort()).toEqual(['CONFLICT-KO', 'CONFLICT-OK']);
    // Each order's real final came first, and the conflicting one carried a key of its own.
    for (const reference of ['CONFLICT-OK', 'CONFLICT-KO']) {
      const [real, conflicting] = fake.callbacks.filter((callback) => callback.parsed.reference === reference);
      expect(real.idempotencyKey).not.toBe(conflicting.idempotencyKey);
      expect(fake.finals.get(reference)?.key).toBe(real.idempotencyKey);
    }

    const after = { ok: await detail(bank, 'CONFLICT-OK'), ko: await detail(bank, 'CONFLICT-KO') };
    for (const which of ['ok', 'ko'] as const) {
      expect(after[which].order).toEqual(settled[which].order);
      expect(after[which].history).toEqual(settled[which].history);
      expect(after[which].messages).toHaveLength(1);
      expect(after[which].messages[0]).toMatchObject({ state: 'delivered', attempts: [{ http_status: 200 }] });
    }
    expect((await new DemoClient(bank).status('CONFLICT-OK')).body.status).toBe('SUCCESS');
    expect(bank.db.prepare('SELECT COUNT(*) FROM callbacks').pluck().get()).toBe(2);
    expect(callbacksIn(await outgoing(bank)).map((entry) => entry.fault).sort()).toEqual(['conflicting_final', 'conflicting_final', null, null].sort());
  });

  it('reorder_rate 1: adjacent messages of one pass go out swapped, and are marked "reorder"', async () => {
    const { bank, fake } = await start({ dispatchConcurrency: 1 });
    const references = ['ORDER-1', 'ORDER-2', 'ORDER-3', 'ORDER-4'];
    await setFaults(bank, { reorder_rate: 1 });
    await attachClock(bank);
    await createOrders(bank, references);
    await advance(bank, 10);

    const idOf = new Map<string, number>();
    for (const reference of references) idOf.set(reference, (await detail(bank, reference)).messages[0].message_id);
    const byId = [...references].sort((a, b) => (idOf.get(a) as number) - (idOf.get(b) as number));
    expect(fake.callbacks.map((callback) => callback.parsed.reference)).toEqual([byId[1], byId[0], byId[3], byId[2]]);
    expect(callbacksIn(await outgoing(bank)).map((entry) => entry.fault)).toEqual(['reorder', 'reorder', 'reorder', 'reorder']);
  });

  it('delay_ms: the attempt leaves later on its own (not in the advance that made it due), is delivered and marked "delay"', async () => {
    const { bank, fake } = await start();
    await setFaults(bank, { delay_ms: 50 });
    await attachClock(bank);
    await createOrders(bank, ['DELAY-1']);
    const advanced = await advance(bank, 10);
    expect(advanced.fired.filter((event) => event.kind === 'delivery')).toEqual([]);

    const deadline = Date.now() + 20_000;
    let message = (await detail(bank, 'DELAY-1')).messages[0];
    while (message.state !== 'delivered' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      message = (await detail(bank, 'DELAY-1')).messages[0];
    }
    expect(message).toMatchObject({ state: 'delivered', attempts: [{ http_status: 200, error: null }] });
    expect(fake.callbacks).toHaveLength(1);
    expect(callbacksIn(await outgoing(bank)).map((entry) => entry.fault)).toEqual(['delay']);
  });
});

describe('faults in pulls and status answers', () => {
  it('bad_signature_rate 1 on pulls: the first three pulls of a page are badly signed, the fourth is clean and its orders are stored', async () => {
    const { bank, fake } = await start();
    fake.orders = [connectorOrder('PULLED-1', '2026-11-22T09:00:00Z')];
    await setFaults(bank, { bad_signature_rate: 1 });
    const outcomes: string[] = [];
    for (let cycle = 0; cycle < 4; cycle += 1) outcomes.push(...(await bank.outbound.poller.runCycle()).map((report) => report.outcome));
    expect(outcomes).toEqual(['error', 'error', 'error', 'ok']);
    expect(fake.pulls.map((pull) => pull.signatureOk)).toEqual([false, false, false, true]);
    expect((await detail(bank, 'PULLED-1')).order).toBeDefined();
    const pulls = (await outgoing(bank)).filter((entry) => entry.path === '/payment-orders');
    expect(pulls.map((entry) => [entry.fault, entry.status])).toEqual([['bad_signature', 401], ['bad_signature', 401], ['bad_signature', 401], [null, 200]]);
  });

  it('duplicate_rate 1 on pulls: each pull is sent twice, the copy marked "duplicate"; the orders are stored once', async () => {
    const { bank, fake } = await start();
    fake.orders = [connectorOrder('PULLED-2', '2026-11-22T09:00:00Z')];
    await setFaults(bank, { duplicate_rate: 1 });
    const [report] = await bank.outbound.poller.runCycle();
    expect(report).toMatchObject({ outcome: 'ok', accepted: 1 });
    expect(fake.pulls).toHaveLength(2);
    expect(fake.pulls[1]).toEqual(fake.pulls[0]);
    expect(fake.pulls[0].signatureOk).toBe(true);
    const pulls = (await outgoing(bank)).filter((entry) => entry.path === '/payment-orders');
    expect(pulls.map((entry) => entry.fault)).toEqual(pulls.map((_, index) => (index % 2 === 1 ? 'duplicate' : null)));
    expect(bank.db.prepare('SELECT COUNT(*) FROM orders WHERE reference = ?').pluck().get('PULLED-2')).toBe(1);
  });

  it('status_429_rate 1: the first three polls of an order are 429 rate_limited with Retry-After: 2 and marked "status_429", the fourth answers', async () => {
    const { bank } = await start();
    const client = new DemoClient(bank);
    await createOrders(bank, ['POLLED-1']);
    await setFaults(bank, { status_429_rate: 1 });
    for (let poll = 1; poll <= 3; poll += 1) {
      const answer = await client.status('POLLED-1');
      expectProblem(answer, 429, 'rate_limited');
      expect(answer.headers['retry-after']).toBe('2');
    }
    const answered = await client.status('POLLED-1');
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ reference: 'POLLED-1', status: 'PENDING' });

    const journal = await sandbox(bank).get(`/journal?client_id=${CLIENT}&direction=in&reference=POLLED-1&path=/payment-orders/&limit=100`);
    const polls = (journal.body.data as Entry[]).reverse();
    expect(polls.map((entry) => [entry.status, entry.fault])).toEqual([[429, 'status_429'], [429, 'status_429'], [429, 'status_429'], [200, null]]);
  });
});
