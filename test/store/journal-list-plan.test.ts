// GET /sandbox/journal's filters use the journal's indexes (store/journal.ts list): written `(@x IS NULL OR col = @x)`
// every filter was a full scan of the journal (~300-400 ms at 200,000 entries).
import Database from 'better-sqlite3';
import { JournalFilter, JournalRepository } from '../../src/bank/store/journal';
import { freshStore } from '../helpers/store';

const NONE: JournalFilter = { clientId: null, direction: null, code: null, reference: null, path: null, since: null, beforeId: null };

/** The statements `list` runs, as prepared through the database (captured from db.prepare). */
function capturing(db: Database.Database): string[] {
  const prepared: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  return prepared;
}

function planOf(db: Database.Database, sql: string, filter: JournalFilter): string {
  const values: Record<string, unknown> = { ...filter, limit: 51 };
  const params = Object.fromEntries([...new Set(sql.match(/@\w+/g) ?? [])].map((name) => [name.slice(1), values[name.slice(1)] ?? null]));
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((row) => row.detail).join('\n');
}

describe('journal list: the query plan', () => {
  let prepared: string[] = [];
  const store = freshStore((db) => {
    prepared = capturing(db);
    return new JournalRepository(db);
  });

  function planFor(filter: Partial<JournalFilter>): string {
    const full = { ...NONE, ...filter };
    store.repo().list(full, 51);
    const sql = [...prepared].reverse().find((one) => one.includes('FROM journal j') && one.includes('ORDER BY j.id DESC'));
    expect(sql).toBeDefined();
    return planOf(store.db(), sql as string, full);
  }

  it('a client filter walks journal_by_client', () => {
    const plan = planFor({ clientId: 'demo' });
    expect(plan).toMatch(/journal_by_client \(client_id=\?\)/);
    expect(plan).not.toMatch(/^SCAN j\b/m);
  });

  it('a client and a cursor walk journal_by_client from the cursor', () => {
    expect(planFor({ clientId: 'demo', beforeId: 100 })).toMatch(/journal_by_client \(client_id=\? AND id<\?\)/);
  });

  it('a reference filter looks the entries up by the reference indexes', () => {
    const plan = planFor({ reference: 'ORD-1' });
    expect(plan).toMatch(/journal_by_reference \(reference=\?\)/);
    expect(plan).toMatch(/journal_refs_by_order \(reference=\?\)/);
    expect(plan).not.toMatch(/^SCAN j\b/m);
  });

  it("a conformance run's filter (client, reference, direction, since) uses an index", () => {
    expect(planFor({ clientId: 'demo', reference: 'ORD-1', direction: 'in', since: 1_000 })).not.toMatch(/^SCAN j\b/m);
  });

  it('lists the same entries as the filters say', () => {
    const repo = store.repo();
    const entry = (id: number, clientId: string, direction: 'in' | 'out', reference: string) => ({
      id, at: 1_000 + id, direction, clientId, method: 'POST', url: `http://x/payment-orders/${id}`, path: '/payment-orders', status: 200,
      code: null, latencyMs: 1, requestId: null, detail: '{}', references: [{ clientId, reference }],
    });
    repo.insertMany([entry(1, 'a', 'in', 'R1'), entry(2, 'b', 'out', 'R1'), entry(3, 'a', 'out', 'R2'), entry(4, 'a', 'in', 'R1')]);
    const ids = (filter: Partial<JournalFilter>) => repo.list({ ...NONE, ...filter }, 10).map((row) => row.id);
    expect(ids({})).toEqual([4, 3, 2, 1]);
    expect(ids({ clientId: 'a' })).toEqual([4, 3, 1]);
    expect(ids({ clientId: 'a', direction: 'in', reference: 'R1' })).toEqual([4, 1]);
    expect(ids({ reference: 'R1', beforeId: 4 })).toEqual([2, 1]);
    expect(ids({ since: 1_003, path: '/payment' })).toEqual([4, 3]);
  });
});
