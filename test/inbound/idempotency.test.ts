// Profile section 6 (create idempotency) and section 5 (nothing stored for a rejected request).
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { IdempotencyRepository } from '../../src/bank/store/idempotency';
import { demo, DemoClient, newNonce, sampleOrder, startBank } from '../helpers/bank';
import { ClientSession, makeTestClient, writeClientsFile } from '../helpers/clients';
import {
  expectProblem,
  getStatus,
  HeaderValue,
  isoAt,
  nonceStored,
  orderCount,
  postCreate,
  RawResponse,
  signedCreateHeaders,
  signedStatusHeaders,
  statusTarget,
  tableCounts,
  TableCounts,
} from '../helpers/wire';

type Headers = Record<string, HeaderValue | undefined>;

function idemKey(): string {
  return `idem-${newNonce()}`;
}

function idempotencyRecords(bank: Bank, clientId: string, key: string): number {
  return bank.db.prepare('SELECT COUNT(*) FROM idempotency_records WHERE client_id = ? AND idem_key = ?').pluck().get(clientId, key) as number;
}

describe('create idempotency (ManualClock)', () => {
  const clock = new ManualClock();
  const other = makeTestClient('other-connector');
  let bank: Bank;
  let token: string;

  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed', clientsFile: writeClientsFile([other]), idempotencyRetentionS: 600 }, { clock });
    token = await new DemoClient(bank).token();
  });
  afterAll(() => bank.close());

  function send(body: string, options: Parameters<typeof signedCreateHeaders>[3] = {}, override: Headers = {}): Promise<RawResponse> {
    return postCreate(bank, { ...signedCreateHeaders(bank, token, body, options), ...override }, body);
  }

  describe('replay: same key and same body', () => {
    it.each([
      ['200 SUCCESS', 'SUCCESS', 200],
      ['200 FAILED', 'FAILED:BUS_ACCOUNT_CLOSED', 200],
      ['200 PENDING', 'PENDING:30:SUCCESS', 200],
      ['202 ASYNC', 'ASYNC:30:SUCCESS', 202],
    ])('%s: same status and byte-identical body, Idempotent-Replayed: true', async (_label, scenario, status) => {
      const body = JSON.stringify(sampleOrder({ metadata: { sandbox_scenario: scenario } }));
      const idempotencyKey = idemKey();
      const first = await send(body, { idempotencyKey });
      expect(first.status).toBe(status);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const before = tableCounts(bank);
      clock.advance(5_000);
      const replay = await send(body, { idempotencyKey });
      expect(replay.status).toBe(status);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.equals(first.body)).toBe(true);
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
      expect(replay.headers['content-length']).toBe(first.headers['content-length']);
      expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
    });

    it('replays the stored answer, not the current status, after the order settled', async () => {
      const order = sampleOrder({ metadata: { sandbox_scenario: 'PENDING:1:SUCCESS' } });
      const body = JSON.stringify(order);
      const idempotencyKey = idemKey();
      const first = await send(body, { idempotencyKey });
      expect(first.json()).toMatchObject({ status: 'PENDING' });
      clock.advance(2_000);
      const target = statusTarget(order.reference as string);
      expect((await getStatus(bank, target, signedStatusHeaders(bank, token, target))).json()).toMatchObject({ status: 'SUCCESS' });
      const replay = await send(body, { idempotencyKey });
      expect(replay.body.equals(first.body)).toBe(true);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    });

    it('a replay still needs a fresh nonce, a fresh timestamp, a valid signature and a token', async () => {
      const body = JSON.stringify(sampleOrder());
      const idempotencyKey = idemKey();
      const nonce = newNonce();
      expect((await send(body, { idempotencyKey, nonce })).status).toBe(200);
      expectProblem(await send(body, { idempotencyKey, nonce }), 401, 'nonce_replayed');
      expectProblem(await send(body, { idempotencyKey, timestamp: isoAt(bank, -301) }), 401, 'timestamp_out_of_window');
      expectProblem(await send(body, { idempotencyKey }, { 'x-signature': undefined }), 401, 'signature_missing');
      const signedOther = signedCreateHeaders(bank, token, `${body} `, { idempotencyKey });
      expectProblem(await postCreate(bank, signedOther, body), 401, 'signature_invalid');
      expectProblem(await send(body, { idempotencyKey }, { authorization: undefined }), 401, 'auth_missing');
      expect((await send(body, { idempotencyKey })).headers['idempotent-replayed']).toBe('true');
    });

    it('the key is scoped per client: another client may use the same key for its own order', async () => {
      const idempotencyKey = idemKey();
      expect((await new DemoClient(bank).create(sampleOrder(), { idempotencyKey })).status).toBe(200);
      const otherSession = new ClientSession(bank, other);
      const theirs = await otherSession.create(sampleOrder(), { idempotencyKey });
      expect(theirs.status).toBe(200);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(idempotencyRecords(bank, demo.client_id, idempotencyKey)).toBe(1);
      expect(idempotencyRecords(bank, other.client_id, idempotencyKey)).toBe(1);
    });
  });

  describe('422 idempotency_key_reused', () => {
    it('a different body under the same key is refused and stores nothing; the first answer still replays', async () => {
      const idempotencyKey = idemKey();
      const body = JSON.stringify(sampleOrder());
      const first = await send(body, { idempotencyKey });
      expect(first.status).toBe(200);
      const before = tableCounts(bank);
      const nonce = newNonce();
      const otherOrder = sampleOrder();
      expectProblem(await send(JSON.stringify(otherOrder), { idempotencyKey, nonce }), 422, 'idempotency_key_reused');
      expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
      expect(nonceStored(bank, demo.client_id, nonce)).toBe(true);
      expect(orderCount(bank, demo.client_id, otherOrder.reference as string)).toBe(0);
      const replay = await send(body, { idempotencyKey });
      expect(replay.body.equals(first.body)).toBe(true);
    });

    it('the fingerprint is over the raw bytes: the same JSON re-serialised is a different body', async () => {
      const idempotencyKey = idemKey();
      const order = sampleOrder();
      expect((await send(JSON.stringify(order), { idempotencyKey })).status).toBe(200);
      expectProblem(await send(JSON.stringify(order, null, 2), { idempotencyKey }), 422, 'idempotency_key_reused');
      expectProblem(await send(`${JSON.stringify(order)}\n`, { idempotencyKey }), 422, 'idempotency_key_reused');
    });
  });

  describe('409 duplicate_reference', () => {
    it('a new key for an existing reference is refused, stores nothing for the new key, and stays refused', async () => {
      const order = sampleOrder();
      const body = JSON.stringify(order);
      const originalKey = idemKey();
      const first = await send(body, { idempotencyKey: originalKey });
      expect(first.status).toBe(200);
      const newKey = idemKey();
      const before = tableCounts(bank);
      expectProblem(await send(body, { idempotencyKey: newKey }), 409, 'duplicate_reference');
      expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
      expect(idempotencyRecords(bank, demo.client_id, newKey)).toBe(0);
      expectProblem(await send(body, { idempotencyKey: newKey }), 409, 'duplicate_reference');
      // another body with the same reference is a duplicate too
      const changed = JSON.stringify({ ...order, reason: 'changed' });
      expectProblem(await send(changed, { idempotencyKey: idemKey() }), 409, 'duplicate_reference');
      // the original key still replays
      expect((await send(body, { idempotencyKey: originalKey })).body.equals(first.body)).toBe(true);
    });

    it('references are per client: another client may use the same reference', async () => {
      const order = sampleOrder();
      expect((await new DemoClient(bank).create(order)).status).toBe(200);
      const theirs = await new ClientSession(bank, other).create(order);
      expect(theirs.status).toBe(200);
      expect(orderCount(bank, demo.client_id, order.reference as string)).toBe(1);
      expect(orderCount(bank, other.client_id, order.reference as string)).toBe(1);
    });
  });

  describe('retention (IDEMPOTENCY_RETENTION_S)', () => {
    it('a key is remembered for the retention period, then free again', async () => {
      const order = sampleOrder();
      const body = JSON.stringify(order);
      const idempotencyKey = idemKey();
      const first = await send(body, { idempotencyKey });
      expect(first.status).toBe(200);
      clock.advance(599_999);
      token = await new DemoClient(bank).token();
      expect((await send(body, { idempotencyKey })).headers['idempotent-replayed']).toBe('true');
      clock.advance(1);
      // expired: the same body is now a new create for an existing reference
      expectProblem(await send(body, { idempotencyKey }), 409, 'duplicate_reference');
      // and the key may carry another order
      const next = await send(JSON.stringify(sampleOrder()), { idempotencyKey });
      expect(next.status).toBe(200);
      expect(next.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('rejected requests store nothing (only a verified request spends its nonce)', () => {
    interface Case {
      code: string;
      status: number;
      /** Whether the signature verified, so the nonce is spent. */
      spends: boolean;
      build(nonce: string): Promise<RawResponse>;
    }

    const existing = sampleOrder();
    const existingKey = idemKey();

    beforeAll(async () => {
      expect((await send(JSON.stringify(existing), { idempotencyKey: existingKey })).status).toBe(200);
    });

    const body = () => JSON.stringify(sampleOrder());
    const cases: Case[] = [
      { code: 'body_too_large', status: 413, spends: false, build: (nonce) => send(' '.repeat(262_145), { nonce }) },
      { code: 'unsupported_media_type', status: 415, spends: false, build: (nonce) => send(body(), { nonce }, { 'content-type': 'text/plain' }) },
      { code: 'header_missing', status: 400, spends: false, build: (nonce) => send(body(), { nonce }, { 'x-request-id': undefined }) },
      { code: 'header_invalid', status: 400, spends: false, build: (nonce) => send(body(), { nonce, idempotencyKey: 'has space' }) },
      { code: 'client_unknown', status: 401, spends: false, build: (nonce) => send(body(), { nonce, clientId: 'nobody-registered' }) },
      { code: 'auth_missing', status: 401, spends: false, build: (nonce) => send(body(), { nonce }, { authorization: undefined }) },
      { code: 'auth_invalid', status: 401, spends: false, build: (nonce) => send(body(), { nonce, authorization: 'Bearer nope' }) },
      { code: 'timestamp_out_of_window', status: 401, spends: false, build: (nonce) => send(body(), { nonce, timestamp: isoAt(bank, 600) }) },
      { code: 'signature_missing', status: 401, spends: false, build: (nonce) => send(body(), { nonce }, { 'x-signature': undefined }) },
      {
        code: 'signature_invalid',
        status: 401,
        spends: false,
        build: (nonce) => {
          const sent = body();
          return postCreate(bank, signedCreateHeaders(bank, token, `${sent} `, { nonce }), sent);
        },
      },
      { code: 'body_malformed', status: 400, spends: true, build: (nonce) => send('{"reference":', { nonce }) },
      { code: 'body_invalid', status: 400, spends: true, build: (nonce) => send(JSON.stringify(sampleOrder({ extra: 1 })), { nonce }) },
      { code: 'body_invalid', status: 400, spends: true, build: (nonce) => send(JSON.stringify(sampleOrder({ total_amount: '1.00' })), { nonce }) },
      { code: 'idempotency_key_reused', status: 422, spends: true, build: (nonce) => send(body(), { nonce, idempotencyKey: existingKey }) },
      { code: 'duplicate_reference', status: 409, spends: true, build: (nonce) => send(JSON.stringify(existing), { nonce }) },
    ];

    it.each(cases.map((entry) => [entry.code, entry.status, entry] as const))('%s (%i)', async (code, status, entry) => {
      const before: TableCounts = tableCounts(bank);
      const nonce = newNonce();
      expectProblem(await entry.build(nonce), status, code);
      expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + (entry.spends ? 1 : 0) });
      expect(nonceStored(bank, demo.client_id, nonce)).toBe(entry.spends);
    });

    it('nonce_replayed stores nothing either', async () => {
      const nonce = newNonce();
      expect((await send(body(), { nonce })).status).toBe(200);
      const before = tableCounts(bank);
      expectProblem(await send(body(), { nonce }), 401, 'nonce_replayed');
      expect(tableCounts(bank)).toEqual(before);
    });

    it('reverse polling for an unknown order stores nothing but its nonce', async () => {
      const before = tableCounts(bank);
      const target = statusTarget('ORD-UNKNOWN');
      expectProblem(await getStatus(bank, target, signedStatusHeaders(bank, token, target)), 404, 'order_not_found');
      expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
    });
  });
});

describe('50 concurrent creates with one key (CREATE_LATENCY_MS 0)', () => {
  it('exactly one order; every answer has the same status and identical bytes', async () => {
    const bank = await startBank({ createLatencyMs: 0 });
    try {
      const token = await new DemoClient(bank).token();
      const order = sampleOrder();
      const body = JSON.stringify(order);
      const idempotencyKey = idemKey();
      const answers = await Promise.all(Array.from({ length: 50 }, () => postCreate(bank, signedCreateHeaders(bank, token, body, { idempotencyKey }), body)));
      expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
      expect(new Set(answers.map((answer) => answer.body.toString('base64'))).size).toBe(1);
      expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
      expect(orderCount(bank, demo.client_id, order.reference as string)).toBe(1);
      expect(idempotencyRecords(bank, demo.client_id, idempotencyKey)).toBe(1);
      expect(bank.book.history(demo.client_id, order.reference as string)).toHaveLength(1);
    } finally {
      bank.close();
    }
  });
});

describe('409 idempotency_in_progress (CREATE_LATENCY_MS 300, real time)', () => {
  let bank: Bank;
  let token: string;

  beforeAll(async () => {
    bank = await startBank({ createLatencyMs: 300 });
    token = await new DemoClient(bank).token();
  });
  afterAll(() => bank.close());

  function send(body: string, idempotencyKey: string): Promise<RawResponse> {
    return postCreate(bank, signedCreateHeaders(bank, token, body, { idempotencyKey }), body);
  }

  it('the same key while the first is processing is 409; once done, it replays the first answer', async () => {
    const order = sampleOrder();
    const body = JSON.stringify(order);
    const idempotencyKey = idemKey();
    const answers = await Promise.all([send(body, idempotencyKey), send(body, idempotencyKey)]);
    const first = answers.find((answer) => answer.status === 200);
    const second = answers.find((answer) => answer.status !== 200);
    if (!first || !second) throw new Error(`expected one 200 and one 409, got ${answers.map((answer) => answer.status).join(', ')}`);
    expectProblem(second, 409, 'idempotency_in_progress');
    expect(orderCount(bank, demo.client_id, order.reference as string)).toBe(1);
    const replay = await send(body, idempotencyKey);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.equals(first.body)).toBe(true);
  });

  it('a reservation left by a process that died (no one processing it) does not hold a retry: 200 at once', async () => {
    const order = sampleOrder();
    const idempotencyKey = idemKey();
    // What a Bank killed during CREATE_LATENCY_MS leaves: the reservation, locked for another 30 s.
    new IdempotencyRepository(bank.db).reserve(demo.client_id, idempotencyKey, 'fingerprint-of-the-lost-attempt', Date.now(), 30_300, 86_400_000, String(order.reference));
    const answer = await send(JSON.stringify(order), idempotencyKey);
    expect(answer.status).toBe(200);
    expect(orderCount(bank, demo.client_id, order.reference as string)).toBe(1);
  });

  it('a reservation still held here stays in progress past locked_until and expires_at (a test clock can pass both)', () => {
    const repository = new IdempotencyRepository(bank.db);
    const idempotencyKey = idemKey();
    const hold = repository.reserve(demo.client_id, idempotencyKey, 'fingerprint', 0, 30_300, 86_400_000, 'REF-HELD');
    // A clocked client's advance of a week during CREATE_LATENCY_MS: the create is still being processed.
    expect(repository.find(demo.client_id, idempotencyKey, 7 * 86_400_000)).toMatchObject({ state: 'in_progress' });
    repository.complete(demo.client_id, idempotencyKey, hold, 200, Buffer.from('{}'));
    expect(repository.find(demo.client_id, idempotencyKey, 1_000)).toMatchObject({ state: 'done', statusCode: 200 });
    expect(repository.find(demo.client_id, idempotencyKey, 7 * 86_400_000)).toBeUndefined();
  });

  it('only the create that reserved a key ends its reservation: a replaced row is left to its own create', () => {
    const repository = new IdempotencyRepository(bank.db);
    const idempotencyKey = idemKey();
    const first = repository.reserve(demo.client_id, idempotencyKey, 'first', 0, 30_300, 1_000, 'REF-FIRST');
    // The advance's pruning takes the first reservation's row, and a second create reserves the key again.
    repository.pruneClient(demo.client_id, 2_000);
    const second = repository.reserve(demo.client_id, idempotencyKey, 'second', 2_000, 30_300, 86_400_000, 'REF-SECOND');
    repository.complete(demo.client_id, idempotencyKey, first, 200, Buffer.from('{"of":"first"}'));
    repository.release(demo.client_id, idempotencyKey, first);
    expect(repository.find(demo.client_id, idempotencyKey, 2_000)).toMatchObject({ fingerprint: 'second', state: 'in_progress' });
    repository.complete(demo.client_id, idempotencyKey, second, 201, Buffer.from('{"of":"second"}'));
    expect(repository.find(demo.client_id, idempotencyKey, 2_000)).toMatchObject({ fingerprint: 'second', state: 'done', statusCode: 201 });
  });

  it('a different body under a key still in progress is 422', async () => {
    const idempotencyKey = idemKey();
    const pending = send(JSON.stringify(sampleOrder()), idempotencyKey);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expectProblem(await send(JSON.stringify(sampleOrder()), idempotencyKey), 422, 'idempotency_key_reused');
    expect((await pending).status).toBe(200);
  });

  it('two keys racing for one reference: one order, the loser gets duplicate_reference and leaves no idempotency record', async () => {
    const order = sampleOrder();
    const body = JSON.stringify(order);
    const keys = [idemKey(), idemKey()];
    const answers = await Promise.all(keys.map((key) => send(body, key)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const loser = answers.findIndex((answer) => answer.status === 409);
    expectProblem(answers[loser], 409, 'duplicate_reference');
    expect(orderCount(bank, demo.client_id, order.reference as string)).toBe(1);
    expect(idempotencyRecords(bank, demo.client_id, keys[loser])).toBe(0);
    expect(idempotencyRecords(bank, demo.client_id, keys[1 - loser])).toBe(1);
  });

  it('a rejected body leaves no in-progress record behind', async () => {
    const idempotencyKey = idemKey();
    expectProblem(await send(JSON.stringify(sampleOrder({ extra: true })), idempotencyKey), 400, 'body_invalid');
    expect(idempotencyRecords(bank, demo.client_id, idempotencyKey)).toBe(0);
    expect((await send(JSON.stringify(sampleOrder()), idempotencyKey)).status).toBe(200);
  });
});
