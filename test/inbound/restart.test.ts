// A Bank created again on the same DATA_DIR keeps its orders, idempotency records, spent nonces and signing key.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { demo, DemoClient, newNonce, sampleOrder, startBank, tempDir } from '../helpers/bank';
import { expectProblem, getStatus, postCreate, RawResponse, signedCreateHeaders, signedStatusHeaders, statusTarget, tableCounts } from '../helpers/wire';

describe('restart on the same data directory', () => {
  const clock = new ManualClock();
  const dataDir = tempDir();
  const start = () => startBank({ dataDir, sandboxMode: 'relaxed' }, { clock });

  const pending = sampleOrder({ metadata: { sandbox_scenario: 'PENDING:60:SUCCESS' } });
  const pendingBody = JSON.stringify(pending);
  const pendingKey = `idem-${newNonce()}`;
  const asyncOrder = sampleOrder({ metadata: { sandbox_scenario: 'ASYNC:60:FAILED:BUS_ACCOUNT_BLOCKED' } });
  const asyncBody = JSON.stringify(asyncOrder);
  const asyncKey = `idem-${newNonce()}`;
  const spentNonce = newNonce();

  let first: Bank;
  let second: Bank;
  let firstToken: string;
  let firstJwks: unknown;
  let pendingAnswer: RawResponse;
  let asyncAnswer: RawResponse;
  let countsBefore: ReturnType<typeof tableCounts>;
  let migrationsBefore: unknown[];

  beforeAll(async () => {
    first = await start();
    firstToken = await new DemoClient(first).token();
    firstJwks = (await request(first.app).get('/.well-known/jwks.json')).body;
    pendingAnswer = await postCreate(first, signedCreateHeaders(first, firstToken, pendingBody, { idempotencyKey: pendingKey, nonce: spentNonce }), pendingBody);
    expect(pendingAnswer.status).toBe(200);
    asyncAnswer = await postCreate(first, signedCreateHeaders(first, firstToken, asyncBody, { idempotencyKey: asyncKey }), asyncBody);
    expect(asyncAnswer.status).toBe(202);
    countsBefore = tableCounts(first);
    migrationsBefore = first.db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all();
    first.close();
    clock.advance(1_000);
    second = await start();
  });
  afterAll(() => {
    first.close();
    second.close();
  });

  it('keeps the kid and the public JWKS, and does not create another key', async () => {
    expect(second.signer.kid).toBe(first.signer.kid);
    const jwks = await request(second.app).get('/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body).toEqual(firstJwks);
    expect(second.db.prepare('SELECT COUNT(*) FROM bank_keys').pluck().get()).toBe(1);
  });

  it('keeps every stored row and applies no migration twice', () => {
    expect(tableCounts(second)).toEqual(countsBefore);
    expect(second.db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all()).toEqual(migrationsBefore);
  });

  it('accepts tokens issued before the restart', async () => {
    const order = sampleOrder();
    expect((await new DemoClient(second).create(order, { token: firstToken })).status).toBe(200);
  });

  it('keeps orders: the same bank_reference and status, and a pending order still settles after its delay', async () => {
    const target = statusTarget(pending.reference as string);
    const before = await getStatus(second, target, signedStatusHeaders(second, firstToken, target));
    expect(before.status).toBe(200);
    expect(before.json()).toMatchObject({ reference: pending.reference, status: 'PENDING', bank_reference: pendingAnswer.json().bank_reference });
    clock.advance(60_000);
    const after = await getStatus(second, target, signedStatusHeaders(second, firstToken, target));
    expect(after.json()).toMatchObject({ status: 'SUCCESS', bank_reference: pendingAnswer.json().bank_reference });
    const asyncTarget = statusTarget(asyncOrder.reference as string);
    const asyncStatus = await getStatus(second, asyncTarget, signedStatusHeaders(second, firstToken, asyncTarget));
    expect(asyncStatus.json()).toMatchObject({ status: 'FAILED', reasonCode: 'BUS_ACCOUNT_BLOCKED' });
  });

  it('keeps idempotency records: replays are byte-identical (200 and 202), a different body is 422', async () => {
    const replay = await postCreate(second, signedCreateHeaders(second, firstToken, pendingBody, { idempotencyKey: pendingKey }), pendingBody);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.equals(pendingAnswer.body)).toBe(true);
    const asyncReplay = await postCreate(second, signedCreateHeaders(second, firstToken, asyncBody, { idempotencyKey: asyncKey }), asyncBody);
    expect(asyncReplay.status).toBe(202);
    expect(asyncReplay.headers['idempotent-replayed']).toBe('true');
    expect(asyncReplay.body.length).toBe(0);
    const other = JSON.stringify(sampleOrder());
    expectProblem(await postCreate(second, signedCreateHeaders(second, firstToken, other, { idempotencyKey: pendingKey }), other), 422, 'idempotency_key_reused');
  });

  it('keeps references: a new key for an order created before the restart is duplicate_reference', async () => {
    expectProblem(await postCreate(second, signedCreateHeaders(second, firstToken, pendingBody), pendingBody), 409, 'duplicate_reference');
  });

  it('keeps spent nonces within their window', async () => {
    const body = JSON.stringify(sampleOrder());
    expectProblem(await postCreate(second, signedCreateHeaders(second, firstToken, body, { nonce: spentNonce }), body), 401, 'nonce_replayed');
  });

  it('a third start still has the same kid and orders', async () => {
    second.close();
    const third = await start();
    try {
      expect(third.signer.kid).toBe(first.signer.kid);
      expect(third.book.find(demo.client_id, pending.reference as string)?.status).toBe('SUCCESS');
    } finally {
      third.close();
    }
  });
});

describe('restart with a wider TIMESTAMP_WINDOW_S', () => {
  it('keeps the nonces spent under the narrower window for the wider one: a replay still fresh is refused', async () => {
    const clock = new ManualClock();
    const dataDir = tempDir();
    const narrow = await startBank({ dataDir, sandboxMode: 'relaxed', timestampWindowS: 5 }, { clock });
    const token = await new DemoClient(narrow).token();
    const body = JSON.stringify(sampleOrder());
    const headers = signedCreateHeaders(narrow, token, body, { idempotencyKey: `idem-${newNonce()}` });
    expect((await postCreate(narrow, headers, body)).status).toBe(200);
    narrow.close();
    // 7 s later the request is stale under the old window (5 s), still fresh under the new one (300 s).
    clock.advance(7_000);
    const wide = await startBank({ dataDir, sandboxMode: 'relaxed', timestampWindowS: 300 }, { clock });
    try {
      expectProblem(await postCreate(wide, headers, body), 401, 'nonce_replayed');
    } finally {
      wide.close();
    }
  });
});
