// Profile v1.1 section 8: the scenarios that test a Connector's retries and polling, end to end over HTTP.
// FAIL_ONCE:<s> (first create 500 internal, nothing stored, the retry follows <s>), POLL_429:<n>:<s> (first n polls
// 429 with Retry-After: 2), POLL_404 (202, no callback, every poll 404 exactly like an unknown order), and their
// malformed forms (400 body_invalid at /metadata/sandbox_scenario).
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { demo, DemoClient, newNonce, sampleOrder, startBank } from '../helpers/bank';
import {
  expectProblem,
  getStatus,
  orderCount,
  postCreate,
  PROBLEM_MEMBERS,
  RawResponse,
  signedCreateHeaders,
  signedStatusHeaders,
  statusTarget,
  tableCounts,
} from '../helpers/wire';

const clock = new ManualClock();
let bank: Bank;
let token: string;

beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed' }, { clock });
  token = await new DemoClient(bank).token();
});
afterAll(() => bank.close());

function withScenario(scenario: string): { reference: string; body: string } {
  const order = sampleOrder({ metadata: { initiator: 'test-suite', sandbox_scenario: scenario } });
  return { reference: order.reference as string, body: JSON.stringify(order) };
}

/** A create with fresh timestamp, nonce and signature, as every retry must be (profile section 6). */
function create(body: string, idempotencyKey: string): Promise<RawResponse> {
  return postCreate(bank, signedCreateHeaders(bank, token, body, { idempotencyKey }), body);
}

function poll(reference: string): Promise<RawResponse> {
  const target = statusTarget(reference);
  return getStatus(bank, target, signedStatusHeaders(bank, token, target));
}

function idempotencyRecords(clientId: string, key: string): number {
  return bank.db.prepare('SELECT COUNT(*) FROM idempotency_records WHERE client_id = ? AND idem_key = ?').pluck().get(clientId, key) as number;
}

function statusEvents(reference: string): { status: string }[] {
  return bank.db.prepare('SELECT status FROM status_events WHERE client_id = ? AND reference = ? ORDER BY id').all(demo.client_id, reference) as { status: string }[];
}

function expectAsyncAnswer(response: RawResponse): void {
  expect(response.status).toBe(202);
  expect(response.text).toBe('');
}

describe('FAIL_ONCE:<scenario>', () => {
  it('FAIL_ONCE:SUCCESS: 500 internal naming the scenario and nothing stored; the retry (same key, same body) is 200 SUCCESS; a third send replays it', async () => {
    const { reference, body } = withScenario('FAIL_ONCE:SUCCESS');
    const idempotencyKey = `idem-${newNonce()}`;
    const before = tableCounts(bank);

    const headers = signedCreateHeaders(bank, token, body, { idempotencyKey });
    const failed = await postCreate(bank, headers, body);
    const problem = expectProblem(failed, 500, 'internal', String(headers['x-request-id']));
    expect(problem.detail).toContain('FAIL_ONCE');
    expect(Object.keys(problem).sort()).toEqual([...PROBLEM_MEMBERS].sort());
    expect(failed.headers['idempotent-replayed']).toBeUndefined();
    // No order, no history, no idempotency record: only the nonce of the verified request is spent.
    expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
    expect(orderCount(bank, demo.client_id, reference)).toBe(0);
    expect(idempotencyRecords(demo.client_id, idempotencyKey)).toBe(0);
    expect(statusEvents(reference)).toEqual([]);

    clock.advance(1_000);
    const retried = await create(body, idempotencyKey);
    expect(retried.status).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.json()).toMatchObject({ reference, status: 'SUCCESS' });
    expect(orderCount(bank, demo.client_id, reference)).toBe(1);
    expect(idempotencyRecords(demo.client_id, idempotencyKey)).toBe(1);

    clock.advance(1_000);
    const replayed = await create(body, idempotencyKey);
    expect(replayed.status).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.equals(retried.body)).toBe(true);
    expect(orderCount(bank, demo.client_id, reference)).toBe(1);

    const polled = await poll(reference);
    expect(polled.status).toBe(200);
    expect(polled.json()).toMatchObject({ reference, status: 'SUCCESS' });
  });

  it('FAIL_ONCE:ASYNC:0:SUCCESS: 500, then 202 (no body), then a 202 replay', async () => {
    const { reference, body } = withScenario('FAIL_ONCE:ASYNC:0:SUCCESS');
    const idempotencyKey = `idem-${newNonce()}`;
    const before = tableCounts(bank);
    expectProblem(await create(body, idempotencyKey), 500, 'internal');
    expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
    expect(idempotencyRecords(demo.client_id, idempotencyKey)).toBe(0);

    const retried = await create(body, idempotencyKey);
    expectAsyncAnswer(retried);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(orderCount(bank, demo.client_id, reference)).toBe(1);

    const replayed = await create(body, idempotencyKey);
    expectAsyncAnswer(replayed);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(orderCount(bank, demo.client_id, reference)).toBe(1);
  });

  it('fails once only: the scenario is not re-armed by the retry, nor by a later send', async () => {
    const { reference, body } = withScenario('FAIL_ONCE:FAILED:BUS_ACCOUNT_CLOSED');
    const idempotencyKey = `idem-${newNonce()}`;
    expectProblem(await create(body, idempotencyKey), 500, 'internal');
    const retried = await create(body, idempotencyKey);
    expect(retried.status).toBe(200);
    expect(retried.json()).toMatchObject({ reference, status: 'FAILED', reason_code: 'BUS_ACCOUNT_CLOSED' });
    expect((await create(body, idempotencyKey)).status).toBe(200);
  });

  it('a pulled order with FAIL_ONCE:SUCCESS is not a create attempt: it is stored and follows SUCCESS (reported by callback)', () => {
    const order = sampleOrder({ metadata: { sandbox_scenario: 'FAIL_ONCE:SUCCESS' }, initiated_at: '2026-11-22T09:30:00Z' });
    const outcome = bank.pulledOrders.storePage(demo.client_id, [order], '2026-11-22T00:00:00Z');
    expect(outcome).toMatchObject({ accepted: 1, rejected: 0, duplicates: 0 });
    expect(bank.book.find(demo.client_id, order.reference as string)?.status).toBe('SUCCESS');
    expect(statusEvents(order.reference as string)).toEqual([{ status: 'SUCCESS' }]);
  });

  it('a create for a reference that is already an order (pulled) is 409 duplicate_reference at once, not a FAIL_ONCE failure', async () => {
    const { reference, body } = withScenario('FAIL_ONCE:SUCCESS');
    bank.pulledOrders.storePage(demo.client_id, [JSON.parse(body)], '2026-11-22T00:00:00Z');
    expectProblem(await create(body, `idem-${newNonce()}`), 409, 'duplicate_reference');
    expect(bank.db.prepare('SELECT COUNT(*) FROM create_failures WHERE reference = ?').pluck().get(reference)).toBe(0);
  });
});

describe('POLL_429:<n>:<scenario>', () => {
  it('POLL_429:2:ASYNC:5:SUCCESS: 202; the first two polls are 429 rate_limited with Retry-After: 2; the third is 200 PENDING', async () => {
    const { reference, body } = withScenario('POLL_429:2:ASYNC:5:SUCCESS');
    expectAsyncAnswer(await create(body, `idem-${newNonce()}`));
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const throttled = await poll(reference);
      expectProblem(throttled, 429, 'rate_limited');
      expect([attempt, throttled.headers['retry-after']]).toEqual([attempt, '2']);
    }
    const third = await poll(reference);
    expect(third.status).toBe(200);
    expect(third.json()).toMatchObject({ reference, status: 'PENDING' });
    // and then the order follows its scenario: SUCCESS once the 5 s have elapsed, with no more throttling
    clock.advance(5_000);
    const settled = await poll(reference);
    expect(settled.status).toBe(200);
    expect(settled.json()).toMatchObject({ reference, status: 'SUCCESS' });
  });

  it('the throttled polls are per order: another order of the same client is answered at once', async () => {
    const throttled = withScenario('POLL_429:1:SUCCESS');
    const plain = withScenario('SUCCESS');
    expect((await create(throttled.body, `idem-${newNonce()}`)).status).toBe(200);
    expect((await create(plain.body, `idem-${newNonce()}`)).status).toBe(200);
    expect((await poll(plain.reference)).status).toBe(200);
    expectProblem(await poll(throttled.reference), 429, 'rate_limited');
    expect((await poll(throttled.reference)).status).toBe(200);
  });
});

describe('POLL_429:<n>:POLL_404', () => {
  it('the throttle wraps the scenario it names: n polls 429 rate_limited, then 404 order_not_found', async () => {
    const { reference, body } = withScenario('POLL_429:2:POLL_404');
    expectAsyncAnswer(await create(body, `idem-${newNonce()}`));
    for (let attempt = 1; attempt <= 2; attempt += 1) expect(expectProblem(await poll(reference), 429, 'rate_limited')).toBeDefined();
    expectProblem(await poll(reference), 404, 'order_not_found');
    expectProblem(await poll(reference), 404, 'order_not_found');
  });
});

describe('POLL_404', () => {
  it('202; every poll is 404 order_not_found, indistinguishable from an unknown order; no callback is queued', async () => {
    const { reference, body } = withScenario('POLL_404');
    expectAsyncAnswer(await create(body, `idem-${newNonce()}`));
    expect(orderCount(bank, demo.client_id, reference)).toBe(1);

    const unknownReference = `${reference}-unknown`;
    const unknown = await poll(unknownReference);
    const unknownProblem = expectProblem(unknown, 404, 'order_not_found');
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const hidden = await poll(reference);
      const problem = expectProblem(hidden, 404, 'order_not_found');
      expect(hidden.headers['content-type']).toBe(unknown.headers['content-type']);
      expect(Object.keys(problem)).toEqual(Object.keys(unknownProblem));
      // Only request_id, instance and the reference named in detail may differ.
      const normalise = (value: Record<string, unknown>, ref: string) => ({
        ...value,
        request_id: '<id>',
        instance: String(value.instance).replace(encodeURIComponent(ref), '<ref>'),
        detail: String(value.detail).replace(ref, '<ref>'),
      });
      expect(normalise(problem, reference)).toEqual(normalise(unknownProblem, unknownReference));
      clock.advance(60_000);
    }
    expect(statusEvents(reference)).toEqual([]);
    bank.book.settleAllDue();
    expect(statusEvents(reference)).toEqual([]);
  });

  it('the control: an ASYNC order of the same client does queue its report, so the check above is not vacuous', async () => {
    const { reference, body } = withScenario('ASYNC:5:SUCCESS');
    expectAsyncAnswer(await create(body, `idem-${newNonce()}`));
    expect(statusEvents(reference).length).toBeGreaterThan(0);
  });
});

describe('malformed v1.1 scenarios are 400 body_invalid at /metadata/sandbox_scenario', () => {
  it.each(['POLL_429:0:SUCCESS', 'FAIL_ONCE', 'POLL_429:101:SUCCESS', 'POLL_429:x:SUCCESS', 'POLL_429:2', 'FAIL_ONCE:MAYBE', 'POLL_404:SUCCESS'])('%s', async (scenario) => {
    const { reference, body } = withScenario(scenario);
    const before = tableCounts(bank);
    const problem = expectProblem(await create(body, `idem-${newNonce()}`), 400, 'body_invalid');
    expect((problem.errors ?? []).map((error) => error.path)).toContain('/metadata/sandbox_scenario');
    expect(orderCount(bank, demo.client_id, reference)).toBe(0);
    expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
  });
});
