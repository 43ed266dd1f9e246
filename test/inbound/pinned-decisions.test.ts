// Decisions of docs/profile-decisions.md that no other test pins.
import { ManualClock } from '../../src/wire/clock';
import { DemoClient, sampleOrder, startBank } from '../helpers/bank';

describe('pinned decisions (inbound)', () => {
  it('X-Timestamp needs an upper-case T and Z: lower case is 400 header_invalid', async () => {
    const bank = await startBank();
    const client = new DemoClient(bank);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const timestamp of [now.replace('T', 't'), now.replace('Z', 'z')]) {
      const answer = await client.create(sampleOrder(), { headers: { 'x-timestamp': timestamp } });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('header_invalid');
    }
    bank.close();
  });

  it('a deferred final read long after its delay is dated at the end of the delay', async () => {
    const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const bank = await startBank({ sandboxMode: 'relaxed' }, { clock });
    const client = new DemoClient(bank);
    const order = sampleOrder({ metadata: { sandbox_scenario: 'PENDING:5:SUCCESS' } });
    const created = await client.create(order);
    expect(created.body).toMatchObject({ status: 'PENDING', timestamp: '2026-11-22T10:00:00.000Z' });
    clock.advance(10 * 60_000);
    const status = await client.status(order.reference as string);
    expect(status.body).toMatchObject({ status: 'SUCCESS', processed_at: '2026-11-22T10:00:05.000Z' });
    bank.close();
  });
});
