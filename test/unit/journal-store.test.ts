// The journal's store: the age prune (lastOlderThan) finds the right id through the `at` index, not by reading the
// journal from its newest entry down (issue 15: that read every entry once a second); an entry's order references
// are stored once each, whether they all belong to one client (one statement for the lot) or not; an entry naming
// one order of its own client keeps it in its row (migration 11), and every read finds both kinds, and the rows
// written before migration 11.
import Database from 'better-sqlite3';
import { JournalRepository, JournalInsert, JournalFilter } from '../../src/bank/store/journal';
import { MIGRATIONS } from '../../src/bank/store/migrations';
import { migrate } from '../../src/wire/sqlite';
import { freshStore } from '../helpers/store';

function entry(id: number, at: number): JournalInsert {
  return {
    id, at, direction: 'in', clientId: 'demo', method: 'GET', url: 'http://bank/readyz', path: '/readyz', status: 200, code: null,
    latencyMs: 1, requestId: null, detail: '{}', references: [],
  };
}

describe('journal store: age prune', () => {
  const store = freshStore((db) => new JournalRepository(db));
  let repo: JournalRepository;
  beforeEach(() => (repo = store.repo()));

  it('answers the newest id older than the limit, or null when none is', () => {
    repo.insertMany([entry(1, 1_000), entry(2, 2_000), entry(3, 3_000), entry(4, 4_000)]);
    expect(repo.lastOlderThan(500)).toBeNull();
    expect(repo.lastOlderThan(2_500)).toBe(2);
    expect(repo.lastOlderThan(10_000)).toBe(4);
    expect(repo.deleteUpTo(repo.lastOlderThan(3_500) as number)).toBe(3);
    expect(repo.lastOlderThan(3_500)).toBeNull();
  });

  it('reads the at index, so a journal with nothing old is not read through', () => {
    const source = (repo as unknown as { lastAgedStmt: Database.Statement }).lastAgedStmt.source;
    const plan = store.db().prepare(`EXPLAIN QUERY PLAN ${source}`).all(0) as { detail: string }[];
    expect(plan.map((step) => step.detail).join('; ')).toMatch(/USING (COVERING )?INDEX journal_at \(at<\?\)/);
  });
});

const refs = (clientId: string | null, ...references: string[]) => references.map((reference) => ({ clientId, reference }));
const NO_FILTER: JournalFilter = { clientId: null, direction: null, code: null, reference: null, path: null, since: null, beforeId: null };
const listed = (repo: JournalRepository, reference: string) => repo.list({ ...NO_FILTER, reference }, 10).map((row) => row.id);

describe('journal store: order references', () => {
  const store = freshStore((db) => new JournalRepository(db));
  let repo: JournalRepository;
  beforeEach(() => (repo = store.repo()));

  const separate = () => store.db().prepare('SELECT entry_id AS entryId, client_id AS clientId, reference FROM journal_refs ORDER BY entry_id, reference').all();
  const inRow = () => store.db().prepare('SELECT id, reference FROM journal WHERE reference IS NOT NULL ORDER BY id').all();

  it("stores each of an entry's references once, for one client, for several, and for none", () => {
    repo.insertMany([
      { ...entry(1, 1_000), references: refs('demo', 'P-2', 'P-1', 'P-2', 'P-3') },
      { ...entry(2, 2_000), references: [...refs('demo', 'P-1'), ...refs('other', 'P-1', 'Q-1')] },
      { ...entry(3, 3_000), references: refs(null, 'N-1', 'N-2') },
      { ...entry(4, 4_000), references: refs('demo', 'S-1') },
      entry(5, 5_000),
      { ...entry(6, 6_000), references: refs('other', 'P-1') },
    ]);
    expect(separate()).toEqual([
      { entryId: 1, clientId: 'demo', reference: 'P-1' },
      { entryId: 1, clientId: 'demo', reference: 'P-2' },
      { entryId: 1, clientId: 'demo', reference: 'P-3' },
      { entryId: 2, clientId: 'demo', reference: 'P-1' },
      { entryId: 2, clientId: 'other', reference: 'Q-1' },
      { entryId: 3, clientId: null, reference: 'N-1' },
      { entryId: 3, clientId: null, reference: 'N-2' },
      // entry 6 is demo's, and names an order of another client: its reference cannot go in its row
      { entryId: 6, clientId: 'other', reference: 'P-1' },
    ]);
    expect(inRow()).toEqual([{ id: 4, reference: 'S-1' }]);
    expect(repo.mentions('demo', 'P-1', 10).map((mention) => mention.id)).toEqual([1, 2]);
    expect(repo.mentions('other', 'P-1', 10).map((mention) => mention.id)).toEqual([6]);
    expect(repo.find(1)?.references).toEqual(['P-1', 'P-2', 'P-3']);
    expect(repo.find(4)?.references).toEqual(['S-1']);
    expect(repo.find(5)?.references).toEqual([]);
  });

  it("finds an order's entries in their rows and in journal_refs alike: its mentions oldest first, the list newest first", () => {
    repo.insertMany([
      { ...entry(1, 1_000), references: refs('demo', 'P-1') },
      { ...entry(2, 2_000), references: refs('demo', 'P-1', 'P-2') },
      { ...entry(3, 3_000), references: refs('demo', 'P-2') },
      { ...entry(4, 4_000), references: refs('demo', 'P-1') },
    ]);
    expect(repo.mentions('demo', 'P-1', 10).map((mention) => mention.id)).toEqual([1, 2, 4]);
    expect(repo.mentions('demo', 'P-1', 2).map((mention) => mention.id)).toEqual([1, 2]);
    expect(repo.mentions('other', 'P-1', 10)).toEqual([]);
    expect(listed(repo, 'P-1')).toEqual([4, 2, 1]);
    expect(listed(repo, 'P-2')).toEqual([3, 2]);
    expect(repo.list({ ...NO_FILTER, reference: 'P-1', beforeId: 4 }, 1).map((row) => row.id)).toEqual([2]);
    expect(repo.list(NO_FILTER, 10).map((row) => row.references)).toEqual([['P-1'], ['P-2'], ['P-1', 'P-2'], ['P-1']]);
  });

  it('prunes and clears the references of both kinds with their entries', () => {
    repo.insertMany([
      { ...entry(1, 1_000), references: refs('demo', 'P-1') },
      { ...entry(2, 2_000), references: refs('demo', 'P-1', 'P-2') },
      { ...entry(3, 3_000), references: refs('demo', 'P-1') },
    ]);
    expect(repo.deleteUpTo(2)).toBe(2);
    expect(separate()).toEqual([]);
    expect(repo.mentions('demo', 'P-1', 10).map((mention) => mention.id)).toEqual([3]);
    expect(repo.clear()).toBe(1);
    expect(repo.mentions('demo', 'P-1', 10)).toEqual([]);
  });

  it("reads what a journal wrote before migration 11 (every reference in journal_refs) next to what it writes after", () => {
    const db = new Database(':memory:');
    try {
      migrate(db, MIGRATIONS.filter((migration) => migration.version < 11));
      db.prepare(`INSERT INTO journal (id, at, direction, client_id, method, url, path, status, code, latency_ms, request_id, detail)
        VALUES (1, 1000, 'in', 'demo', 'GET', 'http://bank/payment-orders/P-1/status', '/payment-orders/P-1/status', 200, NULL, 1, NULL, '{}')`).run();
      db.prepare("INSERT INTO journal_refs (entry_id, client_id, reference) VALUES (1, 'demo', 'P-1')").run();
      migrate(db, MIGRATIONS);
      const migrated = new JournalRepository(db);
      migrated.insertMany([{ ...entry(2, 2_000), references: refs('demo', 'P-1') }]);
      expect(migrated.mentions('demo', 'P-1', 10).map((mention) => mention.id)).toEqual([1, 2]);
      expect(listed(migrated, 'P-1')).toEqual([2, 1]);
      expect(migrated.find(1)?.references).toEqual(['P-1']);
      expect(migrated.find(2)?.references).toEqual(['P-1']);
    } finally {
      db.close();
    }
  });

  it("finds an order's own entries through the reference index, not by reading the journal", () => {
    const source = (repo as unknown as { mentionsStmt: Database.Statement }).mentionsStmt.source;
    const plan = store.db().prepare(`EXPLAIN QUERY PLAN ${source}`).all({ reference: 'P-1', clientId: 'demo', limit: 10 }) as { detail: string }[];
    const steps = plan.map((step) => step.detail).join('; ');
    expect(steps).toMatch(/INDEX journal_by_reference \(reference=\? AND client_id=\?\)/);
    expect(steps).toMatch(/INDEX journal_refs_by_order \(reference=\? AND client_id=\?\)/);
    expect(steps).not.toMatch(/SCAN/);
  });
});

describe('journal store: ids are never given twice', () => {
  const store = freshStore((db) => new JournalRepository(db));

  it('goes on from the largest id ever given after a clear, a prune of every entry, and a reopen', () => {
    const repo = store.repo();
    expect(repo.lastId()).toBe(0);
    repo.insertMany([entry(1, 1_000), entry(2, 2_000), entry(3, 3_000)]);
    expect(repo.clear()).toBe(3);
    expect(repo.lastId()).toBe(3);
    repo.insertMany([entry(4, 4_000), entry(5, 5_000)], 5);
    expect(repo.lastId()).toBe(5);
    expect(repo.deleteUpTo(9)).toBe(0);
    expect(new JournalRepository(store.db()).lastId()).toBe(5);
  });
});
