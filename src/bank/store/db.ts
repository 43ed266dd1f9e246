// The Bank's SQLite store: the shared opener with the Bank's own migrations.
import fs from 'node:fs';
import { databasePath, Db, ensureDataDir, openDatabase } from '../../wire/sqlite';
import { MIGRATIONS } from './migrations';

export type { Db } from '../../wire/sqlite';
export { schemaVersion, StoreError } from '../../wire/sqlite';

export const LATEST_MIGRATION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** The mode of the store's files: they hold the Bank's signing private key (bank_keys), so its owner's alone, like the dev PKI's keys. */
export const STORE_FILE_MODE = 0o600;

/** Told when an existing store file cannot be made STORE_FILE_MODE (a read-only mount, another owner's file). */
export type StoreModeWarning = (message: string, meta: Record<string, unknown>) => void;

function warnByProcess(message: string, meta: Record<string, unknown>): void {
  process.emitWarning(`${message} ${JSON.stringify(meta)}`, { code: 'SANDBOX_BANK_STORE_MODE' });
}

/**
 * Makes the store's files STORE_FILE_MODE before SQLite opens them. A new store: the main file is created empty,
 * 0600 (SQLite takes an empty file for a new database), and SQLite gives the -wal and -shm it creates the main
 * file's mode. An existing store: group and other lose their access to each of the three files there. A file
 * whose mode cannot be changed is warned about, not refused: opening it then fails or not, as before.
 */
export function restrictStoreFiles(dataDir: string, warn: StoreModeWarning = warnByProcess): void {
  if (dataDir === ':memory:') return;
  ensureDataDir(dataDir);
  const file = databasePath(dataDir);
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, STORE_FILE_MODE));
    return;
  } catch {
    // It exists (EEXIST), or cannot be created: SQLite's own open says why, with DATA_DIR.
  }
  for (const target of [file, `${file}-wal`, `${file}-shm`]) {
    let mode: number;
    try {
      mode = fs.statSync(target).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      fs.chmodSync(target, mode & ~0o077);
    } catch (error) {
      warn('cannot restrict the store file to its owner; it holds the signing private key', {
        file: target,
        mode: `0${mode.toString(8)}`,
        error: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
      });
    }
  }
}

export function openBankDatabase(dataDir: string, options: { warn?: StoreModeWarning } = {}): Db {
  restrictStoreFiles(dataDir, options.warn);
  return openDatabase(dataDir, MIGRATIONS);
}
