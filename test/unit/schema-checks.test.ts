// Migration 10 (issue 15): the Bank's CHECK (column IN (...)) constraints are stored as comparisons, which SQLite
// evaluates without building a temporary b-tree for every insert. The constraints must refuse and accept exactly
// what they did, on a fresh store and on one migrated with rows in it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { checksAsComparisons, migrate, Migration, openDatabase, rewriteTableDefinitions } from '../../src/wire/sqlite';
import { MIGRATIONS } from '../../src/bank/store/migrations';
import { CONNECTOR_MIGRATIONS } from '../../src/connector/store';

type Db = Database.Database;

/** Each checked column of each table, with its allowed values, read from the schema before `rewrittenIn`. */
function inListChecks(migrations: readonly Migration[] = MIGRATIONS, rewrittenIn = 10): Map<string, Map<string, string[]>> {
  const db = new Database(':memory:');
  migrate(db, migrations.filter((migration) => migration.version < rewrittenIn));
  const checks = new Map<string, Map<string, string[]>>();
  for (const { name, sql } of tableDefinitions(db)) {
    for (const [, column, list] of sql.matchAll(/CHECK \((\w+) IN \(([^()]*)\)\)/g)) {
      if (!checks.has(name)) checks.set(name, new Map());
      checks.get(name)!.set(column, list.split(',').map((value) => value.trim().slice(1, -1)));
    }
  }
  db.close();
  return checks;
}

function tableDefinitions(db: Db): { name: string; sql: string }[] {
  return db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").all() as { name: string; sql: string }[];
}

/** A row of `table` that meets its constraints: each checked column its first value, other required ones a filler. */
function insertValidRow(db: Db, table: string, checked: Map<string, string[]>): void {
  const columns = (db.prepare(`SELECT name, type, "notnull" AS required, dflt_value AS fallback, pk FROM pragma_table_info(?)`).all(table) as {
    name: string; type: string; required: number; fallback: string | null; pk: number;
  }[]).filter((column) => column.required || checked.has(column.name) || column.pk);
  const value = (column: (typeof columns)[number]): unknown =>
    checked.get(column.name)?.[0] ?? (/INT/i.test(column.type) ? 1 : /BLOB/i.test(column.type) ? Buffer.from('x') : 'x');
  db.prepare(`INSERT INTO "${table}" (${columns.map((column) => `"${column.name}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
    .run(...columns.map(value));
}

function expectChecksHold(db: Db, checks: Map<string, Map<string, string[]>>): void {
  for (const [table, columns] of checks) {
    insertValidRow(db, table, columns);
    for (const [column, allowed] of columns) {
      const set = db.prepare(`UPDATE "${table}" SET "${column}" = ?`);
      for (const value of allowed) expect(() => set.run(value)).not.toThrow();
      for (const value of ['bogus', allowed[0].toUpperCase() === allowed[0] ? allowed[0].toLowerCase() : allowed[0].toUpperCase(), '', `${allowed[0]} `]) {
        expect(() => set.run(value)).toThrow(/CHECK constraint failed/);
      }
      set.run(allowed[0]);
    }
  }
}

describe('checksAsComparisons', () => {
  it('writes each IN list of plain words as comparisons joined by OR', () => {
    expect(checksAsComparisons("kind TEXT NOT NULL CHECK (kind IN ('unit', 'batch')),")).toBe("kind TEXT NOT NULL CHECK (kind = 'unit' OR kind = 'batch'),");
    expect(checksAsComparisons("a CHECK (a IN ('in_progress', 'done')), b CHECK (b IN ('x-y', 'z', 'w'))")).toBe(
      "a CHECK (a = 'in_progress' OR a = 'done'), b CHECK (b = 'x-y' OR b = 'z' OR b = 'w')",
    );
    expect(checksAsComparisons("s CHECK (s IN ('only'))")).toBe("s CHECK (s = 'only')");
  });

  it('leaves every other CHECK as it is', () => {
    for (const sql of [
      'n INTEGER CHECK (n > 0)',
      'n INTEGER CHECK (n IN (1, 2))',
      "s TEXT CHECK (s IN (SELECT v FROM allowed))",
      "s TEXT CHECK (s IN ('it''s', 'b'))",
      "s TEXT CHECK (s IN ('a','b'))",
      "s TEXT CHECK (lower(s) IN ('a', 'b'))",
    ]) {
      expect(checksAsComparisons(sql)).toBe(sql);
    }
  });
});

describe("the Bank's schema after migration 10", () => {
  const checks = inListChecks();

  it('has CHECKs on the tables the hot paths write (the list this migration was measured on)', () => {
    expect([...checks.keys()].sort()).toEqual(['callbacks', 'clients', 'conformance_runs', 'idempotency_records', 'journal', 'orders', 'status_events']);
    expect([...checks.get('orders')!.keys()].sort()).toEqual(['callbacks', 'poll_answer', 'response_mode', 'source', 'status']);
  });

  it('keeps no IN-list CHECK on a fresh store, and each CHECK refuses and accepts what it did', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-checks-'));
    const db = openDatabase(dir, MIGRATIONS);
    try {
      for (const { sql } of tableDefinitions(db)) expect(sql).not.toMatch(/CHECK \(\w+ IN \(/);
      expect(tableDefinitions(db).find((table) => table.name === 'orders')!.sql).toContain("CHECK (status = 'PENDING' OR status = 'SUCCESS' OR status = 'FAILED')");
      db.pragma('foreign_keys = OFF');
      expectChecksHold(db, checks);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrates a store of version 9 with rows in it: the rows stay, the CHECKs hold, and a reopen reads the new schema', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-checks-'));
    try {
      const before = openDatabase(dir, MIGRATIONS.filter((migration) => migration.version < 10));
      before.pragma('foreign_keys = OFF');
      for (const [table, columns] of checks) insertValidRow(before, table, columns);
      const counts = (db: Db) => [...checks.keys()].map((table) => db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get());
      const rowsBefore = counts(before);
      before.close();

      const after = openDatabase(dir, MIGRATIONS);
      expect(after.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS[MIGRATIONS.length - 1].version);
      expect(counts(after)).toEqual(rowsBefore);
      expect(after.pragma('integrity_check', { simple: true })).toBe('ok');
      after.close();

      const reopened = openDatabase(dir, MIGRATIONS);
      for (const { sql } of tableDefinitions(reopened)) expect(sql).not.toMatch(/CHECK \(\w+ IN \(/);
      reopened.pragma('foreign_keys = OFF');
      reopened.exec([...checks.keys()].map((table) => `DELETE FROM "${table}";`).join(' '));
      expectChecksHold(reopened, checks);
      reopened.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the reference Connector's schema after its migration 2", () => {
  it('keeps no IN-list CHECK, and each CHECK refuses and accepts what it did', () => {
    const checks = inListChecks(CONNECTOR_MIGRATIONS, 2);
    expect([...checks.keys()].sort()).toEqual(['callback_keys', 'orders', 'status_log']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-checks-'));
    const db = openDatabase(dir, CONNECTOR_MIGRATIONS);
    try {
      for (const { sql } of tableDefinitions(db)) expect(sql).not.toMatch(/CHECK \(\w+ IN \(/);
      expectChecksHold(db, checks);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rewriteTableDefinitions', () => {
  let db: Db;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('a', 'b')))");
  });
  afterEach(() => db.close());

  it('changes nothing, schema version included, when the rewrite changes no table', () => {
    const version = db.pragma('schema_version', { simple: true });
    expect(db.transaction(() => rewriteTableDefinitions(db, (sql) => sql))()).toEqual([]);
    expect(db.pragma('schema_version', { simple: true })).toBe(version);
  });

  it('rolls back with its transaction when SQLite cannot parse the new text, and the store stays usable', () => {
    const original = tableDefinitions(db)[0].sql;
    expect(() => db.transaction(() => rewriteTableDefinitions(db, (sql) => sql.replace('CHECK (', 'CHECK ((')))()).toThrow();
    expect(tableDefinitions(db)[0].sql).toBe(original);
    expect(db.pragma('writable_schema', { simple: true })).toBe(0);
    db.prepare("INSERT INTO t (kind) VALUES ('a')").run();
    expect(() => db.prepare("INSERT INTO t (kind) VALUES ('c')").run()).toThrow(/CHECK constraint failed/);
  });

  it('leaves the connection in defensive mode: sqlite_master cannot be written afterwards', () => {
    expect(db.transaction(() => rewriteTableDefinitions(db, checksAsComparisons))()).toEqual(['t']);
    db.pragma('writable_schema = ON');
    expect(() => db.prepare("UPDATE sqlite_master SET sql = sql WHERE name = 't'").run()).toThrow();
  });
});
