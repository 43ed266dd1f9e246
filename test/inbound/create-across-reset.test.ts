// Profile section 6 with control-plane section 2: a create still in progress (CREATE_LATENCY_MS) when
// POST /sandbox/reset deletes its client's records. The reset deletes the create's idempotency reservation; the create
// then stores nothing and answers 500 internal, so its retry with the same key and bytes is a new create, answered 200
// and replayed from then on (before the fix: the create answered 200 and kept its order without a record, and every
// retry was 409 duplicate_reference). No timing assertion: each step waits for the row that shows the previous one.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { IdempotencyRepository } from '../../src/bank/store/idempotency';
import { DemoClient, demo, newNonce, sampleOrder, startBank } from '../helpers/bank';
import { waitFor } from '../helpers/outbound';
import { expectProblem, orderCount, postCreate, RawResponse, signedCreateHeaders } from '../helpers/wire';

const CLIENT = demo.client_id;
const ADMIN = 'admin-secret-token';

let bank: Bank;
let token: string;

beforeAll(async () => {
  // Long enough for a reset request to land inside the wait; a precondition below says so if it did not.
  bank = await startBank({ createLatencyMs: 1500, adminToken: ADMIN });
  token = await new DemoClient(bank).token();
});
afterAll(() => bank.close());

function send(body: string, idempotencyKey: string): Promise<RawResponse> {
  return postCreate(bank, signedCreateHeaders(bank, token, body, { idempotencyKey }), body);
}

function reservation(key: string): string | undefined {
  return bank.db.prepare('SELECT state FROM idempotency_records WHERE client_id = ? AND idem_key = ?').pluck().get(CLIENT, key) as string | undefined;
}

/** Sends a create and resolves once its reservation is stored (it is in its CREATE_LATENCY_MS wait), with its answer to come. */
async function inProgress(body: string, key: string): Promise<{ answer: Promise<RawResponse>; answered(): boolean }> {
  let done = false;
  const answer = send(body, key).finally(() => (done = true));
  await waitFor(() => reservation(key) === 'in_progress' || done, 20_000, 'the create to reserve its key');
  expect({ answeredBeforeTheStep: done }).toEqual({ answeredBeforeTheStep: false });
  return { answer, answered: () => done };
}

async function reset(): Promise<void> {
  const answer = await request(bank.app).post('/sandbox/reset').set('authorization', `Bearer ${ADMIN}`).send({ client_id: CLIENT });
  expect(answer.status).toBe(200);
}

describe('a create in progress when a reset arrives', () => {
  it('stores nothing and answers 500; the retry with the same key and bytes is a new create, then replayed', async () => {
    const order = sampleOrder();
    const body = JSON.stringify(order);
    const key = `idem-${newNonce()}`;
    const first = await inProgress(body, key);
    await reset();
    expect({ createAnsweredBeforeTheReset: first.answered() }).toEqual({ createAnsweredBeforeTheReset: false });

    const refused = expectProblem(await first.answer, 500, 'internal');
    expect(refused.detail).toContain('was removed while this create was being processed');
    expect(orderCount(bank, CLIENT, order.reference as string)).toBe(0);
    expect(reservation(key)).toBeUndefined();

    const retried = await send(body, key);
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(orderCount(bank, CLIENT, order.reference as string)).toBe(1);
    const replayed = await send(body, key);
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.equals(retried.body)).toBe(true);
  });

  it('a create that reserves the same key after the reset, while the first still waits, is the one that counts', async () => {
    const order = sampleOrder();
    const body = JSON.stringify(order);
    const key = `idem-${newNonce()}`;
    const first = await inProgress(body, key);
    await reset();
    const second = await inProgress(body, key);
    expect({ firstAnsweredBeforeTheSecondReserved: first.answered() }).toEqual({ firstAnsweredBeforeTheSecondReserved: false });

    expectProblem(await first.answer, 500, 'internal');
    const counted = await second.answer;
    expect(counted.status).toBe(200);
    expect(orderCount(bank, CLIENT, order.reference as string)).toBe(1);
    const replayed = await send(body, key);
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.equals(counted.body)).toBe(true);
  });

  it('a create the reset does not meet is unaffected: answered 200, then replayed', async () => {
    const order = sampleOrder();
    const body = JSON.stringify(order);
    const key = `idem-${newNonce()}`;
    const answer = await send(body, key);
    expect(answer.status).toBe(200);
    const replayed = await send(body, key);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.equals(answer.body)).toBe(true);
  });
});

describe('IdempotencyRepository.holds', () => {
  it('is true for the create that reserved the key while its row is there; false once a reset deleted it or another create reserved it again', () => {
    const repository = new IdempotencyRepository(bank.db);
    const key = `idem-${newNonce()}`;
    const first = repository.reserve(CLIENT, key, 'fingerprint', 0, 30_000, 86_400_000, 'REF-HOLDS');
    expect(repository.holds(CLIENT, key, first)).toBe(true);
    bank.db.prepare('DELETE FROM idempotency_records WHERE client_id = ? AND idem_key = ?').run(CLIENT, key); // what a reset does
    expect(repository.holds(CLIENT, key, first)).toBe(false);
    expect(repository.complete(CLIENT, key, first, 200, Buffer.from('{}'))).toBe(false);
    expect(reservation(key)).toBeUndefined();
    const second = repository.reserve(CLIENT, key, 'fingerprint', 0, 30_000, 86_400_000, 'REF-HOLDS');
    expect(repository.holds(CLIENT, key, first)).toBe(false);
    expect(repository.holds(CLIENT, key, second)).toBe(true);
    expect(repository.complete(CLIENT, key, second, 200, Buffer.from('{}'))).toBe(true);
    expect(repository.holds(CLIENT, key, second)).toBe(false);
  });
});
