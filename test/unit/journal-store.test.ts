// The journal's age prune (store/journal.ts lastOlderThan): the right id, found through the `at` index, not by
// reading the journal from its newest entry down (issue 15: that read every entry once a second).
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
