// Opens a side's SQLite store (WAL, foreign keys) and applies its pending migrations. Each side brings its own
// schema; this is only the shared plumbing.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export type Db = Database.Database;

export interface Migration {
  version: number;
  name: string;
  /** Run first, in the migration's transaction. */
  sql?: string;
  /** Run after `sql`, in the same transaction: for what SQL alone cannot say (rewriteTableDefinitions). */
  apply?: (db: Db) => void;
}

export class StoreError extends Error {}

export function databasePath(dataDir: string): string {
  return dataDir === ':memory:' ? ':memory:' : path.join(dataDir, 'sandbox-bank.sqlite');
}

/** Creates the data directory if needed; throws a StoreError naming its setting when it cannot be written. */
export function ensureDataDir(dataDir: string, setting = 'DATA_DIR'): void {
  if (dataDir === ':memory:') return;
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch (error) {
    throw new StoreError(`${setting} ${dataDir} is not a writable directory: ${(error as Error).message}`);
  }
}

/** Pages in the WAL before SQLite checkpoints it (see openDatabase). */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/** The least time between two background syncs of the WAL (see WalPresync). */
export const WAL_PRESYNC_MS = 200;

/**
 * Syncs the WAL to disk on libuv's thread pool while the store writes: at most one sync at a time, started at most
 * every WAL_PRESYNC_MS, by `kick()` (the writer calls it after its commits). Why: with `synchronous = NORMAL` a
 * commit does not sync, so the checkpoint that SQLite runs inside a commit every WAL_AUTOCHECKPOINT_PAGES pages
 * first syncs the whole WAL (~40 MB) and the event loop waits for the disk, ~36 ms each time. Synced in the
 * background, the checkpoint finds only the last WAL_PRESYNC_MS or so unsynced. Every 200 ms rather than 50: the
 * same wait, half the extra CPU (~1 % of a request, in the thread pool; bench/README.md, session 23). It changes
 * nothing SQLite orders or promises: a sync only makes pages durable sooner. No file (`:memory:`), or a failed
 * sync: no presync.
 */
export class WalPresync {
  private fd: number | null;
  private syncing = false;
  private closing = false;
  private lastStart = -Infinity;

  constructor(db: Db) {
    this.fd = db.memory ? null : openOrNull(`${db.name}-wal`);
  }

  kick(): void {
    if (this.fd === null || this.syncing) return;
    const now = performance.now();
    if (now - this.lastStart < WAL_PRESYNC_MS) return;
    this.lastStart = now;
    this.syncing = true;
    fs.fdatasync(this.fd, (error) => {
      this.syncing = false;
      if (error || this.closing) this.close();
    });
  }

  /** Lets the file go, once a sync under way has ended. */
  close(): void {
    this.closing = true;
    if (this.syncing || this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

function openOrNull(file: string): number | null {
  try {
    return fs.openSync(file, 'r+');
  } catch {
    return null;
  }
}

/** The page cache's ceiling in KiB: SQLite's own default, where better-sqlite3's build sets 16,000 (see openDatabase). */
export const PAGE_CACHE_KIB = 2_000;

/**
 * better-sqlite3's native addon, by its path. Without it the package finds the addon through `bindings`, which reads
 * a stack trace to find the package and tries a dozen paths (~2 ms of a start), and cannot find it at all from the
 * build's bundle, which carries the package's JavaScript (scripts/bundle.js). Null when the addon is not where an
 * install or a build from source puts it: the package's own search then, and the bundle leaves the package out.
 */
export function sqliteAddonPath(): string | null {
  try {
    return require.resolve('better-sqlite3/build/Release/better_sqlite3.node');
  } catch {
    return null;
  }
}

/** `setting`: the variable that names the directory, for messages (the reference Connector's is CONNECTOR_DATA_DIR). */
export function openDatabase(dataDir: string, migrations: readonly Migration[], setting = 'DATA_DIR'): Db {
  ensureDataDir(dataDir, setting);
  const file = databasePath(dataDir);
  let db: Db | null = null;
  try {
    db = new Database(file, { nativeBinding: sqliteAddonPath() ?? undefined });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Checkpoint every 10,000 WAL pages (~40 MB) instead of SQLite's 1,000. A checkpoint copies each page the WAL
    // holds to the database file and syncs it; the Bank rewrites the same few thousand index pages over and over
    // (random nonces, keys, references), so a longer WAL copies each of them once for many more commits. Measured
    // (issue 15, bench/README.md): the COMMIT's share of a create 82 -> 53 us; server CPU a create -4 %, a poll -7 %;
    // unit callbacks probably ~5 % slower, not yet explained.
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    // better-sqlite3 is built with a 16 MB page cache, and a Bank under load fills it: after the bench's 60,000
    // creates it was 15 MB of the 22 MB malloc'ed on the main thread. The hot pages (the right edges of the order
    // and journal trees, the poll's lookups) fit in 2 MB; the rest come from the OS's file cache. Measured (issue 15,
    // bench/README.md): RSS after the load -15 MB, SQLite time a create the same within noise.
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    migrate(db, migrations);
    // Temporary files in memory, once migrated. It is for the sub-journal: each savepoint (a nested transaction, a
    // group commit's unit that may refuse after writing; a create's unit was one until session 28) keeps the pages it
    // changes there, and SQLite's default spills it to a temporary file past 16 pages and keeps the file until the
    // commit, so every later unit of the group wrote its pages to it with two pwrite calls each.
    // In memory it is emptied at each unit's release: a create -2 to -4 % CPU (issue 15, bench/README.md). The
    // price: one statement that changes N existing pages in a transaction holds them in memory until it ends (an
    // UPDATE of 60,000 journal rows: +240 MB; deleting them: +5 MB). Nothing the running Bank does comes near, but a
    // migration may rewrite a whole table, so migrations run with the default, spilling to a file.
    db.pragma('temp_store = MEMORY');
    return db;
  } catch (error) {
    db?.close();
    throw new StoreError(`cannot open the store ${file} (${setting} ${dataDir}): ${(error as Error).message}`);
  }
}

/**
 * A store a newer build has migrated is refused, not used: this build does not know what those migrations changed,
 * and writing to it would leave rows the newer build no longer expects (a rollback after an upgrade).
 */
function refuseNewerSchema(applied: ReadonlySet<number>, migrations: readonly Migration[]): void {
  const known = Math.max(0, ...migrations.map((migration) => migration.version));
  const newest = Math.max(0, ...applied);
  if (newest > known) {
    throw new Error(`its schema is at version ${newest}, newer than this build knows (${known}): it was written by a newer build; run that build, or give this one another directory`);
  }
}

export function migrate(db: Db, migrations: readonly Migration[]): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  refuseNewerSchema(applied, migrations);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const newlyApplied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      if (migration.sql) db.exec(migration.sql);
      migration.apply?.(db);
      record.run(migration.version, migration.name, Date.now());
    })();
    newlyApplied.push(migration.version);
  }
  return newlyApplied;
}

/**
 * Rewrites the stored CREATE TABLE text of the tables `rewrite` changes, in place: SQLite's own procedure for
 * schema changes that leave every stored row as it is (https://sqlite.org/lang_altertable.html, "Making Other Kinds
 * Of Table Schema Changes"), for a constraint rewritten into an equivalent one, which every row already meets.
 * Call it inside a transaction: a text SQLite cannot parse throws there, and the rollback restores the schema.
 * Returns the names of the tables rewritten.
 */
export function rewriteTableDefinitions(db: Db, rewrite: (sql: string) => string): string[] {
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").all() as { name: string; sql: string }[];
  const changed = tables.map((table) => ({ name: table.name, sql: rewrite(table.sql) })).filter((table, i) => table.sql !== tables[i].sql);
  if (changed.length === 0) return [];
  // better-sqlite3 opens connections in SQLite's defensive mode, which forbids writing sqlite_master.
  db.unsafeMode(true);
  try {
    const version = db.pragma('schema_version', { simple: true }) as number;
    db.pragma('writable_schema = ON');
    const update = db.prepare("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?");
    for (const table of changed) update.run(table.sql, table.name);
    // A new schema version makes this connection (and any other) parse the schema again, now.
    db.pragma(`schema_version = ${version + 1}`);
    for (const table of changed) db.prepare(`SELECT * FROM "${table.name}" LIMIT 0`).all();
  } finally {
    // Neither setting is undone by a rollback.
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
  return changed.map((table) => table.name);
}

/** One `CHECK (column IN ('a', 'b'))` of a CREATE TABLE: a column and a list of plain quoted words. */
const IN_LIST_CHECK = /CHECK \((\w+) IN \(((?:'[\w-]*', )*'[\w-]*')\)\)/g;

/**
 * The same CHECKs written as comparisons: `CHECK (column = 'a' OR column = 'b')`. SQLite evaluates an IN list by
 * building a temporary b-tree of its values each time a statement runs, ~0.5 µs a CHECK an insert; comparisons cost
 * next to nothing. The two accept and refuse the same values, NULL included.
 */
export function checksAsComparisons(sql: string): string {
  return sql.replace(IN_LIST_CHECK, (_match, column: string, list: string) => `CHECK (${list.split(', ').map((value) => `${column} = ${value}`).join(' OR ')})`);
}

export function schemaVersion(db: Db): number {
  return (db.prepare('SELECT COALESCE(MAX(version), 0) FROM schema_migrations').pluck().get() as number) ?? 0;
}
