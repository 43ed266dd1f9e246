// GET /sandbox/orders?client_id= of a client with many orders walks the orders newest first and stops at the page's
// end (store/orders.ts search): through the (client_id, reference) index it read and sorted all of them, every page.
import Database from 'better-sqlite3';
import { OrderRepository } from '../../src/bank/store/orders';
import { decodeCursor, listPage } from '../../src/bank/control/http';
import { freshStore } from '../helpers/store';

function fill(db: Database.Database, clientId: string, count: number, from: number, payload = '{}'): void {
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO orders (client_id, reference, bank_reference, source, status, scenario, scenario_source, response_mode, callbacks,
       initiated_at, initiated_at_ms, total_amount, currency, payload, created_at, processed_at)
     SELECT ?, 'R' || (i + ?), 'B' || (i + ?), 'push', 'SUCCESS', 'SUCCESS', 'rule', 'sync', 'normal',
       '2026-11-20T00:00:00Z', 0, '1.00', 'EUR', ?, i, i FROM n`,
  ).run(count, clientId, from, from, payload);
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
    const rows = store.repo().search({ clientId, ...(beforeRow === undefined ? {} : { beforeRow }) }, 51).rows.map((one) => one.row);
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

describe('order search: a page of large orders ends early', () => {
  const store = freshStore((db) => new OrderRepository(db));

  it('stops reading once the payloads reach the budget, says it was cut, and the next page goes on from there', () => {
    fill(store.db(), 'large', 10, 0, `{"note":"${'x'.repeat(990)}"}`);
    const first = store.repo().search({ clientId: 'large' }, 51, 2_500);
    expect(first.cut).toBe(true);
    expect(first.rows.map((one) => one.row)).toEqual([10, 9, 8]);
    const page = listPage(first.rows, 50, (one) => one.row, (one) => one.row, first.cut);
    expect(page.data).toEqual([10, 9, 8]);
    expect(decodeCursor(page.next_cursor ?? undefined, (value): value is number => typeof value === 'number')).toBe(8);
    const rest = store.repo().search({ clientId: 'large', beforeRow: 8 }, 51);
    expect(rest).toMatchObject({ cut: false });
    expect(rest.rows).toHaveLength(7);
  });

  it('reads at least one order, however large, and is not cut when the budget is reached by the last one', () => {
    fill(store.db(), 'large', 3, 0, `{"note":"${'x'.repeat(990)}"}`);
    expect(store.repo().search({ clientId: 'large' }, 51, 10).rows).toHaveLength(1);
    expect(store.repo().search({ clientId: 'large' }, 3, 3_000)).toMatchObject({ cut: false });
  });
});

