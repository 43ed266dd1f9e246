import request from 'supertest';
import { createLogger } from '../../src/wire/logger';
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { FakeConnector } from '../helpers/fake-connector';
import { DemoClient, sampleOrder } from '../helpers/bank';
import { bankWithFakeConnector, connectorOrder, drain, waitFor } from '../helpers/outbound';

describe('callback delivery', () => {
  let bank: Bank;
  let fake: FakeConnector;

  beforeEach(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: [0.02, 0.05] }));
  });
  afterEach(async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  function attemptsOf(key: string) {
    return bank.db
      .prepare('SELECT a.attempt, a.status_code AS statusCode, a.error, a.latency_ms AS latencyMs, a.url FROM callback_attempts a JOIN callbacks c ON c.id = a.callback_id WHERE c.idempotency_key = ? ORDER BY a.id')
      .all(key) as { attempt: number; statusCode: number | null; error: string | null; latencyMs: number; url: string }[];
  }

  /** Attempts that got no HTTP answer (reset, time-out). */
  function failedAttempts(): number {
    return bank.db.prepare('SELECT COUNT(*) FROM callback_attempts WHERE status_code IS NULL AND error IS NOT NULL').pluck().get() as number;
  }

  it('retries a Connector that answers 500 three times, with the same key and the same bytes, and records each attempt', async () => {
    const answers = new Map<string, number>();
    fake.behaviour = (kind, key) => {
      if (kind === 'pull') return null;
      const seen = answers.get(key) ?? 0;
      answers.set(key, seen + 1);
      return seen < 3 ? 500 : null;
    };
    fake.orders = [connectorOrder('RETRY-1', '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    await drain(bank);

    const received = fake.callbacks.filter((callback) => callback.parsed.reference === 'RETRY-1');
    expect(received.map((callback) => callback.answeredWith)).toEqual([500, 500, 500, 200]);
    expect(new Set(received.map((callback) => callback.idempotencyKey)).size).toBe(1);
    expect(new Set(received.map((callback) => callback.body)).size).toBe(1);
    expect(fake.keyBodyMismatches).toEqual([]);
    const attempts = attemptsOf(received[0].idempotencyKey);
    expect(attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 500, 200]);
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3, 4]);
    expect(attempts[0].error).toBe('HTTP 500');
    expect(attempts[3].error).toBeNull();
  });

  it('delivers everything once a Connector that was down comes back', async () => {
    let down = true;
    fake.behaviour = (kind) => (kind !== 'pull' && down ? 'reset' : null);
    fake.orders = Array.from({ length: 20 }, (_, index) => connectorOrder(`DOWN-${index}`, '2026-11-20T00:00:00Z'));
    await bank.outbound.poller.runCycle();
    for (let pass = 0; pass < 5; pass += 1) {
      await bank.outbound.dispatcher.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(fake.finals.size).toBe(0);
    expect(failedAttempts()).toBeGreaterThan(0);
    down = false;
    await drain(bank);
    expect(fake.finals.size).toBe(20);
    expect(fake.keyBodyMismatches).toEqual([]);
  });

  it('stores the attempts that ended, a concurrency at a time, while a slow one still holds the pass', async () => {
    bank.close();
    await fake.stop();
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', dispatchConcurrency: 2, connectorTimeoutMs: 4_000 }));
    let hung = false;
    fake.behaviour = (kind) => {
      if (kind !== 'unit' || hung) return null;
      hung = true;
      return 'hang';
    };
    fake.orders = Array.from({ length: 6 }, (_, index) => connectorOrder(`CHUNK-${index}`, '2026-11-20T00:00:00Z'));
    await bank.outbound.poller.runCycle();
    const delivered = () => bank.db.prepare("SELECT COUNT(*) FROM callbacks WHERE state = 'delivered'").pluck().get() as number;
    let passEnded = false;
    const pass = bank.outbound.dispatcher.runOnce().then((attempts) => {
      passEnded = true;
      return attempts;
    });
    // One worker waits on the hung callback (up to the 4 s time-out); the other sends the five others, and each
    // two that end are stored at once.
    await waitFor(() => delivered() >= 4, 3_000, 'four delivered callbacks stored during the pass');
    expect(passEnded).toBe(false);
    expect(await pass).toBe(6);
    expect(delivered()).toBe(5);
    expect(failedAttempts()).toBe(1);
  });

  /** A fresh Bank whose Connector answers every callback 503: the pulled order's callback ends dead (1 s horizon). */
  async function untilDead(reference: string, options: Parameters<typeof bankWithFakeConnector>[1] = {}): Promise<void> {
    bank.close();
    await fake.stop();
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: [0.01], retryHorizonS: 1 }, options));
    fake.behaviour = (kind) => (kind === 'pull' ? null : 503);
    fake.orders = [connectorOrder(reference, '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    await waitFor(() => {
      void bank.outbound.dispatcher.runOnce();
      return (bank.db.prepare("SELECT COUNT(*) FROM callbacks WHERE state = 'dead'").pluck().get() as number) === 1;
    }, 10_000, 'a dead callback');
  }

  it('marks a callback dead after the retry horizon', async () => {
    await untilDead('DEAD-1');
    const dead = await request(bank.app).get('/sandbox/callbacks?state=dead');
    expect(dead.status).toBe(200);
    expect(dead.body.data).toHaveLength(1);
    expect(dead.body.data[0].last_error).toBe('HTTP 503');
  });

  it('logs each failed attempt and the death of a message at warn, with the client and the order references', async () => {
    const logger = createLogger('error', true);
    const warn = jest.spyOn(logger, 'warn');
    await untilDead('DEAD-LOG-1', { logger });
    const logged = (warn.mock.calls as unknown as [string, Record<string, unknown>][]).filter(([message]) => message.startsWith('callback'));
    const expected = expect.objectContaining({ client_id: 'demo-connector', references: ['DEAD-LOG-1'], error: 'HTTP 503', kind: 'unit' });
    expect(logged.filter(([message]) => message === 'callback attempt failed').map(([, meta]) => meta)).toEqual(expect.arrayContaining([expected]));
    expect(logged.filter(([message]) => message.startsWith('callback dead')).map(([, meta]) => meta)).toEqual([expected]);
  });

  it('records an invalid order in a page as rejected and keeps going', async () => {
    fake.orders = [
      connectorOrder('GOOD-1', '2026-11-20T00:00:01Z'),
      { ...connectorOrder('BAD-TOTAL', '2026-11-20T00:00:02Z'), total_amount: '99.99' },
      { ...connectorOrder('BAD-FIELD', '2026-11-20T00:00:03Z'), unexpected: true },
      connectorOrder('GOOD-2', '2026-11-20T00:00:04Z'),
    ];
    const [report] = await bank.outbound.poller.runCycle();
    expect(report).toMatchObject({ outcome: 'ok', accepted: 2, rejected: 2 });
    const rejections = bank.pulledOrders.rejections('demo-connector');
    expect(rejections.map((rejection) => rejection.reference)).toEqual(['BAD-TOTAL', 'BAD-FIELD']);
    expect(rejections[0].reason).toContain('/total_amount');
    expect(rejections[1].reason).toContain('/unexpected');
    expect(bank.pulledOrders.cursor('demo-connector')).toBe('2026-11-20T00:00:04Z');
    await drain(bank);
    expect([...fake.finals.keys()].sort()).toEqual(['GOOD-1', 'GOOD-2']);
  });

  it('treats 204 as nothing to do, and a 500 on the pull as a logged error that the next cycle retries', async () => {
    const [empty] = await bank.outbound.poller.runCycle();
    expect(empty.outcome).toBe('no_content');
    fake.behaviour = (kind) => (kind === 'pull' ? 500 : null);
    const [failed] = await bank.outbound.poller.runCycle();
    expect(failed.outcome).toBe('error');
    expect(failed.error).toContain('HTTP 500');
    fake.behaviour = () => null;
    fake.orders = [connectorOrder('AFTER-ERROR', '2026-11-20T00:00:00Z')];
    const [recovered] = await bank.outbound.poller.runCycle();
    expect(recovered.accepted).toBe(1);
  });

  it('reports PENDING then the final for a pulled PENDING order, and never PENDING after a final', async () => {
    bank.close();
    await fake.stop();
    const clock = new ManualClock(Date.now());
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit' }, { clock }));
    fake.orders = [connectorOrder('PEND-1', '2026-11-20T00:00:00Z', { metadata: { sandbox_scenario: 'PENDING:5:FAILED:BUS_ACCOUNT_BLOCKED' } })];
    await bank.outbound.poller.runCycle();
    await drain(bank);
    expect(fake.statusesOf('PEND-1')).toEqual(['PENDING']);
    clock.advance(5000);
    await drain(bank);
    expect(fake.statusesOf('PEND-1')).toEqual(['PENDING', 'FAILED']);
    const final = fake.callbacks.find((callback) => callback.parsed.status === 'FAILED');
    expect(final?.parsed).toMatchObject({ reference: 'PEND-1', reasonCode: 'BUS_ACCOUNT_BLOCKED', reasonMessage: 'Account blocked' });
    expect(final?.parsed.processed_at).toEqual(expect.stringMatching(/Z$/));
    expect(final?.parsed).not.toHaveProperty('timestamp');
  });

  it("holds an order's final while its PENDING report is still being retried, then sends it", async () => {
    let pendingFailures = 2;
    fake.behaviour = (kind, key) => (kind === 'unit' && key.endsWith('-PENDING') && pendingFailures-- > 0 ? 503 : null);
    fake.orders = [connectorOrder('HOLD-1', '2026-11-20T00:00:00Z', { metadata: { sandbox_scenario: 'PENDING:0:SUCCESS' } })];
    await bank.outbound.poller.runCycle();
    await bank.outbound.dispatcher.runOnce();
    bank.outbound.settlement.tick();
    await bank.outbound.dispatcher.runOnce();
    // The PENDING message has failed and waits for its retry; the final is known, queued, and not sent.
    const received = () => fake.callbacks.filter((callback) => callback.parsed.reference === 'HOLD-1').map((callback) => `${callback.parsed.status} ${callback.answeredWith}`);
    expect(received()).toEqual(['PENDING 503']);
    const queued = bank.db.prepare("SELECT status FROM status_events WHERE reference = 'HOLD-1' AND state = 'queued'").pluck().all();
    expect(queued).toEqual(['SUCCESS']);
    // Only the report of the acceptance is marked first; the final is checked against it.
    const marks = bank.db.prepare("SELECT status, first_report AS firstReport FROM status_events WHERE reference = 'HOLD-1' ORDER BY id").all();
    expect(marks).toEqual([{ status: 'PENDING', firstReport: 1 }, { status: 'SUCCESS', firstReport: 0 }]);
    await drain(bank);
    expect(received()).toEqual(['PENDING 503', 'PENDING 503', 'PENDING 200', 'SUCCESS 200']);
  });

  it('drops a PENDING report that was not sent yet when the final is already known', async () => {
    fake.orders = [connectorOrder('PEND-2', '2026-11-20T00:00:00Z', { metadata: { sandbox_scenario: 'PENDING:0:SUCCESS' } })];
    await bank.outbound.poller.runCycle();
    bank.outbound.settlement.tick();
    await drain(bank);
    expect(fake.statusesOf('PEND-2')).toEqual(['SUCCESS']);
  });

  it('sends DUPLICATE_CALLBACK finals twice with the same key and bytes; pushed 200 finals are not called back', async () => {
    const client = new DemoClient(bank);
    const duplicate = sampleOrder({ metadata: { sandbox_scenario: 'DUPLICATE_CALLBACK' } });
    const sync = sampleOrder();
    expect((await client.create(duplicate)).status).toBe(202);
    expect((await client.create(sync)).status).toBe(200);
    await drain(bank);
    const finals = fake.callbacks.filter((callback) => callback.parsed.reference === duplicate.reference && callback.parsed.status === 'SUCCESS');
    expect(finals).toHaveLength(2);
    expect(finals[0].idempotencyKey).toBe(finals[1].idempotencyKey);
    expect(finals[0].body).toBe(finals[1].body);
    expect(fake.statusesOf(sync.reference as string)).toEqual([]);
  });

  it('reports an ASYNC push by callback after its delay, and NO_CALLBACK never', async () => {
    const client = new DemoClient(bank);
    const asyncOrder = sampleOrder({ metadata: { sandbox_scenario: 'ASYNC:0:SUCCESS' } });
    const silent = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
    expect((await client.create(asyncOrder)).status).toBe(202);
    expect((await client.create(silent)).status).toBe(202);
    await drain(bank);
    expect(fake.statusesOf(asyncOrder.reference as string)).toEqual(['PENDING', 'SUCCESS']);
    expect(fake.statusesOf(silent.reference as string)).toEqual([]);
  });

  it('shows an order with its history, callbacks and attempts on /sandbox/orders/{client_id}/{reference}', async () => {
    fake.orders = [connectorOrder('INSPECT-1', '2026-11-20T00:00:00Z', { metadata: { sandbox_scenario: 'PENDING:0:SUCCESS' } })];
    await bank.outbound.poller.runCycle();
    await drain(bank);
    const response = await request(bank.app).get('/sandbox/orders/demo-connector/INSPECT-1');
    expect(response.status).toBe(200);
    expect(response.body.history.map((entry: { status: string }) => entry.status)).toEqual(['PENDING', 'SUCCESS']);
    expect(response.body.messages.length).toBeGreaterThanOrEqual(1);
    expect(response.body.messages[0].attempts[0]).toMatchObject({ http_status: 200 });
  });
});

describe('batch callbacks', () => {
  it('freezes each batch: batch_id equals X-Idempotency-Key, and a retry resends the same bytes', async () => {
    const { bank, fake } = await bankWithFakeConnector({ callbackMode: 'batch', batchSize: 10, retryScheduleS: [0.02] });
    let failures = 2;
    fake.behaviour = (kind) => (kind === 'batch' && failures-- > 0 ? 502 : null);
    fake.orders = Array.from({ length: 25 }, (_, index) => connectorOrder(`B-${String(index).padStart(2, '0')}`, '2026-11-20T00:00:00Z'));
    await bank.outbound.poller.runCycle();
    await drain(bank);
    const batches = fake.callbacks.filter((callback) => callback.kind === 'batch');
    for (const batch of batches) {
      expect(batch.parsed.batch_id).toBe(batch.idempotencyKey);
      expect(batch.parsed.sent_at).toEqual(expect.stringMatching(/Z$/));
      for (const item of batch.parsed.orders as Record<string, string>[]) {
        expect(Object.keys(item)).toEqual(['reference', 'bank_reference', 'status', 'timestamp']);
      }
    }
    expect(fake.keyBodyMismatches).toEqual([]);
    expect(fake.finals.size).toBe(25);
    expect(batches.filter((batch) => batch.answeredWith === 200)).toHaveLength(3);
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('auto mode sends unit callbacks for a few orders and batches above the threshold', async () => {
    const { bank, fake } = await bankWithFakeConnector({ callbackMode: 'auto', autoBatchThreshold: 5, batchSize: 50 });
    fake.orders = Array.from({ length: 3 }, (_, index) => connectorOrder(`AUTO-A-${index}`, '2026-11-20T00:00:00Z'));
    await bank.outbound.poller.runCycle();
    await drain(bank);
    expect(fake.callbacks.every((callback) => callback.kind === 'unit')).toBe(true);
    fake.orders = Array.from({ length: 20 }, (_, index) => connectorOrder(`AUTO-B-${index}`, '2026-11-21T00:00:00Z'));
    await bank.outbound.poller.runCycle();
    await drain(bank);
    expect(fake.callbacks.some((callback) => callback.kind === 'batch')).toBe(true);
    expect(fake.finals.size).toBe(23);
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });
});

describe('strict mode', () => {
  /** What the Bank logged, at warn, of the Connectors it will neither pull nor call back. */
  const refusalWarnings = (warn: jest.SpyInstance) =>
    (warn.mock.calls as unknown as [string, Record<string, unknown>][]).filter(([message]) => message.startsWith('this Connector is neither pulled nor called back in strict mode')).map(([, meta]) => meta);

  it('says at start which Connectors it will not call back over http://, and says nothing of the kind in relaxed mode', async () => {
    for (const sandboxMode of ['strict', 'relaxed'] as const) {
      const logger = createLogger('error', true);
      const warn = jest.spyOn(logger, 'warn');
      const { bank, fake } = await bankWithFakeConnector({ sandboxMode, adminToken: 'admin-secret-token' }, { logger });
      bank.outbound.start();
      try {
        const warnings = refusalWarnings(warn);
        if (sandboxMode === 'relaxed') expect(warnings).toEqual([]);
        else expect(warnings).toEqual([{ client_id: 'demo-connector', url: fake.url, reason: 'refused: callbacks to http:// Connectors are sent only with SANDBOX_MODE=relaxed' }]);
      } finally {
        await bank.outbound.stop(1000);
        bank.close();
        await fake.stop();
      }
    }
  });

  it('says it again, once, for an http:// Connector registered or moved at run time', async () => {
    const logger = createLogger('error', true);
    const warn = jest.spyOn(logger, 'warn');
    const { bank, fake } = await bankWithFakeConnector({ sandboxMode: 'strict', adminToken: 'admin-secret-token' }, { logger });
    bank.outbound.start();
    const refusals = () => refusalWarnings(warn);
    const admin = (call: request.Test) => call.set('authorization', 'Bearer admin-secret-token');
    try {
      expect(refusals()).toHaveLength(1);
      expect((await admin(request(bank.app).post('/sandbox/clients')).send({ client_id: 'late-http', connector: { url: 'http://127.0.0.1:9/late' } })).status).toBe(201);
      expect((await admin(request(bank.app).post('/sandbox/clients')).send({ client_id: 'late-https', connector: { url: 'https://127.0.0.1:9/late' } })).status).toBe(201);
      expect(refusals().slice(1)).toEqual([expect.objectContaining({ client_id: 'late-http', url: 'http://127.0.0.1:9/late' })]);
      // Same URL, another setting: nothing new to say. Another http:// URL: said again.
      expect((await admin(request(bank.app).patch('/sandbox/clients/late-http')).send({ connector: { url: 'http://127.0.0.1:9/late', poll: false } })).status).toBe(200);
      expect(refusals()).toHaveLength(2);
      expect((await admin(request(bank.app).patch('/sandbox/clients/late-http')).send({ connector: { url: 'http://127.0.0.1:9/moved' } })).status).toBe(200);
      expect(refusals().slice(2)).toEqual([expect.objectContaining({ client_id: 'late-http', url: 'http://127.0.0.1:9/moved' })]);
    } finally {
      await bank.outbound.stop(1000);
      bank.close();
      await fake.stop();
    }
  });

  it('does not send callbacks to an http:// Connector, and records why', async () => {
    const { bank, fake } = await bankWithFakeConnector({ sandboxMode: 'strict', adminToken: 'admin-secret-token' });
    expect((await new DemoClient(bank).create(sampleOrder({ metadata: { sandbox_scenario: 'ASYNC:0:SUCCESS' } }))).status).toBe(202);
    bank.outbound.settlement.tick();
    await bank.outbound.dispatcher.runOnce();
    expect(fake.callbacks).toHaveLength(0);
    const error = bank.db.prepare('SELECT error FROM callback_attempts').pluck().get() as string;
    expect(error).toContain('SANDBOX_MODE=relaxed');
    const unauthorized = await request(bank.app).get('/sandbox/callbacks');
    expect(unauthorized.status).toBe(401);
    const listed = await request(bank.app).get('/sandbox/callbacks?state=pending').set('authorization', 'Bearer admin-secret-token');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('does not pull from an http:// Connector in strict mode: a pulled order must be called back (contract section 1)', async () => {
    const { bank, fake } = await bankWithFakeConnector({ sandboxMode: 'strict', adminToken: 'admin-secret-token' });
    try {
      fake.orders = [connectorOrder('STRICT-1', '2026-11-20T00:00:00Z')];
      expect(await bank.outbound.poller.runCycle()).toEqual([]);
      const asked = await request(bank.app).post('/sandbox/clients/demo-connector/poll').set('authorization', 'Bearer admin-secret-token');
      expect(asked.status).toBe(200);
      expect(asked.body).toMatchObject({ outcome: 'error', accepted: 0, error: expect.stringContaining('neither pulls from nor calls back an http:// Connector') });
      expect(fake.pulls).toHaveLength(0);
      expect(bank.db.prepare('SELECT COUNT(*) FROM orders').pluck().get()).toBe(0);
    } finally {
      await bank.outbound.stop(1000);
      bank.close();
      await fake.stop();
    }
  });
});
