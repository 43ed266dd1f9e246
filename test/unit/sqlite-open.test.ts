// wire/sqlite.ts: the settings every store opens with (WAL, synchronous NORMAL, foreign keys, the longer WAL
// between checkpoints that issue 15 measured), and that a reopened store keeps what was committed before a close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, WAL_AUTOCHECKPOINT_PAGES } from '../../src/wire/sqlite';

const MIGRATIONS = [{ version: 1, name: 'one table', sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)' }];

describe('openDatabase', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-open-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens in WAL mode, synchronous NORMAL, with foreign keys and a checkpoint every 10,000 pages', () => {
    const db = openDatabase(dir, MIGRATIONS);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(WAL_AUTOCHECKPOINT_PAGES).toBe(10_000);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
    } finally {
      db.close();
    }
  });

  it('keeps every commit across a close and a reopen, however many pages the WAL holds', () => {
    const db = openDatabase(dir, MIGRATIONS);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    // ~1,500 pages of rows, one commit each: past SQLite's default checkpoint, short of ours.
    for (let i = 0; i < 1_500; i += 1) insert.run('x'.repeat(3_000));
    db.close();
    const reopened = openDatabase(dir, MIGRATIONS);
    try {
      expect(reopened.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1_500);
    } finally {
      reopened.close();
    }
  });
});
