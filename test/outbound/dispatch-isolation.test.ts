// Callbacks under way while other things happen: a slow Connector, a redelivery, a pause, a PATCH, a reset, a
// test clock attached. Each message is sent once per attempt, and one Connector's slowness is its own.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { DemoClient, demo, sampleOrder, startBank } from '../helpers/bank';
import { ClientSession, makeTestClient, TestClient, writeClientsFile } from '../helpers/clients';
import { waitFor } from '../helpers/outbound';

/** A Connector whose callback answers wait while its gate is closed. */
class GatedConnector {
  readonly received: { key: string; reference: string }[] = [];
  private held: (() => void)[] = [];
  private closed = false;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { reference?: string };
      this.received.push({ key: String(req.headers['x-idempotency-key']), reference: String(body.reference) });
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      if (this.closed) this.held.push(answer);
      else answer();
    });
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  close(): void {
    this.closed = true;
  }

  open(): void {
    this.closed = false;
    for (const answer of this.held.splice(0)) answer();
  }

  /** Answers the callback held longest, keeping the gate closed. */
  releaseOldest(): void {
    this.held.shift()?.();
  }

  heldCount(): number {
    return this.held.length;
  }

  of(reference: string): number {
    return this.received.filter((one) => one.reference === reference).length;
  }

  async stop(): Promise<void> {
    this.open();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const PENDING_FOR_AN_HOUR = { metadata: { sandbox_scenario: 'PENDING:3600:SUCCESS' } };

describe('callbacks under way', () => {
  let bank: Bank;
  let slow: GatedConnector;
  let quick: GatedConnector;
  let other: TestClient;
  let demoClient: DemoClient;
  let otherSession: ClientSession;

  beforeEach(async () => {
    slow = new GatedConnector();
    quick = new GatedConnector();
    await Promise.all([slow.start(), quick.start()]);
    other = makeTestClient('isolation-other');
    other.definition.connector_base_url = quick.url;
    other.definition.connector = { callback_mode: 'unit', poll: false };
    bank = await startBank({
      sandboxMode: 'relaxed',
      connectorUrl: slow.url,
      callbackMode: 'unit',
      pollCron: 'off',
      retryScheduleS: [0.02],
      batchWindowMs: 0,
      connectorTimeoutMs: 10_000,
      clientsFile: writeClientsFile([other]),
    });
    demoClient = new DemoClient(bank);
    otherSession = new ClientSession(bank, other);
  });

  afterEach(async () => {
    await Promise.all([slow.stop(), quick.stop()]);
    await bank?.outbound.stop(2_000);
    bank?.close();
  });

  async function createFor(session: DemoClient | ClientSession, prefix: string): Promise<string> {
    const order = sampleOrder({ reference: `${prefix}-${Math.random().toString(36).slice(2, 10)}`, ...PENDING_FOR_AN_HOUR });
    const answer = await session.create(order);
    expect(answer.status).toBe(200);
    return String(order.reference);
  }

  function attemptsOf(reference: string): number {
    return bank.db
      .prepare('SELECT COUNT(*) FROM callback_attempts a JOIN callbacks c ON c.id = a.callback_id WHERE CAST(c.body AS TEXT) LIKE ?')
      .pluck()
      .get(`%"${reference}"%`) as number;
  }

  /** The order's callback message; state `none` before one is made. */
  function messageOf(reference: string): { id: number; state: string } {
    const row = bank.db.prepare('SELECT id, state FROM callbacks WHERE CAST(body AS TEXT) LIKE ?').get(`%"${reference}"%`) as { id: number; state: string } | undefined;
    return row ?? { id: 0, state: 'none' };
  }

  it("a slow Connector holds up neither another client's callbacks nor its own next ones", async () => {
    slow.close();
    const first = await createFor(demoClient, 'SLOW');
    await waitFor(() => slow.heldCount() === 1, 10_000, 'the first callback held by the slow Connector');
    const elsewhere = await createFor(otherSession, 'QUICK');
    await waitFor(() => quick.of(elsewhere) === 1 && messageOf(elsewhere).state === 'delivered', 10_000, "the other client's callback delivered");
    // The same Connector's next order does not wait for the first's answer either (both are now under way).
    const second = await createFor(demoClient, 'SLOW');
    await waitFor(() => slow.heldCount() === 2, 10_000, 'the second callback sent while the first is held');
    slow.open();
    await waitFor(() => messageOf(first).state === 'delivered' && messageOf(second).state === 'delivered', 10_000, 'both delivered');
    expect([slow.of(first), slow.of(second)]).toEqual([1, 1]);
  });

  it('a send that ends frees its place for the messages already waiting, whichever pass took them', async () => {
    await bank.outbound.stop(1_000);
    bank.close();
    bank = await startBank({ sandboxMode: 'relaxed', connectorUrl: slow.url, callbackMode: 'unit', pollCron: 'off', batchWindowMs: 0, connectorTimeoutMs: 60_000, dispatchConcurrency: 2 });
    demoClient = new DemoClient(bank);
    slow.close();
    await createFor(demoClient, 'FIRST');
    await waitFor(() => slow.heldCount() === 1, 10_000, 'the first callback held');
    // Five messages due at once, taken by one pass that has one free send: one goes, the others wait in it.
    expect((await request(bank.app).post(`/sandbox/clients/${demo.client_id}/pause`)).status).toBe(200);
    for (let index = 0; index < 5; index += 1) await createFor(demoClient, 'WAITING');
    expect((await request(bank.app).post(`/sandbox/clients/${demo.client_id}/resume`)).status).toBe(200);
    await waitFor(() => slow.heldCount() === 2, 10_000, 'two callbacks held (DISPATCH_CONCURRENCY 2)');
    slow.releaseOldest();
    // Well before the held answer's 60 s time-out would end that pass.
    await waitFor(() => slow.heldCount() === 2, 10_000, 'the freed place taken by a waiting message');
    slow.open();
    await waitFor(() => slow.received.length === 6, 10_000, 'all six sent');
  });

  it('keeps nothing per client once its sends have ended (clients come and go)', async () => {
    const references = [await createFor(demoClient, 'DONE'), await createFor(otherSession, 'DONE')];
    await waitFor(() => references.every((reference) => messageOf(reference).state === 'delivered'), 10_000, 'both delivered');
    expect((await request(bank.app).delete(`/sandbox/clients/${other.client_id}`)).status).toBe(200);
    const perClient = bank.outbound.dispatcher as unknown as Record<'passes' | 'sending' | 'withWaitingWork', Map<string, unknown>>;
    await waitFor(() => perClient.passes.size === 0, 10_000, 'no pass under way');
    expect([perClient.sending.size, perClient.withWaitingWork.size]).toEqual([0, 0]);
  });

  it('a redelivery asked while the message is being sent makes one more attempt', async () => {
    slow.close();
    const reference = await createFor(demoClient, 'REDELIVER');
    await waitFor(() => slow.heldCount() === 1, 10_000, 'the callback held');
    const redelivered = await request(bank.app).post(`/sandbox/callbacks/${messageOf(reference).id}/redeliver`);
    expect(redelivered.status).toBe(200);
    slow.open();
    await waitFor(() => slow.of(reference) === 2 && messageOf(reference).state === 'delivered', 10_000, 'the second send');
    expect(attemptsOf(reference)).toBe(2);
  });

  it('a pause stops the sends not yet started; resume sends them', async () => {
    slow.close();
    const references: string[] = [];
    for (let index = 0; index < 30; index += 1) references.push(await createFor(demoClient, 'PAUSE'));
    await waitFor(() => slow.heldCount() === 16, 10_000, 'a full pass under way (DISPATCH_CONCURRENCY 16)');
    expect((await request(bank.app).post(`/sandbox/clients/${demo.client_id}/pause`)).status).toBe(200);
    slow.open();
    await waitFor(() => references.filter((reference) => messageOf(reference).state === 'delivered').length === 16, 10_000, 'the 16 under way delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    bank.outbound.wake();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slow.received).toHaveLength(16);
    expect((await request(bank.app).post(`/sandbox/clients/${demo.client_id}/resume`)).status).toBe(200);
    await waitFor(() => references.every((reference) => messageOf(reference).state === 'delivered'), 10_000, 'all delivered after the resume');
    expect(slow.received).toHaveLength(30);
  });

  it('a PATCH of the client lets its callbacks under way end, and records them delivered', async () => {
    slow.close();
    const reference = await createFor(demoClient, 'PATCHED');
    await waitFor(() => slow.heldCount() === 1, 10_000, 'the callback held');
    const patched = await request(bank.app).patch(`/sandbox/clients/${demo.client_id}`).send({ connector: { url: slow.url, callback_mode: 'batch' } });
    expect(patched.status).toBe(200);
    slow.open();
    await waitFor(() => messageOf(reference).state === 'delivered', 10_000, 'the callback delivered');
    expect(slow.of(reference)).toBe(1);
    expect(bank.db.prepare('SELECT COUNT(*) FROM callback_attempts WHERE error IS NOT NULL').pluck().get()).toBe(0);
  });

  it("a reset of one client while its callbacks are under way: no error, and no other client's callback sent twice", async () => {
    slow.close();
    quick.close();
    const mine = await createFor(demoClient, 'RESET');
    const theirs = await createFor(otherSession, 'KEPT');
    await waitFor(() => slow.heldCount() === 1 && quick.heldCount() === 1, 10_000, 'both callbacks held');
    expect((await request(bank.app).post('/sandbox/reset').send({ client_id: demo.client_id })).status).toBe(200);
    // The reset client's answer comes first: its attempt has no message left to be recorded against.
    slow.open();
    await new Promise((resolve) => setTimeout(resolve, 300));
    bank.outbound.wake();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quick.heldCount()).toBe(1);
    quick.open();
    await waitFor(() => messageOf(theirs).state === 'delivered', 10_000, "the other client's callback delivered");
    bank.outbound.wake();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(quick.of(theirs)).toBe(1);
    expect(attemptsOf(theirs)).toBe(1);
    expect(attemptsOf(mine)).toBe(0);
  });

  it('a test clock attached while a callback is under way does not send it a second time', async () => {
    slow.close();
    const reference = await createFor(demoClient, 'CLOCKED');
    await waitFor(() => slow.heldCount() === 1, 10_000, 'the callback held');
    expect((await request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock`).send({})).status).toBe(201);
    const advance = request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock/advance`).send({ seconds: 0 });
    const advanced = advance.then((answer) => answer);
    await new Promise((resolve) => setTimeout(resolve, 300));
    slow.open();
    expect((await advanced).status).toBe(200);
    expect(slow.of(reference)).toBe(1);
    expect(attemptsOf(reference)).toBe(1);
    expect(messageOf(reference).state).toBe('delivered');
  });
});
