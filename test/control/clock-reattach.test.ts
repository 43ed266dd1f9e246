// Control plane section 3: a test clock never moves back by itself. An attach or a detach asked for while an advance
// of the same client is under way takes its turn after that advance, as a second advance would: the advance's end
// can never set the clock back over a re-attach, and a detach no longer cuts the advance short. A reset, which does
// not wait, still stops it. The advance is held at its first delivery step (a slow Connector) until the request
// that races it has reached the Bank: no timing, only events.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { DemoClient, demo, sampleOrder } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector, waitFor } from '../helpers/outbound';
import { expectProblem } from '../helpers/wire';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const CLIENT = demo.client_id;

let bank: Bank;
let fake: FakeConnector;

beforeEach(async () => {
  ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', reportPending: true }, { clock: new ManualClock(T0) }));
});
afterEach(async () => {
  jest.restoreAllMocks();
  await bank.outbound.stop(1000);
  bank.close();
  await fake.stop();
});

const admin = {}; // relaxed mode without ADMIN_TOKEN: /sandbox is open
const clockPath = `/sandbox/clients/${CLIENT}/clock`;

/**
 * A clock frozen at 2030-01-01T00:00Z, an order whose PENDING report is due at that instant, and an advance of 10 s
 * whose first delivery step does not end until `release()` (a Connector that answers late). Resolves once the
 * advance is inside that step.
 */
async function heldAdvance(): Promise<{ advanced: Promise<request.Response>; release(): void }> {
  expect((await request(bank.app).post(clockPath).set(admin).send({ frozen_at: '2030-01-01T00:00:00Z' })).status).toBe(201);
  const created = await new DemoClient(bank).create(sampleOrder({ metadata: { sandbox_scenario: 'PENDING:5:SUCCESS' } }));
  expect([200, 202]).toContain(created.status);
  const dispatcher = bank.outbound.dispatcher;
  const deliverFor = dispatcher.deliverFor.bind(dispatcher);
  let held = false;
  let release = () => {};
  let inside = () => {};
  const reached = new Promise<void>((resolve) => (inside = resolve));
  jest.spyOn(dispatcher, 'deliverFor').mockImplementation(async (clientId) => {
    if (held) return deliverFor(clientId);
    held = true;
    inside();
    await new Promise<void>((resolve) => (release = resolve));
    return deliverFor(clientId);
  });
  // Sent now (`.then` sends a supertest request); answered when the advance ends.
  const advanced = new Promise<request.Response>((resolve, reject) =>
    request(bank.app).post(`${clockPath}/advance`).set(admin).send({ seconds: 10 }).then(resolve, reject),
  );
  await reached;
  return { advanced, release: () => release() };
}

/** Sends `req` and resolves once the Bank's TestClocks has been asked (the HTTP request reached it), with its answer to come. */
async function sentAndReceived(method: 'attach' | 'detach', req: request.Test): Promise<{ answer: Promise<request.Response> }> {
  const asked = jest.spyOn(bank.testClocks, method);
  const answer = new Promise<request.Response>((resolve, reject) => req.then(resolve, reject));
  await waitFor(() => asked.mock.calls.length === 1, 20_000, `the ${method} request to reach the Bank`);
  return { answer };
}

describe('attach and detach during an advance', () => {
  it('a re-attach during an advance waits for it: the advance ends at its target, then the clock is where the attach put it, never back', async () => {
    const { advanced, release } = await heldAdvance();
    const { answer: attached } = await sentAndReceived('attach', request(bank.app).post(clockPath).set(admin).send({ frozen_at: '2030-01-01T01:00:00Z' }));
    release();

    const advance = await advanced;
    expect(advance.status).toBe(200);
    expect(advance.body).toMatchObject({ from: '2030-01-01T00:00:00.000Z', to: '2030-01-01T00:00:10.000Z' });
    const attach = await attached;
    expect(attach.status).toBe(201);
    expect(attach.body).toMatchObject({ client_id: CLIENT, now: '2030-01-01T01:00:00.000Z' });
    expect((await request(bank.app).get(clockPath).set(admin)).body.now).toBe('2030-01-01T01:00:00.000Z');
    expect(bank.db.prepare('SELECT now_ms, advancing_to FROM test_clocks WHERE client_id = ?').get(CLIENT)).toEqual({
      now_ms: Date.parse('2030-01-01T01:00:00Z'),
      advancing_to: null,
    });
  });

  it('a re-attach to a time the advance passes is judged where the advance ended: 400 clock_backwards, the clock at the target', async () => {
    const { advanced, release } = await heldAdvance();
    const { answer: attached } = await sentAndReceived('attach', request(bank.app).post(clockPath).set(admin).send({ frozen_at: '2030-01-01T00:00:05Z' }));
    release();

    expect((await advanced).status).toBe(200);
    expectProblem(await attached, 400, 'clock_backwards');
    expect((await request(bank.app).get(clockPath).set(admin)).body.now).toBe('2030-01-01T00:00:10.000Z');
  });

  it('a detach during an advance waits for it: the advance completes (200), then the clock is detached where it ended', async () => {
    const { advanced, release } = await heldAdvance();
    const { answer: detached } = await sentAndReceived('detach', request(bank.app).delete(clockPath).set(admin));
    release();

    const advance = await advanced;
    expect(advance.status).toBe(200);
    expect(advance.body).toMatchObject({ to: '2030-01-01T00:00:10.000Z' });
    const detach = await detached;
    expect(detach.status).toBe(200);
    expect(detach.body).toMatchObject({ client_id: CLIENT, now: '2030-01-01T00:00:10.000Z', detached: true });
    expectProblem(await request(bank.app).get(clockPath).set(admin), 404, 'not_found');
    expect(bank.db.prepare('SELECT COUNT(*) FROM test_clocks WHERE client_id = ?').pluck().get(CLIENT)).toBe(0);
  });

  it('a reset during an advance does not wait: the advance stops with 400 clock_backwards and attaches nothing again', async () => {
    const { advanced, release } = await heldAdvance();
    expect((await request(bank.app).post('/sandbox/reset').set(admin).send({ client_id: CLIENT })).status).toBe(200);
    release();

    const advance = await advanced;
    expectProblem(advance, 400, 'clock_backwards');
    expect(advance.body.detail).toBe(`the test clock of ${CLIENT} was removed by a reset during the advance`);
    expectProblem(await request(bank.app).get(clockPath).set(admin), 404, 'not_found');
    expect(bank.db.prepare('SELECT COUNT(*) FROM test_clocks WHERE client_id = ?').pluck().get(CLIENT)).toBe(0);
  });
});
