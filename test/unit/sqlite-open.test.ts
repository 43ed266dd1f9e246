// wire/sqlite.ts: the settings every store opens with (WAL, synchronous NORMAL, foreign keys, the longer WAL
// between checkpoints and the temporary files in memory that issue 15 measured), and that a reopened store keeps
// what was committed before a close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { itWithProc, openFiles } from '../helpers/open-files';
import { openDatabase, PAGE_CACHE_KIB, sqliteAddonPath, WAL_AUTOCHECKPOINT_PAGES } from '../../src/wire/sqlite';

/** SQLite's temporary files this process holds open (they are unlinked at once: /var/tmp/etilqs_… (deleted)). */
const temporaryFiles = (): string[] => openFiles().filter((target) => target.includes('etilqs_'));

const MIGRATIONS = [{ version: 1, name: 'one table', sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)' }];

describe('openDatabase', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-open-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens in WAL mode, synchronous NORMAL, with foreign keys, a checkpoint every 10,000 pages, a 2 MB page cache and temporary files in memory', () => {
    const db = openDatabase(dir, MIGRATIONS);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(WAL_AUTOCHECKPOINT_PAGES).toBe(10_000);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_AUTOCHECKPOINT_PAGES);
      // Negative: KiB, not pages. better-sqlite3's own build would say -16000.
      expect(PAGE_CACHE_KIB).toBe(2_000);
      expect(db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
      expect(db.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });

  it('runs migrations with SQLite\'s own temporary files (a migration may rewrite a whole table), and the store after them in memory', () => {
    const seen: unknown[] = [];
    const db = openDatabase(dir, [...MIGRATIONS, { version: 2, name: 'looks', apply: (migrating) => seen.push(migrating.pragma('temp_store', { simple: true })) }]);
    try {
      expect(seen).toEqual([0]);
      expect(db.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });

  it('refuses a store that a newer build migrated, naming both versions, and changes nothing in it', () => {
    openDatabase(dir, [...MIGRATIONS, { version: 2, name: 'newer', sql: 'CREATE TABLE u (id INTEGER PRIMARY KEY)' }]).close();
    expect(() => openDatabase(dir, MIGRATIONS)).toThrow(/schema is at version 2, newer than this build knows \(1\)/);
    // Named by the setting of the side that opens it: the reference Connector's is CONNECTOR_DATA_DIR.
    expect(() => openDatabase(dir, MIGRATIONS)).toThrow(/\(DATA_DIR .*\): its schema .* give this one another directory$/);
    expect(() => openDatabase(dir, MIGRATIONS, 'CONNECTOR_DATA_DIR')).toThrow(/\(CONNECTOR_DATA_DIR .*\): its schema/);
    const db = openDatabase(dir, [...MIGRATIONS, { version: 2, name: 'newer', sql: 'CREATE TABLE u (id INTEGER PRIMARY KEY)' }]);
    try {
      expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual([1, 2]);
    } finally {
      db.close();
    }
  });

  itWithProc('keeps a savepoint\'s sub-journal in memory however many pages it changes (no temporary file)', () => {
    const db = openDatabase(dir, MIGRATIONS);
    try {
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 200; i += 1) insert.run('x'.repeat(3_000));
      })();
      // As the group commit runs a unit: a savepoint inside an open transaction, here changing ~100 pages that
      // were there before it (SQLite's own setting spills to a file past 16).
      db.exec('BEGIN');
      db.exec('SAVEPOINT unit');
      db.prepare("UPDATE t SET v = 'y' || v WHERE id <= 100").run();
      const whileOpen = temporaryFiles();
      db.exec('RELEASE unit');
      db.exec('COMMIT');
      expect(whileOpen).toEqual([]);
      expect(db.prepare("SELECT COUNT(*) FROM t WHERE v LIKE 'y%'").pluck().get()).toBe(100);
    } finally {
      db.close();
    }
  });

  it('holds far more than the page cache, on disk and in memory alike', () => {
    for (const dataDir of [dir, ':memory:']) {
      const db = openDatabase(dataDir, MIGRATIONS);
      try {
        const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
        // ~3,000 pages (12 MB), six times the cache: an in-memory store must not lose the pages it cannot cache.
        db.transaction(() => {
          for (let i = 0; i < 3_000; i += 1) insert.run(`${i}:${'x'.repeat(3_000)}`);
        })();
        expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(3_000);
        expect(db.prepare('SELECT v FROM t WHERE id = 1').pluck().get()).toMatch(/^0:x{3000}$/);
      } finally {
        db.close();
      }
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

describe("better-sqlite3's native addon", () => {
  it('is opened by its path, where npm ci builds or installs it', () => {
    expect(sqliteAddonPath()).toMatch(/node_modules\/better-sqlite3\/build\/Release\/better_sqlite3\.node$/);
  });
});
