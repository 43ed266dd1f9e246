// Reverse polling against an in-process Bank that cannot reach the Connector (its connector URL points
// nowhere), so no callback ever arrives: the Connector's adaptive polling must find the final status itself,
// stop on 404 with an alert, and back off on 429. The Bank answers reverse polling over plain HTTP only in
// relaxed mode. One ManualClock drives both sides, so every interval is exact.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { BankConfig } from '../../src/bank/config';
import { ManualClock } from '../../src/wire/clock';
import { ReferenceConnector } from '../../src/connector/connector';
import { sampleOrder, startBank } from '../helpers/bank';
import { bankSignedHeaders, closePair, lateBoundServer, startConnector, unreachableUrl } from './helpers';

interface Setup {
  bank: Bank;
  connector: ReferenceConnector;
  close(): Promise<void>;
}

async function setup(clock: ManualClock, bankOverrides: Partial<BankConfig>, env: Record<string, string>): Promise<Setup> {
  const bankServer = await lateBoundServer();
  const connector = await startConnector(bankServer.url, env, clock);
  const bank = await startBank({ sandboxMode: 'relaxed', connectorUrl: await unreachableUrl(), pollCron: 'off', retryScheduleS: [3600], ...bankOverrides }, { clock });
  bankServer.bind(bank.app);
  return { bank, connector, close: closePair(bank, connector, bankServer.server, 100) };
}

const order = (scenario: string) => sampleOrder({ metadata: { initiator: 'reverse-polling-test', sandbox_scenario: scenario } }) as { reference: string; initiated_at: string };

describe('reverse polling with adaptive backoff', () => {
  const clock = new ManualClock(Date.now());
  let env: Setup;

  beforeAll(async () => {
    env = await setup(clock, {}, { POLL_INITIAL_MS: '1000', POLL_MAX_MS: '4000', POLL_FACTOR: '2' });
  });
  afterAll(() => env.close());

  it('polls a 202 order after the short first interval, grows the interval to the cap, applies the final and stops', async () => {
    const { connector } = env;
    const async = order('ASYNC:10:SUCCESS');
    expect(await connector.bankClient.createOrder(async)).toMatchObject({ httpStatus: 202, status: 'AWAITING' });
    const start = clock.now();

    expect(await connector.reversePoller.tick()).toBe(0); // not due before POLL_INITIAL_MS
    const seen: { at: number; interval: number; status: string | undefined }[] = [];
    for (let step = 0; step < 20 && connector.store.pollOf(async.reference)?.stopped_reason === null; step += 1) {
      clock.set(connector.store.pollOf(async.reference)!.next_at);
      expect(await connector.reversePoller.tick()).toBe(1);
      seen.push({ at: clock.now() - start, interval: connector.store.pollOf(async.reference)!.interval_ms, status: connector.store.order(async.reference)?.status });
    }
    // Polls at +1 s, +3 s, +7 s (PENDING), +11 s (past the 10 s scenario: SUCCESS). Intervals 1, 2, 4, 4 (cap).
    expect(seen.map((poll) => poll.at)).toEqual([1000, 3000, 7000, 11000]);
    expect(seen.map((poll) => poll.status)).toEqual(['PENDING', 'PENDING', 'PENDING', 'SUCCESS']);
    expect(seen.slice(0, 3).map((poll) => poll.interval)).toEqual([2000, 4000, 4000]);
    expect(connector.store.pollOf(async.reference)).toMatchObject({ attempts: 3, stopped_reason: expect.stringMatching(/^final SUCCESS/) });
    expect(connector.store.snapshot().status_log.filter((entry) => entry.reference === async.reference).map((entry) => [entry.status, entry.via])).toEqual([
      ['AWAITING', 'create'],
      ['PENDING', 'reverse-poll'],
      ['SUCCESS', 'reverse-poll'],
    ]);
    clock.advance(60_000);
    expect(await connector.reversePoller.tick()).toBe(0);
  });

  it('polls a 200 PENDING order and applies FAILED with its reason', async () => {
    const { connector } = env;
    const pending = order('PENDING:2:FAILED:BUS_REFUSED_BY_DEBTOR');
    expect(await connector.bankClient.createOrder(pending)).toMatchObject({ httpStatus: 200, status: 'PENDING' });
    clock.advance(1000);
    await connector.reversePoller.tick();
    expect(connector.store.order(pending.reference)?.status).toBe('PENDING');
    clock.advance(2000);
    await connector.reversePoller.tick();
    expect(connector.store.order(pending.reference)).toMatchObject({ status: 'FAILED', reason_code: 'BUS_REFUSED_BY_DEBTOR', reason_message: expect.any(String) });
    expect(connector.store.pollOf(pending.reference)?.stopped_reason).toMatch(/^final FAILED/);
  });

  it('stops on 404 and raises an alert', async () => {
    const { connector } = env;
    const ghost = { reference: 'GHOST-404', initiated_at: '2026-11-20T00:00:00Z' };
    connector.store.insertOrder(ghost, 'push', clock.now());
    connector.store.applyStatus(ghost.reference, { status: 'AWAITING' }, 'create', clock.now());
    clock.advance(1000);
    expect(await connector.reversePoller.tick()).toBe(1);
    expect(connector.store.pollOf(ghost.reference)).toMatchObject({ attempts: 0, stopped_reason: expect.stringMatching(/404/) });
    expect(connector.store.snapshot().alerts).toEqual([expect.objectContaining({ reference: 'GHOST-404', message: expect.stringMatching(/404/) })]);
    clock.advance(60_000);
    expect(await connector.reversePoller.tick()).toBe(0);
    expect(connector.store.order(ghost.reference)?.status).toBe('AWAITING');
  });
});

describe('reverse polling backs off on 429', () => {
  const clock = new ManualClock(Date.now());
  let env: Setup;

  beforeAll(async () => {
    // One reverse poll per second per client at most: the second poll in the same instant gets 429, Retry-After 1.
    env = await setup(clock, { statusRatePerS: 1, statusRateBurst: 1 }, { POLL_INITIAL_MS: '100', POLL_MAX_MS: '400', POLL_FACTOR: '2' });
  });
  afterAll(() => env.close());

  it('honours Retry-After beyond the grown interval, grows the interval, and carries on after the wait', async () => {
    const { connector } = env;
    const first = order('ASYNC:0:SUCCESS'); // final on its first poll, so it stops competing for the quota
    const second = order('ASYNC:60:SUCCESS');
    await connector.bankClient.createOrder(first);
    clock.advance(1); // first is due first
    await connector.bankClient.createOrder(second);
    clock.advance(100);
    const polledAt = clock.now();
    expect(await connector.reversePoller.tick()).toBe(2);
    expect(connector.store.order(first.reference)?.status).toBe('SUCCESS');
    // 429: interval grown to 200 ms, but the next poll waits the 1 s Retry-After.
    expect(connector.store.pollOf(second.reference)).toMatchObject({ next_at: polledAt + 1000, interval_ms: 200, attempts: 1 });
    expect(connector.store.order(second.reference)?.status).toBe('AWAITING');
    clock.advance(1000);
    await connector.reversePoller.tick();
    expect(connector.store.order(second.reference)?.status).toBe('PENDING');
    expect(connector.store.snapshot().alerts).toEqual([]);
  });
});

// The same polling rules whichever way the order entered polling: a 202 (AWAITING) or a 200 PENDING create.
describe.each([
  { created: '202', scenario: 'ASYNC:60:SUCCESS', httpStatus: 202, status: 'AWAITING' },
  { created: '200 PENDING', scenario: 'PENDING:60:SUCCESS', httpStatus: 200, status: 'PENDING' },
])('reverse polling of an order created with $created', ({ scenario, httpStatus, status }) => {
  const clock = new ManualClock(Date.now());
  let env: Setup;

  beforeAll(async () => {
    env = await setup(clock, {}, { POLL_INITIAL_MS: '200', POLL_MAX_MS: '1600', POLL_FACTOR: '2' });
  });
  afterAll(() => env.close());

  async function create(withScenario: string): Promise<string> {
    const created = order(withScenario);
    expect(await env.connector.bankClient.createOrder(created)).toMatchObject({ httpStatus, status });
    return created.reference;
  }

  const pollOf = (reference: string) => env.connector.store.pollOf(reference)!;

  /** Moves the clock to the order's next poll and runs one pass; returns when it polled. */
  async function pollWhenDue(reference: string): Promise<number> {
    clock.set(Math.max(clock.now(), pollOf(reference).next_at));
    await env.connector.reversePoller.tick();
    return clock.now();
  }

  it('backs off: each wait at least the one before, growing to the cap', async () => {
    const reference = await create(scenario);
    const start = clock.now();
    const polledAt: number[] = [];
    for (let poll = 0; poll < 5; poll += 1) polledAt.push(await pollWhenDue(reference));
    const waits = polledAt.map((at, index) => at - (index === 0 ? start : polledAt[index - 1]));
    expect(waits).toEqual([200, 400, 800, 1600, 1600]);
    expect(pollOf(reference)).toMatchObject({ attempts: 5, stopped_reason: null });
    expect(env.connector.store.order(reference)?.status).toBe('PENDING');
  });

  it('honours Retry-After: 2 of a 429 (scenario POLL_429), beyond its own shorter interval', async () => {
    const reference = await create(`POLL_429:1:${scenario}`);
    const polledAt = await pollWhenDue(reference);
    expect(pollOf(reference)).toMatchObject({ attempts: 1, interval_ms: 400, next_at: polledAt + 2000 });
    clock.set(polledAt + 1999);
    await env.connector.reversePoller.tick();
    expect(pollOf(reference).attempts).toBe(1);
    await pollWhenDue(reference);
    expect(pollOf(reference).attempts).toBe(2);
    expect(env.connector.store.order(reference)?.status).toBe('PENDING');
  });

  it('stops when a callback made the order final: no poll afterwards', async () => {
    const reference = await create(scenario);
    await pollWhenDue(reference);
    const bankReference = env.connector.store.order(reference)?.bank_reference ?? 'BNK-FROM-CALLBACK';
    const body = JSON.stringify({ reference, bank_reference: bankReference, status: 'SUCCESS', processed_at: new Date(clock.now()).toISOString() });
    const headers = bankSignedHeaders(env.bank.signer, 'callback', 'POST', '/callbacks/orders/status', body, clock);
    const response = await request(env.connector.app).post('/callbacks/orders/status').set({ ...headers, 'content-type': 'application/json' }).send(body);
    expect(response.status).toBe(200);
    expect(pollOf(reference)).toMatchObject({ attempts: 1, stopped_reason: expect.stringMatching(/^final SUCCESS by callback/) });
    clock.advance(120_000);
    await env.connector.reversePoller.tick();
    expect(pollOf(reference).attempts).toBe(1);
    expect(env.connector.store.order(reference)?.status).toBe('SUCCESS');
  });

  it('stops after a 404 and raises an alert: no poll afterwards', async () => {
    // A 202 order the Bank answers 404 (scenario POLL_404); for 200 PENDING, an order the Bank does not know.
    let reference: string;
    if (httpStatus === 202) reference = await create('POLL_404');
    else {
      reference = `GHOST-${Date.now()}`;
      env.connector.store.insertOrder({ reference, initiated_at: '2026-11-20T00:00:00Z' }, 'push', clock.now());
      env.connector.store.applyStatus(reference, { status: 'PENDING', bankReference: 'BNK-GHOST' }, 'create', clock.now());
    }
    await pollWhenDue(reference);
    expect(pollOf(reference)).toMatchObject({ attempts: 0, stopped_reason: expect.stringMatching(/404/) });
    expect(env.connector.store.snapshot().alerts).toContainEqual(expect.objectContaining({ reference, message: expect.stringMatching(/404/) }));
    clock.advance(120_000);
    await env.connector.reversePoller.tick();
    expect(pollOf(reference)).toMatchObject({ attempts: 0, stopped_reason: expect.stringMatching(/404/) });
  });
});
