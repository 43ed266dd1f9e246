// The settlement tick's query leaves clocked clients to their clocks by the test_clocks table, one statement
// whatever their number. It used to list them as parameters: a statement prepared each tick, and past 32,766
// clocks SQLite refused it ('too many SQL variables'), so no order of any client settled on the Bank's clock.
import { DemoClient, sampleOrder, startBank, tempDir } from '../helpers/bank';

describe('settlement with 33,000 test clocks attached', () => {
  it("settles an unclocked client's due order and leaves the clocked ones alone", async () => {
    const bank = await startBank({ sandboxMode: 'relaxed' });
    try {
      const demo = new DemoClient(bank);
      const order = sampleOrder({}, '42.03'); // PENDING, SUCCESS 5 s later
      expect((await demo.create(order)).body.status).toBe('PENDING');
      bank.db.transaction(() => {
        for (let i = 0; i < 33_000; i += 1) bank.clocks.attach(`clocked-${i}`, Date.parse('2026-11-22T12:00:00Z'));
      })();
      const statusOf = () => bank.db.prepare("SELECT status FROM orders WHERE client_id = 'demo-connector' AND reference = ?").pluck().get(order.reference);
      expect(bank.book.settleAllDue()).toBe(0);
      bank.db.prepare("UPDATE orders SET settle_at = 0 WHERE client_id = 'demo-connector' AND reference = ?").run(order.reference);
      expect(bank.book.settleAllDue()).toBe(1);
      expect(statusOf()).toBe('SUCCESS');
    } finally {
      bank.close();
    }
  });
});

describe('a start after builds that kept the clocks and pauses of deleted clients', () => {
  it('drops those of clients deleted at run time, and keeps those of clients in force or that only left the file', async () => {
    const dataDir = tempDir();
    const first = await startBank({ dataDir, sandboxMode: 'relaxed' });
    first.clocks.attach('demo-connector', Date.parse('2026-11-22T12:00:00Z'));
    // As builds before session 42 left them: a client deleted at run time, and one that left the clients file.
    first.db.exec(`
      INSERT INTO clients (client_id, definition, updated_at, deleted_at, runtime_changed_at) VALUES ('deleted-long-ago', '{}', 1, 1, 1);
      INSERT INTO clients (client_id, definition, updated_at, deleted_at, runtime_changed_at) VALUES ('left-the-file', '{}', 1, 1, NULL);
      INSERT INTO test_clocks (client_id, now_ms, attached_at) VALUES ('deleted-long-ago', 1, 1), ('left-the-file', 1, 1);
      INSERT INTO client_pauses (client_id, paused_at) VALUES ('deleted-long-ago', 1), ('left-the-file', 1), ('demo-connector', 1);
    `);
    first.close();
    const second = await startBank({ dataDir, sandboxMode: 'relaxed' });
    try {
      expect(second.db.prepare('SELECT client_id FROM test_clocks ORDER BY client_id').pluck().all()).toEqual(['demo-connector', 'left-the-file']);
      expect(second.db.prepare('SELECT client_id FROM client_pauses ORDER BY client_id').pluck().all()).toEqual(['demo-connector', 'left-the-file']);
      expect(second.clocks.isClocked('demo-connector')).toBe(true);
      expect(second.outbound.connectors.isPaused('demo-connector')).toBe(true);
    } finally {
      second.close();
    }
  });
});
