// bench/wal-pages.js: a WAL read back as its committed transactions (the current lap only, nothing after the last
// commit frame), each page named by the table or index that holds it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { walCommits, lapOf, pageOwners, framesByOwner } = require('../../bench/wal-pages');

type Commits = { pageSize: number; commits: number[][] };

function walDatabase(): { db: Database.Database; wal: () => Buffer } {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wal-pages-test-')), 'test.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE small (id INTEGER PRIMARY KEY, note TEXT); CREATE TABLE wide (id INTEGER PRIMARY KEY, payload TEXT); CREATE INDEX wide_by_payload ON wide (payload)');
  return { db, wal: () => fs.readFileSync(`${file}-wal`) };
}

describe('bench/wal-pages.js', () => {
  it('reads each committed transaction of the WAL with the pages it wrote, named by their table or index', () => {
    const { db, wal } = walDatabase();
    const before = walCommits(wal()) as Commits;
    db.prepare('INSERT INTO small (note) VALUES (?)').run('one row');
    const insertWide = db.prepare('INSERT INTO wide (payload) VALUES (?)');
    db.transaction(() => {
      for (let index = 0; index < 40; index += 1) insertWide.run(`${index}`.padStart(300, 'x'));
    })();
    const { pageSize, commits } = walCommits(wal()) as Commits;
    expect(pageSize).toBe(4096);
    expect(commits).toHaveLength(before.commits.length + 2);
    const [single, many] = commits.slice(-2);
    const owners = pageOwners(db) as Map<number, string>;
    // One row of `small`: its one leaf, nothing else (the database did not grow, so page 1 stays as it was).
    expect(single.map((page) => owners.get(page))).toEqual(['small']);
    // 40 rows of 300 bytes, 12 KB in all: at least three leaves of `wide` and of its index, their interior pages once
    // they split, and page 1, since the database grew; nothing of `small`.
    const counts = new Map(framesByOwner([many], owners) as [string, number][]);
    expect(counts.get('wide')).toBeGreaterThanOrEqual(3);
    expect(counts.get('wide_by_payload')).toBeGreaterThanOrEqual(3);
    expect([...counts.keys()].sort()).toEqual(['page 1 (the database header)', 'wide', 'wide (interior)', 'wide_by_payload', 'wide_by_payload (interior)']);
    db.close();
  });

  it('leaves out frames after the last commit and frames of an earlier lap', () => {
    const { db, wal } = walDatabase();
    db.prepare('INSERT INTO small (note) VALUES (?)').run('first lap');
    db.prepare('INSERT INTO small (note) VALUES (?)').run('first lap');
    const firstLap = wal();
    expect((walCommits(firstLap) as Commits).commits.length).toBeGreaterThanOrEqual(3);
    db.pragma('wal_checkpoint(RESTART)');
    db.prepare('INSERT INTO small (note) VALUES (?)').run('second lap');
    const secondLap = wal();
    // The new lap overwrites the file from its start: its salts end the scan where the old lap's frames remain.
    expect(secondLap.length).toBe(firstLap.length);
    expect((walCommits(secondLap) as Commits).commits).toHaveLength(1);
    expect(lapOf(secondLap)).toBe(lapOf(firstLap) + 1);
    // A frame written but not committed (its commit field 0) belongs to no transaction.
    const unfinished = Buffer.from(secondLap);
    const frameBytes = 24 + 4096;
    unfinished.writeUInt32BE(0, 32 + 4);
    for (let offset = 32; offset + frameBytes <= unfinished.length; offset += frameBytes) unfinished.writeUInt32BE(0, offset + 4);
    expect((walCommits(unfinished) as Commits).commits).toHaveLength(0);
    db.close();
  });

  it('counts a page that no table holds as free or unknown', () => {
    expect(framesByOwner([[2, 3, 3]], new Map([[2, 'orders']]))).toEqual([['free or unknown', 2], ['orders', 1]]);
  });
});
