// GET /sandbox/orders?client_id= of a client with many orders walks the orders newest first and stops at the page's
// end (store/orders.ts search): through the (client_id, reference) index it read and sorted all of them, every page.
import Database from 'better-sqlite3';
import { OrderRepository } from '../../src/bank/store/orders';
import { freshStore } from '../helpers/store';

function fill(db: Database.Database, clientId: string, count: number, from: number): void {
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO orders (client_id, reference, bank_reference, source, status, scenario, scenario_source, response_mode, callbacks,
       initiated_at, initiated_at_ms, total_amount, currency, payload, created_at, processed_at)
     SELECT ?, 'R' || (i + ?), 'B' || (i + ?), 'push', 'SUCCESS', 'SUCCESS', 'rule', 'sync', 'normal',
       '2026-11-20T00:00:00Z', 0, '1.00', 'EUR', '{}', i, i FROM n`,
  ).run(count, clientId, from, from);
}

describe('order search by client: the query plan', () => {
  let prepared: string[] = [];
  const store = freshStore((db) => {
    prepared = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof db.prepare;
    return new OrderRepository(db);
  });

  function planOfSearch(clientId: string, beforeRow?: number): { plan: string; rows: number[] } {
    const rows = store.repo().search({ clientId, ...(beforeRow === undefined ? {} : { beforeRow }) }, 51).map((one) => one.row);
    const sql = [...prepared].reverse().find((one) => one.includes('ORDER BY rowid DESC')) as string;
    const params = beforeRow === undefined ? [clientId, 51] : [clientId, beforeRow, 51];
    const plan = (store.db().prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
    return { plan, rows };
  }

  it('walks newest first for a client with many orders, with no sort, on every page', () => {
    fill(store.db(), 'big', 10_000, 0);
    fill(store.db(), 'small', 20, 100_000);
    const first = planOfSearch('big');
    expect(first.plan).not.toMatch(/TEMP B-TREE/);
    expect(first.rows).toHaveLength(51);
    expect(first.rows[0]).toBe(10_000);
    const next = planOfSearch('big', first.rows[50]);
    expect(next.plan).not.toMatch(/TEMP B-TREE/);
    expect(next.rows[0]).toBe(first.rows[50] - 1);
  });

  it("reads a client with few orders through the client's index", () => {
    fill(store.db(), 'big', 10_000, 0);
    fill(store.db(), 'small', 20, 100_000);
    const { plan, rows } = planOfSearch('small');
    expect(plan).toMatch(/sqlite_autoindex_orders_\d \(client_id=\?\)/);
    expect(rows).toHaveLength(20);
  });
});
