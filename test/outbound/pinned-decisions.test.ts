// Outgoing-side decisions of docs/profile-decisions.md that no other test pins.
import { DemoClient, sampleOrder } from '../helpers/bank';
import { bankWithFakeConnector, connectorOrder, drain } from '../helpers/outbound';

describe('pinned decisions (outbound)', () => {
  it('DUPLICATE_CALLBACK goes as a unit callback, twice, even in batch mode', async () => {
    const { bank, fake } = await bankWithFakeConnector({ callbackMode: 'batch', batchSize: 10 });
    const client = new DemoClient(bank);
    const order = sampleOrder({ metadata: { sandbox_scenario: 'DUPLICATE_CALLBACK' } });
    expect((await client.create(order)).status).toBe(202);
    await drain(bank);
    const finals = fake.callbacks.filter((callback) => callback.parsed.reference === order.reference);
    expect(finals.map((callback) => callback.kind)).toEqual(['unit', 'unit']);
    expect(new Set(finals.map((callback) => callback.idempotencyKey)).size).toBe(1);
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('a 4xx answer to a callback is retried like any answer but 200', async () => {
    const { bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: [0.02] });
    let refusals = 2;
    fake.behaviour = (kind) => (kind === 'unit' && refusals-- > 0 ? 409 : null);
    fake.orders = [connectorOrder('FOUR-XX', '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    await drain(bank);
    const answers = fake.callbacks.filter((callback) => callback.parsed.reference === 'FOUR-XX').map((callback) => callback.answeredWith);
    expect(answers).toEqual([409, 409, 200]);
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });
});
