import { Bank } from '../../src/bank/bank';
import { DemoClient, sampleOrder } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { expectProblem } from '../helpers/wire';
import { bankWithFakeConnector, connectorOrder, drain } from '../helpers/outbound';

const BASE = Date.parse('2026-11-20T00:00:00Z');
const SHARED_FROM = 150;
const SHARED_COUNT = 300;

/** 2,500 orders one second apart, except 300 that share one initiated_at across two page boundaries. */
function generateOrders(total = 2500) {
  const orders = [];
  for (let index = 0; index < total; index += 1) {
    const shared = index >= SHARED_FROM && index < SHARED_FROM + SHARED_COUNT;
    const seconds = shared ? SHARED_FROM : index;
    const initiatedAt = new Date(BASE + seconds * 1000).toISOString().replace('.000Z', 'Z');
    orders.push(connectorOrder(`PULL-${String(index).padStart(5, '0')}`, initiatedAt));
  }
  return orders;
}

describe.each(['unit', 'batch'] as const)('pull of 2,500 orders in %s mode', (mode) => {
  let bank: Bank;
  let fake: FakeConnector;

  beforeAll(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: mode, pollLimit: 100, batchSize: 100, dispatchConcurrency: 32 }));
    fake.orders = generateOrders();
  });
  afterAll(async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('settles and reports every order exactly once, and the cursor ends at the maximum', async () => {
    const [report] = await bank.outbound.poller.runCycle();
    expect(report.outcome).toBe('ok');
    expect(report.accepted).toBe(2500);
    expect(report.rejected).toBe(0);
    await drain(bank);

    expect(bank.book.count()).toBe(2500);
    expect(fake.finals.size).toBe(2500);
    expect(fake.conflicts).toEqual([]);
    expect(fake.callbacks.every((callback) => callback.signatureOk)).toBe(true);
    expect(fake.callbacks.every((callback) => callback.kind === mode)).toBe(true);
    for (const order of fake.orders) {
      expect(fake.statusesOf(String(order.reference)).filter((status) => status !== 'PENDING')).toEqual(['SUCCESS']);
    }
    const max = fake.orders[fake.orders.length - 1].initiated_at;
    expect(bank.pulledOrders.cursor('demo-connector')).toBe(max);
    expect(fake.pulls.every((pull) => pull.signatureOk)).toBe(true);
    // The shared instant forced a wider page once instead of stalling.
    expect(fake.pulls.some((pull) => pull.limit > 100)).toBe(true);
  });

  it('a second cycle neither re-settles nor re-reports anything', async () => {
    const before = fake.callbacks.length;
    const [report] = await bank.outbound.poller.runCycle();
    expect(report.accepted).toBe(0);
    await drain(bank);
    expect(fake.callbacks.length).toBe(before);
  });
});

describe('a pulled page is let go order by order as it is stored', () => {
  let bank: Bank;
  let fake: FakeConnector;

  beforeAll(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', pollLimit: 100 }));
  });
  afterAll(async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('storePage empties each entry it has stored, valid or refused, and counts them all', () => {
    const valid = connectorOrder('LETGO-1', '2026-11-20T00:00:01Z');
    const invalid = { ...connectorOrder('LETGO-2', '2026-11-20T00:00:02Z'), amount: 'ten' };
    const page: unknown[] = [valid, invalid, connectorOrder('LETGO-3', '2026-11-20T00:00:03Z')];
    const outcome = bank.pulledOrders.storePage('demo-connector', page, '2026-11-20T00:00:00Z');
    expect(outcome).toMatchObject({ accepted: 2, rejected: 1, duplicates: 0, maxInitiatedAt: '2026-11-20T00:00:03Z' });
    expect(page).toEqual([undefined, undefined, undefined]);
    expect(bank.book.find('demo-connector', 'LETGO-3')?.reference).toBe('LETGO-3');
  });

  it('the poller hands each page over whole: every order is stored and the journal still names them', async () => {
    fake.orders = Array.from({ length: 250 }, (_, index) => connectorOrder(`LETGO-P${index}`, new Date(Date.parse('2026-11-21T00:00:00Z') + index * 1000).toISOString().replace('.000Z', 'Z')));
    const pages: unknown[][] = [];
    const storePage = bank.pulledOrders.storePage.bind(bank.pulledOrders);
    const spy = jest.spyOn(bank.pulledOrders, 'storePage').mockImplementation((clientId, content, cursor) => {
      pages.push(content);
      return storePage(clientId, content, cursor);
    });
    try {
      const [report] = await bank.outbound.poller.runCycle();
      expect(report).toMatchObject({ outcome: 'ok', accepted: 250, pages: 3 });
    } finally {
      spy.mockRestore();
    }
    expect(pages.map((page) => page.length)).toEqual([100, 100, 52]); // the offset is inclusive: each next page repeats the last instant
    expect(pages.flat().every((entry) => entry === undefined)).toBe(true);
    await drain(bank);
    bank.journal.flush();
    const pulls = bank.journal.list({ reference: 'LETGO-P249', path: '/payment-orders' }, 10);
    expect(pulls).toHaveLength(1);
    expect(pulls[0].references).toHaveLength(pages[2].length);
  });
});

describe('a create for a reference the Bank pulled', () => {
  it('is 409 duplicate_reference with a detail that does not send the client looking for a first create', async () => {
    const { bank, fake } = await bankWithFakeConnector();
    try {
      fake.orders = [connectorOrder('PULLED-THEN-PUSHED', '2026-11-20T00:00:00Z')];
      await bank.outbound.poller.runCycle();
      const pushed = await new DemoClient(bank).create(sampleOrder({ reference: 'PULLED-THEN-PUSHED' }));
      const problem = expectProblem(pushed, 409, 'duplicate_reference');
      expect(problem.detail).toMatch(/the Bank pulled it from your Connector, so no create of it can be replayed/);
    } finally {
      await bank.outbound.stop(1000);
      bank.close();
      await fake.stop();
    }
  });
});
