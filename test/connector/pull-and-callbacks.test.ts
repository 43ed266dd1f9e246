// The reference Connector against an in-process Bank: the Bank pulls the fixture orders (the Connector checks
// the Bank's signature and Bearer token), the Bank's callbacks (unit and batch) are verified with the Bank's
// JWKS and applied, idempotency by key, all-or-nothing batches, and push create 200 / 202.
import request from 'supertest';
import { ManualClock } from '../../src/wire/clock';
import { generateSigningJwk, signingKeyFromJwk } from '../../src/wire/keys';
import { startBank, sampleOrder, uniqueReference } from '../helpers/bank';
import { drain } from '../helpers/outbound';
import { BankClient } from '../../src/connector/bank-client';
import { connectorLogger, loadCredentials } from '../../src/connector/connector';
import { bankSignedHeaders, CREDENTIALS, lateBoundServer, Pair, startPair } from './helpers';

const EXPECTED: Record<string, [string, string | null]> = {
  'CONN-0001': ['SUCCESS', null],
  'CONN-0002': ['FAILED', 'BUS_INSUFFICIENT_FUNDS'],
  'CONN-0003': ['SUCCESS', null],
  'CONN-0004': ['FAILED', 'BUS_REFUSED_BY_DEBTOR'],
  'CONN-0005': ['SUCCESS', null],
  'CONN-0006': ['FAILED', 'BUS_INSUFFICIENT_FUNDS'],
  'CONN-0007': ['FAILED', 'BUS_ACCOUNT_CLOSED'],
  'CONN-0008': ['SUCCESS', null],
  'CONN-0009': ['SUCCESS', null],
  'CONN-0010': ['FAILED', 'BUS_ACCOUNT_BLOCKED'],
  'CONN-0011': ['SUCCESS', null],
  'CONN-0012': ['SUCCESS', null],
};

function finalsLogged(pair: Pair, reference: string): string[] {
  return pair.connector.store.snapshot().status_log.filter((entry) => entry.reference === reference && (entry.status === 'SUCCESS' || entry.status === 'FAILED')).map((entry) => entry.status);
}

describe.each(['unit', 'batch'] as const)('the Bank pulls the fixture orders and calls back (%s mode)', (mode) => {
  const clock = new ManualClock(Date.now());
  let pair: Pair;

  beforeAll(async () => {
    pair = await startPair(clock, { callbackMode: mode });
  });
  afterAll(() => pair.close());

  it('serves the pull to the Bank: signature and Bearer token verified, cursor inclusive, nothing rejected', async () => {
    const [report] = await pair.bank.outbound.poller.runCycle();
    expect(report).toMatchObject({ outcome: 'ok', accepted: 12, rejected: 0 });
    expect(pair.bank.pulledOrders.cursor('demo-connector')).toBe('2026-11-20T08:50:00Z');
  });

  it('applies every status the Bank reports, each final exactly once, and answers every callback 200', async () => {
    await drain(pair.bank);
    clock.advance(6_000); // past the 5 s PENDING/ASYNC scenarios
    await drain(pair.bank);
    const { store } = pair.connector;
    for (const [reference, [status, reasonCode]] of Object.entries(EXPECTED)) {
      expect(store.order(reference)).toMatchObject({ status, reason_code: reasonCode });
      expect(store.order(reference)?.bank_reference).toBeTruthy();
      expect(finalsLogged(pair, reference)).toEqual([status]);
    }
    const notDelivered = pair.bank.db.prepare("SELECT COUNT(*) FROM callbacks WHERE state != 'delivered'").pluck().get();
    expect(notDelivered).toBe(0);
    const via = new Set(store.snapshot().status_log.filter((entry) => entry.reference !== 'CONN-0009').map((entry) => entry.via));
    expect(via).toEqual(new Set([mode === 'unit' ? 'callback' : 'batch']));
  });

  it('DUPLICATE_CALLBACK: the same key twice is answered 200 twice and applied once', () => {
    const key = `${pair.connector.store.order('CONN-0009')?.bank_reference}-SUCCESS`;
    const attempts = pair.bank.db
      .prepare('SELECT a.status_code FROM callback_attempts a JOIN callbacks c ON c.id = a.callback_id WHERE c.idempotency_key = ? ORDER BY a.id')
      .pluck()
      .all(key);
    expect(attempts).toEqual([200, 200]);
    expect(finalsLogged(pair, 'CONN-0009')).toEqual(['SUCCESS']);
  });

  it('a next pull finds no READY order: 204', async () => {
    const [report] = await pair.bank.outbound.poller.runCycle();
    expect(report.outcome).toBe('no_content');
  });
});

describe('the pull is refused without the right token or signature', () => {
  const clock = new ManualClock(Date.now());
  let pair: Pair;
  const target = '/payment-orders?status=READY&limit=5&offset=1970-01-01T00%3A00%3A00Z';

  beforeAll(async () => {
    pair = await startPair(clock);
  });
  afterAll(() => pair.close());

  const pull = (headers: Record<string, string>, path = target) => {
    const test = request(pair.connector.app).get(path);
    for (const [name, value] of Object.entries(headers)) test.set(name, value);
    return test;
  };

  it('answers a correctly signed pull with the page envelope, content exactly the fixture orders', async () => {
    const headers = bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock);
    const response = await pull({ ...headers, authorization: 'Bearer demo-pull-token' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ offset: '1970-01-01T00:00:00Z', limit: 5, size: 5, total_elements: 12 });
    expect(response.body.content.map((order: { reference: string }) => order.reference)).toEqual(['CONN-0001', 'CONN-0002', 'CONN-0003', 'CONN-0004', 'CONN-0005']);
    expect(Object.keys(response.body.content[0]).sort()).toEqual(['creditors', 'currency', 'debtor', 'initiated_at', 'metadata', 'reason', 'reference', 'total_amount', 'type']);
  });

  it('a pull for INITIATED (a status contract 4.2.1 states) gets the same orders as READY, the example\'s', async () => {
    const initiated = target.replace('status=READY', 'status=INITIATED');
    const headers = bankSignedHeaders(pair.bank.signer, 'pull', 'GET', initiated, '', clock);
    const response = await pull({ ...headers, authorization: 'Bearer demo-pull-token' }, initiated);
    expect(response.status).toBe(200);
    expect(response.body.content.map((order: { reference: string }) => order.reference)).toEqual(['CONN-0001', 'CONN-0002', 'CONN-0003', 'CONN-0004', 'CONN-0005']);
  });

  it('offset is inclusive and ties are ordered by reference; an empty page is 204 without a body', async () => {
    const shared = '/payment-orders?status=READY&limit=2&offset=2026-11-20T08:35:00Z';
    let response = await pull({ ...bankSignedHeaders(pair.bank.signer, 'pull', 'GET', shared, '', clock), authorization: 'Bearer demo-pull-token' }, shared);
    expect(response.body.content.map((order: { reference: string }) => order.reference)).toEqual(['CONN-0008', 'CONN-0009']);
    expect(response.body.total_elements).toBe(5);
    const late = '/payment-orders?status=READY&limit=2&offset=2027-01-01T00:00:00Z';
    response = await pull({ ...bankSignedHeaders(pair.bank.signer, 'pull', 'GET', late, '', clock), authorization: 'Bearer demo-pull-token' }, late);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  it('401 for a missing or wrong Bearer token', async () => {
    const headers = bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock);
    let response = await pull(headers);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('auth_missing');
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    response = await pull({ ...bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock), authorization: 'Bearer wrong-token' });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('auth_invalid');
  });

  it('401 for a signature by another key, over another target, or replayed; 401 for another client or an old timestamp', async () => {
    const stranger = signingKeyFromJwk({ ...(await generateSigningJwk()), kid: pair.bank.signer.kid });
    const cases: [Record<string, string>, string][] = [
      [bankSignedHeaders(stranger, 'pull', 'GET', target, '', clock), 'signature_invalid'],
      [bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target.replace('limit=5', 'limit=500'), '', clock), 'signature_invalid'],
      [bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock, { 'x-client-id': 'someone-else' }), 'client_unknown'],
      [bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock, { 'x-timestamp': '2020-01-01T00:00:00Z' }), 'timestamp_out_of_window'],
    ];
    for (const [headers, code] of cases) {
      const response = await pull({ ...headers, authorization: 'Bearer demo-pull-token' });
      expect([response.status, response.body.code]).toEqual([401, code]);
    }
    const headers = { ...bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock), authorization: 'Bearer demo-pull-token' };
    expect((await pull(headers)).status).toBe(200);
    const replay = await pull(headers);
    expect([replay.status, replay.body.code]).toEqual([401, 'nonce_replayed']);
  });

  it('400 when a query parameter is missing or malformed; 400 when a signed header is missing', async () => {
    for (const path of ['/payment-orders?status=READY&limit=5', '/payment-orders?status=READY&limit=0&offset=1970-01-01T00:00:00Z', '/payment-orders?limit=5&offset=1970-01-01T00:00:00Z']) {
      const response = await pull({ ...bankSignedHeaders(pair.bank.signer, 'pull', 'GET', path, '', clock), authorization: 'Bearer demo-pull-token' }, path);
      expect([response.status, response.body.code]).toEqual([400, 'query_invalid']);
    }
    const { 'x-request-id': _dropped, ...headers } = bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock);
    const response = await pull({ ...headers, authorization: 'Bearer demo-pull-token' });
    expect([response.status, response.body.code]).toEqual([400, 'header_missing']);
  });

  it('a Bank with the wrong token, or with another signing key, gets 401 on its pull', async () => {
    for (const overrides of [{ connectorToken: 'wrong-token' }, {}]) {
      // A second Bank: its own data dir, so its own signing key, unknown to the Connector's JWKS source.
      const other = await startBank({ sandboxMode: 'relaxed', connectorUrl: pair.connector.url, connectorToken: 'demo-pull-token', pollCron: 'off', ...overrides }, { clock });
      const [report] = await other.outbound.poller.runCycle();
      expect(report.outcome).toBe('error');
      expect(report.error).toMatch(/^HTTP 401/);
      expect(report.error).toMatch(overrides.connectorToken ? /auth_invalid/ : /signature_invalid/);
      await other.outbound.stop(100);
      other.close();
    }
  });
});

describe('callbacks: idempotency by key, final never changes, all-or-nothing batches', () => {
  const clock = new ManualClock(Date.now());
  let pair: Pair;
  const at = () => new Date(clock.now()).toISOString();

  beforeAll(async () => {
    pair = await startPair(clock);
  });
  afterAll(() => pair.close());

  /** Sends a callback with the Bank's own client: signed with the Bank's key, as the dispatcher does. */
  async function send(kind: 'unit' | 'batch', key: string, body: unknown) {
    const path = kind === 'unit' ? '/callbacks/orders/status' : '/callbacks/orders/status/batch';
    const response = await pair.bank.outbound.connectors.all()[0].postCallback(`${pair.connector.url}${path}`, key, Buffer.from(JSON.stringify(body)));
    return { status: response.status, body: JSON.parse(response.body || 'null') };
  }

  function order(): string {
    const reference = uniqueReference('CB');
    pair.connector.store.insertOrder({ reference, initiated_at: '2026-11-21T00:00:00Z' }, 'push', clock.now());
    return reference;
  }

  it('unit: the same key twice is applied once; the same key with another body is 422', async () => {
    const reference = order();
    const body = { reference, bank_reference: 'BNK-1', status: 'SUCCESS', processed_at: at() };
    expect(await send('unit', 'unit-key-1', body)).toMatchObject({ status: 200, body: { replayed: false, applied: 1 } });
    expect(await send('unit', 'unit-key-1', body)).toMatchObject({ status: 200, body: { replayed: true, applied: 0 } });
    expect(finalsLogged(pair, reference)).toEqual(['SUCCESS']);
    const changed = await send('unit', 'unit-key-1', { ...body, processed_at: '2026-01-01T00:00:00Z' });
    expect([changed.status, changed.body.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('unit: the same final under another key is a no-op, another final is 409, PENDING after a final is ignored', async () => {
    const reference = order();
    expect((await send('unit', 'k-a', { reference, bank_reference: 'BNK-2', status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED', reasonMessage: 'Account closed', processed_at: at() })).status).toBe(200);
    expect(await send('unit', 'k-b', { reference, bank_reference: 'BNK-2', status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED', reasonMessage: 'Account closed', processed_at: at() })).toMatchObject({ status: 200, body: { applied: 0, unchanged: 1 } });
    const conflict = await send('unit', 'k-c', { reference, bank_reference: 'BNK-2', status: 'SUCCESS', processed_at: at() });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'final_status_conflict']);
    expect(await send('unit', 'k-d', { reference, bank_reference: 'BNK-2', status: 'PENDING', processed_at: at() })).toMatchObject({ status: 200, body: { applied: 0 } });
    expect(pair.connector.store.order(reference)).toMatchObject({ status: 'FAILED', reason_code: 'BUS_ACCOUNT_CLOSED' });
    expect(finalsLogged(pair, reference)).toEqual(['FAILED']);
  });

  it('unit: an unknown order is 404, a FAILED without reason 400, not JSON 400, another Content-Type 415', async () => {
    const unknown = await send('unit', 'k-e', { reference: 'NOPE', bank_reference: 'B', status: 'SUCCESS', processed_at: at() });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'order_not_found']);
    const invalid = await send('unit', 'k-f', { reference: order(), bank_reference: 'B', status: 'FAILED', processed_at: at() });
    expect([invalid.status, invalid.body.code, invalid.body.errors.map((error: { path: string }) => error.path)]).toEqual([400, 'body_invalid', ['/reasonCode', '/reasonMessage']]);
    const raw = await pair.bank.outbound.connectors.all()[0].postCallback(`${pair.connector.url}/callbacks/orders/status`, 'k-g', Buffer.from('{not json'));
    expect(raw.status).toBe(400);
    const headers = bankSignedHeaders(pair.bank.signer, 'callback', 'POST', '/callbacks/orders/status', '{}', clock);
    const response = await request(pair.connector.app).post('/callbacks/orders/status').set({ ...headers, 'content-type': 'text/plain' }).send('{}');
    expect([response.status, response.body.code]).toEqual([415, 'unsupported_media_type']);
  });

  it('callbacks signed by another key are 401 and change nothing', async () => {
    const reference = order();
    const body = JSON.stringify({ reference, bank_reference: 'B', status: 'SUCCESS', processed_at: at() });
    const stranger = signingKeyFromJwk({ ...(await generateSigningJwk()), kid: pair.bank.signer.kid });
    const headers = bankSignedHeaders(stranger, 'callback', 'POST', '/callbacks/orders/status', body, clock);
    const response = await request(pair.connector.app).post('/callbacks/orders/status').set({ ...headers, 'content-type': 'application/json' }).send(body);
    expect([response.status, response.body.code]).toEqual([401, 'signature_invalid']);
    expect(pair.connector.store.order(reference)?.status).toBe('READY');
  });

  it('batch: one conflicting final rejects the whole batch and nothing is applied', async () => {
    const [first, second, settled] = [order(), order(), order()];
    pair.connector.store.applyStatus(settled, { status: 'SUCCESS', bankReference: 'BNK-S' }, 'callback', clock.now());
    const items = [
      { reference: first, bank_reference: 'BNK-F', status: 'SUCCESS', timestamp: at() },
      { reference: second, bank_reference: 'BNK-G', status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS', reasonMessage: 'Insufficient balance', timestamp: at() },
      { reference: settled, bank_reference: 'BNK-S', status: 'FAILED', reasonCode: 'BUS_NOT_SPECIFIED', reasonMessage: 'x', timestamp: at() },
    ];
    const rejected = await send('batch', 'batch-1', { batch_id: 'batch-1', sent_at: at(), orders: items });
    expect([rejected.status, rejected.body.code, rejected.body.errors[0].path]).toEqual([409, 'final_status_conflict', '/orders/2/status']);
    expect(pair.connector.store.order(first)?.status).toBe('READY');
    expect(pair.connector.store.order(second)?.status).toBe('READY');
    expect(finalsLogged(pair, first)).toEqual([]);
    expect(pair.connector.store.callbackKey('batch-1')).toBeUndefined();

    items[2] = { reference: settled, bank_reference: 'BNK-S', status: 'SUCCESS', timestamp: at() };
    const accepted = await send('batch', 'batch-2', { batch_id: 'batch-2', sent_at: at(), orders: items });
    expect(accepted).toMatchObject({ status: 200, body: { applied: 2, unchanged: 1 } });
    expect(pair.connector.store.order(first)?.status).toBe('SUCCESS');
    expect(pair.connector.store.order(second)).toMatchObject({ status: 'FAILED', reason_code: 'BUS_INSUFFICIENT_FUNDS' });
    expect(finalsLogged(pair, settled)).toEqual(['SUCCESS']);
  });

  it('batch: an unknown order or a batch_id other than the key rejects the batch', async () => {
    const reference = order();
    const unknown = await send('batch', 'batch-3', { batch_id: 'batch-3', sent_at: at(), orders: [{ reference, bank_reference: 'B', status: 'SUCCESS', timestamp: at() }, { reference: 'NOPE', bank_reference: 'B', status: 'SUCCESS', timestamp: at() }] });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'order_not_found']);
    expect(pair.connector.store.order(reference)?.status).toBe('READY');
    const mismatch = await send('batch', 'batch-4', { batch_id: 'batch-other', sent_at: at(), orders: [{ reference, bank_reference: 'B', status: 'SUCCESS', timestamp: at() }] });
    expect([mismatch.status, mismatch.body.code]).toEqual([400, 'body_invalid']);
  });
});

describe('push create', () => {
  const clock = new ManualClock(Date.now());
  let pair: Pair;

  beforeAll(async () => {
    pair = await startPair(clock);
  });
  afterAll(() => pair.close());

  const scenario = (name: string) => sampleOrder({ metadata: { initiator: 'reference-connector-test', sandbox_scenario: name } }) as { reference: string; initiated_at: string };

  it('200 SUCCESS and 200 FAILED are applied from the answer; no reverse polling', async () => {
    const ok = sampleOrder({}, '10.00') as { reference: string; initiated_at: string };
    const result = await pair.connector.bankClient.createOrder(ok);
    expect(result).toMatchObject({ httpStatus: 200, status: 'SUCCESS' });
    expect(pair.connector.store.order(ok.reference)).toMatchObject({ status: 'SUCCESS', source: 'push' });
    expect(pair.connector.store.pollOf(ok.reference)).toBeUndefined();

    const failed = sampleOrder({}, '10.01') as { reference: string; initiated_at: string };
    expect(await pair.connector.bankClient.createOrder(failed)).toMatchObject({ httpStatus: 200, status: 'FAILED' });
    expect(pair.connector.store.order(failed.reference)).toMatchObject({ reason_code: 'BUS_INSUFFICIENT_FUNDS', reason_message: expect.any(String) });
    expect(pair.connector.store.snapshot().status_log.filter((entry) => entry.reference === failed.reference)).toEqual([
      expect.objectContaining({ status: 'FAILED', via: 'create' }),
    ]);
  });

  it('202: AWAITING, reverse polling scheduled, then the callback brings the final and stops polling', async () => {
    const order = scenario('ASYNC:3:SUCCESS');
    const result = await pair.connector.bankClient.createOrder(order);
    expect(result).toMatchObject({ httpStatus: 202, status: 'AWAITING', body: null });
    expect(pair.connector.store.pollOf(order.reference)).toMatchObject({ next_at: clock.now() + 30_000, stopped_reason: null });
    clock.advance(3_000);
    await drain(pair.bank);
    expect(pair.connector.store.order(order.reference)?.status).toBe('SUCCESS');
    expect(pair.connector.store.pollOf(order.reference)?.stopped_reason).toMatch(/final/);
    expect(pair.connector.store.snapshot().status_log.filter((entry) => entry.reference === order.reference).map((entry) => [entry.status, entry.via])).toEqual([
      ['AWAITING', 'create'],
      ['PENDING', 'callback'],
      ['SUCCESS', 'callback'],
    ]);
  });

  it('200 PENDING: reverse polling scheduled, the final arrives by callback; a repeated create replays', async () => {
    const order = scenario('PENDING:3:FAILED:BUS_REFUSED_BY_DEBTOR');
    expect(await pair.connector.bankClient.createOrder(order)).toMatchObject({ httpStatus: 200, status: 'PENDING' });
    expect(pair.connector.store.pollOf(order.reference)?.stopped_reason).toBeNull();
    clock.advance(3_000);
    await drain(pair.bank);
    expect(pair.connector.store.order(order.reference)).toMatchObject({ status: 'FAILED', reason_code: 'BUS_REFUSED_BY_DEBTOR' });
    expect(pair.connector.store.pollOf(order.reference)?.stopped_reason).toMatch(/final/);
    // Same order again: same idempotency key, so the Bank replays its first answer (PENDING), which cannot undo the final.
    expect(await pair.connector.bankClient.createOrder(order)).toMatchObject({ httpStatus: 200, status: 'FAILED' });
    expect(finalsLogged(pair, order.reference)).toEqual(['FAILED']);
  });

  it('a rejected create (400) leaves the order READY and reports the problem', async () => {
    const bad = sampleOrder({ total_amount: '99.00' }, '10.00') as { reference: string; initiated_at: string };
    const result = await pair.connector.bankClient.createOrder(bad);
    expect(result).toMatchObject({ httpStatus: 400, status: 'READY', body: { code: 'body_invalid' } });
  });

  it('the Bank being down is an error result, not an exception', async () => {
    const nowhere = await lateBoundServer();
    nowhere.server.close();
    const config = { ...pair.connector.config, bankUrl: nowhere.url };
    const client = new BankClient(config, loadCredentials(CREDENTIALS), pair.connector.store, clock, connectorLogger('error', true));
    const result = await client.createOrder(sampleOrder() as { reference: string; initiated_at: string });
    expect(result.httpStatus).toBeNull();
    expect(result.error).toMatch(/token/);
    client.close();
  });
});
