// The store holds the Bank's signing private key (bank_keys), so its files are 0600 like the dev PKI's keys
// (docs/operations.md, "The data directory"): made so on a fresh data dir whatever the umask, tightened on an
// existing one, and a file whose mode cannot be changed (a read-only mount) is warned about, not refused.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openBankDatabase, restrictStoreFiles } from '../../src/bank/store/db';
import { databasePath } from '../../src/wire/sqlite';
import { startBank, tempDir } from '../helpers/bank';

const posixModes = process.platform !== 'win32';
const itPosix = posixModes ? it : it.skip;

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;
const storeFiles = (dataDir: string) => ['', '-wal', '-shm'].map((suffix) => `${databasePath(dataDir)}${suffix}`);

describe('the store files\' mode', () => {
  let umask: number;
  beforeAll(() => {
    // The usual umask, which made them 0644 before.
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
  });

  itPosix('is 0600 on a fresh data dir, for the database, its -wal and its -shm', async () => {
    const bank = await startBank();
    try {
      bank.db.exec('CREATE TABLE IF NOT EXISTS mode_probe (x)');
      for (const file of storeFiles(bank.config.dataDir)) expect([file, modeOf(file).toString(8)]).toEqual([file, '600']);
    } finally {
      bank.close();
    }
  });

  itPosix('is tightened to 0600 on an existing data dir, -wal and -shm left by another connection included', async () => {
    const dataDir = tempDir('store-mode-existing-');
    const first = await startBank({ dataDir });
    first.close();
    const file = databasePath(dataDir);
    fs.chmodSync(file, 0o644);
    // A connection that is still open keeps the -wal and -shm (a Bank killed mid-run leaves them too).
    const other = new Database(file);
    try {
      other.pragma('journal_mode = WAL');
      other.exec('CREATE TABLE IF NOT EXISTS mode_probe (x)');
      for (const target of storeFiles(dataDir)) fs.chmodSync(target, 0o644);
      const bank = await startBank({ dataDir });
      try {
        for (const target of storeFiles(dataDir)) expect([target, modeOf(target).toString(8)]).toEqual([target, '600']);
      } finally {
        bank.close();
      }
    } finally {
      other.close();
    }
  });

  itPosix('keeps a mode stricter than 0600 as it is', () => {
    const dataDir = tempDir('store-mode-strict-');
    fs.writeFileSync(databasePath(dataDir), '', { mode: 0o400 });
    restrictStoreFiles(dataDir);
    expect(modeOf(databasePath(dataDir)).toString(8)).toBe('400');
  });

  itPosix('warns, and opens the store all the same, when the mode cannot be changed (a read-only mount)', () => {
    const dataDir = tempDir('store-mode-readonly-');
    const db = openBankDatabase(dataDir);
    db.close();
    fs.chmodSync(databasePath(dataDir), 0o644);
    const warnings: unknown[][] = [];
    const chmod = jest.spyOn(fs, 'chmodSync').mockImplementation(() => {
      throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
    });
    try {
      const reopened = openBankDatabase(dataDir, { warn: (...args) => warnings.push(args) });
      reopened.close();
    } finally {
      chmod.mockRestore();
    }
    expect(warnings).toEqual([
      ['cannot restrict the store file to its owner; it holds the signing private key', { file: databasePath(dataDir), mode: '0644', error: 'EROFS' }],
    ]);
  });

  itPosix('warns by a process warning when no one is told', () => {
    const dataDir = tempDir('store-mode-readonly-');
    fs.writeFileSync(databasePath(dataDir), '', { mode: 0o644 });
    const chmod = jest.spyOn(fs, 'chmodSync').mockImplementation(() => {
      throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
    });
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      restrictStoreFiles(dataDir);
      expect(warn.mock.calls).toEqual([[expect.stringContaining(`"file":${JSON.stringify(databasePath(dataDir))}`), { code: 'SANDBOX_BANK_STORE_MODE' }]]);
    } finally {
      warn.mockRestore();
      chmod.mockRestore();
    }
  });

  it('has no file to restrict with DATA_DIR=:memory:', () => {
    const before = fs.existsSync(path.resolve(':memory:'));
    const db = openBankDatabase(':memory:');
    db.close();
    expect(fs.existsSync(path.resolve(':memory:'))).toBe(before);
  });
});
