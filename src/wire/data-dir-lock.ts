// One process a data directory. Two Banks on one store would each run the outbound side (every callback sent twice),
// hand out the same journal and event ids (entries lost on a UNIQUE constraint), and the second's start would
// abandon the first's idempotency reservations and race it for the dev PKI. So a side holds an exclusive SQLite
// lock on `<DATA_DIR>/sandbox-bank.lock` for as long as it runs: the operating system drops it when the process
// ends, however it ends, so a killed process never leaves a stale lock behind. A JSON file beside it names the
// holder, for the refusal's message only.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ensureDataDir, sqliteAddonPath, StoreError } from './sqlite';

export interface DataDirLock {
  /** Gives the directory up (idempotent); the process's end does the same. */
  release(): void;
}

/** Who holds the lock: written beside it once taken, read by the process it refuses. */
export interface LockHolder {
  owner: string;
  pid: number;
  host: string;
  started_at: string;
}

export class DataDirInUse extends StoreError {}

/** Who takes a directory, for the messages: its name, the setting that names the directory, what two would do. */
export interface DirectoryOwner {
  name: string;
  setting: string;
  hazard: string;
}

export function lockFilePath(dataDir: string): string {
  return path.join(dataDir, 'sandbox-bank.lock');
}

export function holderFilePath(dataDir: string): string {
  return `${lockFilePath(dataDir)}.json`;
}

const NO_LOCK: DataDirLock = { release() {} };

/**
 * Takes the directory for `owner` or throws DataDirInUse naming the holder. `:memory:` has nothing to share. A file
 * system without locks (some network mounts) is warned about, not refused.
 */
export function lockDataDir(dataDir: string, owner: DirectoryOwner, warn: (message: string, meta: Record<string, unknown>) => void): DataDirLock {
  if (dataDir === ':memory:') return NO_LOCK;
  ensureDataDir(dataDir, owner.setting);
  const file = lockFilePath(dataDir);
  let db: Database.Database | null = null;
  try {
    // timeout 0: a held lock is refused at once, never waited for.
    db = new Database(file, { timeout: 0, nativeBinding: sqliteAddonPath() ?? undefined });
    // In exclusive locking mode the lock an exclusive transaction takes is kept until the connection closes.
    // No -journal file beside it: the lock writes nothing worth rolling back.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    db?.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw inUse(dataDir, owner);
    warn(`${owner.setting} could not be locked: nothing stops a second process from using it`, { data_dir: dataDir, lock_file: file, error: (error as Error).message });
    return NO_LOCK;
  }
  const holder: LockHolder = { owner: owner.name, pid: process.pid, host: os.hostname(), started_at: new Date().toISOString() };
  writeHolder(dataDir, holder);
  const lockDb = db;
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      removeHolder(dataDir, holder.pid);
      lockDb.close();
    },
  };
}

/**
 * Runs a side's start with the lock taken. A start that fails closes what it said it opened (`opened`, last first),
 * then gives the directory back: nothing of it stays open in a process that goes on (tests, the conformance CLI).
 */
export async function releasedOnFailure<T>(lock: DataDirLock, start: (opened: (close: () => void) => void) => Promise<T>): Promise<T> {
  const closes: (() => void)[] = [];
  try {
    return await start((close) => closes.push(close));
  } catch (error) {
    for (const close of closes.reverse()) {
      try {
        close();
      } catch {
        // The start's own error is the one to report.
      }
    }
    lock.release();
    throw error;
  }
}

function inUse(dataDir: string, owner: DirectoryOwner): DataDirInUse {
  const holder = readHolder(dataDir);
  const who = holder
    ? `a ${holder.owner} (pid ${holder.pid} on ${holder.host}, started ${holder.started_at})`
    : 'another process';
  return new DataDirInUse(
    `${owner.setting} ${dataDir} is in use by ${who}. ${owner.hazard}, so this ${owner.name} does not start: ` +
      `stop the other one, or give this one another ${owner.setting}`,
  );
}

function writeHolder(dataDir: string, holder: LockHolder): void {
  const file = holderFilePath(dataDir);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, `${JSON.stringify(holder)}\n`);
    fs.renameSync(temporary, file);
  } catch {
    // Only the refusal's message reads it; the lock itself is what refuses.
    fs.rmSync(temporary, { force: true });
  }
}

function readHolder(dataDir: string): LockHolder | null {
  try {
    const holder = JSON.parse(fs.readFileSync(holderFilePath(dataDir), 'utf8')) as Partial<LockHolder>;
    return typeof holder.owner === 'string' && typeof holder.pid === 'number' ? (holder as LockHolder) : null;
  } catch {
    return null;
  }
}

function removeHolder(dataDir: string, pid: number): void {
  if (readHolder(dataDir)?.pid === pid) fs.rmSync(holderFilePath(dataDir), { force: true });
}
