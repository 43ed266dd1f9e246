// The settlement tick settles a batch a turn of the event loop (outbound/settlement.ts): 10,000 orders due at once
// settled in one synchronous loop held every request, /readyz included, for ~3 s.
import { Bank } from '../../src/bank/bank';
import { DemoClient, sampleOrder, startBank } from '../helpers/bank';

describe('settlement tick', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
  });
  afterAll(() => bank.close());

  it('settles 1,200 due orders in several turns, serving the event loop in between', async () => {
    const created = await new DemoClient(bank).create(sampleOrder({ metadata: { sandbox_scenario: 'PENDING:60:SUCCESS' } }));
    expect(created.status).toBe(200);
    const reference = created.body.reference as string;
    const { client_id: clientId } = bank.db.prepare('SELECT client_id FROM orders WHERE reference = ?').get(reference) as { client_id: string };
    // 1,199 more like it, every one due now.
    bank.db.exec(`CREATE TEMP TABLE clone AS SELECT * FROM orders WHERE reference = '${reference}'`);
    const columns = (bank.db.prepare("SELECT name FROM pragma_table_info('orders')").pluck().all() as string[]);
    const select = columns.map((name) => (name === 'reference' ? `reference || '-' || i` : name === 'bank_reference' ? `bank_reference || '-' || i` : name));
    bank.db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1199)
       INSERT INTO orders (${columns.join(', ')}) SELECT ${select.join(', ')} FROM temp.clone, n`,
    ).run();
    bank.db.prepare("UPDATE orders SET settle_at = ? WHERE client_id = ? AND status = 'PENDING'").run(Date.now() - 1_000, clientId);
    const pending = () => bank.db.prepare("SELECT COUNT(*) FROM orders WHERE status = 'PENDING'").pluck().get() as number;
    expect(pending()).toBe(1_200);
    // Scheduled before the tick: it runs at the first turn the tick gives back, with orders still due.
    const pendingWhenServed = new Promise<number>((resolve) => setImmediate(() => resolve(pending())));
    const settled = await bank.outbound.settlement.tick();
    const leftThen = await pendingWhenServed;
    expect(leftThen).toBeGreaterThan(0);
    expect(leftThen).toBeLessThan(1_200);
    expect(settled).toBe(1_200);
    expect(pending()).toBe(0);
  });
});
