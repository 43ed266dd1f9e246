// The journal's store: the age prune (lastOlderThan) finds the right id through the `at` index, not by reading the
// journal from its newest entry down (issue 15: that read every entry once a second); an entry's order references
// are stored once each, whether they all belong to one client (one statement for the lot) or not.
import type Database from 'better-sqlite3';
import { JournalRepository, JournalInsert } from '../../src/bank/store/journal';
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

describe('journal store: order references', () => {
  const store = freshStore((db) => new JournalRepository(db));
  let repo: JournalRepository;
  beforeEach(() => (repo = store.repo()));

  const stored = () => store.db().prepare('SELECT entry_id AS entryId, client_id AS clientId, reference FROM journal_refs ORDER BY entry_id, reference').all();
  const refs = (clientId: string | null, ...references: string[]) => references.map((reference) => ({ clientId, reference }));

  it("stores each of an entry's references once, for one client, for several, and for none", () => {
    repo.insertMany([
      { ...entry(1, 1_000), references: refs('demo', 'P-2', 'P-1', 'P-2', 'P-3') },
      { ...entry(2, 2_000), references: [...refs('demo', 'P-1'), ...refs('other', 'P-1', 'Q-1')] },
      { ...entry(3, 3_000), references: refs(null, 'N-1', 'N-2') },
      { ...entry(4, 4_000), references: refs('demo', 'S-1') },
      entry(5, 5_000),
    ]);
    expect(stored()).toEqual([
      { entryId: 1, clientId: 'demo', reference: 'P-1' },
      { entryId: 1, clientId: 'demo', reference: 'P-2' },
      { entryId: 1, clientId: 'demo', reference: 'P-3' },
      { entryId: 2, clientId: 'demo', reference: 'P-1' },
      { entryId: 2, clientId: 'other', reference: 'Q-1' },
      { entryId: 3, clientId: null, reference: 'N-1' },
      { entryId: 3, clientId: null, reference: 'N-2' },
      { entryId: 4, clientId: 'demo', reference: 'S-1' },
    ]);
    expect(repo.mentions('demo', 'P-1', 10).map((mention) => mention.id)).toEqual([1, 2]);
    expect(repo.find(1)?.references).toEqual(['P-1', 'P-2', 'P-3']);
  });
});
