// wire/sqlite.ts WalPresync: the WAL synced in the background while the store writes, so that a checkpoint does
// not wait for the whole WAL to reach the disk (issue 15). At most one sync at a time, one every WAL_PRESYNC_MS,
// its file let go with the store; and the group commit kicks it after each commit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { itWithProc, openFiles } from '../helpers/open-files';
import { GroupCommit } from '../../src/bank/store/group-commit';
import { Db, openDatabase, WAL_PRESYNC_MS, WalPresync } from '../../src/wire/sqlite';

const MIGRATIONS = [{ version: 1, name: 'one table', sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)' }];

/** The files under `dir` this process holds open. */
const openFilesUnder = (dir: string): string[] => openFiles().filter((target) => target.startsWith(dir));

describe('WalPresync', () => {
  let dir: string;
  let syncs: jest.SpyInstance;
  /** Each sync held back: calling it runs the real sync and resolves once its callback has run. */
  let finished: Array<() => Promise<void>>;
  /** The clock the presync reads (performance.now), moved by the tests: no test waits on real time. */
  let now: number;
  let clock: jest.SpyInstance;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wal-presync-'));
    finished = [];
    now = 1_000;
    clock = jest.spyOn(performance, 'now').mockImplementation(() => now);
    const realSync = fs.fdatasync;
    syncs = jest.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
      finished.push(() => new Promise((resolve) => realSync(fd, (error) => resolve(done(error)))));
    }) as typeof fs.fdatasync);
  });
  afterEach(() => {
    syncs.mockRestore();
    clock.mockRestore();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Lets every sync held back run, and waits until each has called back (however slow the disk). */
  const settleAll = async () => {
    while (finished.length) await finished.shift()?.();
  };

  itWithProc('syncs the WAL file, one sync at a time and at most one every WAL_PRESYNC_MS', async () => {
    const db = openDatabase(dir, MIGRATIONS);
    const presync = new WalPresync(db);
    try {
      presync.kick();
      expect(syncs).toHaveBeenCalledTimes(1);
      const fd = syncs.mock.calls[0][0] as number;
      expect(fs.readlinkSync(`/proc/self/fd/${fd}`)).toBe(path.join(fs.realpathSync(dir), 'sandbox-bank.sqlite-wal'));
      now += WAL_PRESYNC_MS;
      presync.kick();
      expect(syncs).toHaveBeenCalledTimes(1); // the first one has not ended
      await settleAll();
      presync.kick();
      expect(syncs).toHaveBeenCalledTimes(2);
      await settleAll();
      now += WAL_PRESYNC_MS - 1;
      presync.kick();
      expect(syncs).toHaveBeenCalledTimes(2); // ended, but started less than WAL_PRESYNC_MS ago
      now += 1;
      presync.kick();
      expect(syncs).toHaveBeenCalledTimes(3);
      await settleAll();
    } finally {
      presync.close();
      db.close();
    }
  });

  itWithProc('lets its file go on close, once a sync under way has ended, and syncs no more', async () => {
    const real = fs.realpathSync(dir);
    const db = openDatabase(dir, MIGRATIONS);
    db.close();
    expect(openFilesUnder(real)).toEqual([]);
    // A WAL file as a store leaves it while open; the presync holds it alone here.
    fs.writeFileSync(path.join(dir, 'sandbox-bank.sqlite-wal'), '');
    const presync = new WalPresync({ memory: false, name: path.join(dir, 'sandbox-bank.sqlite') } as unknown as Db);
    presync.kick();
    expect(openFilesUnder(real)).toHaveLength(1);
    presync.close();
    expect(openFilesUnder(real)).toHaveLength(1); // its sync is still under way
    await settleAll();
    expect(openFilesUnder(real)).toEqual([]);
    now += WAL_PRESYNC_MS;
    presync.kick();
    expect(syncs).toHaveBeenCalledTimes(1);
  });

  it('does nothing for a store in memory', () => {
    const db = openDatabase(':memory:', MIGRATIONS);
    const presync = new WalPresync(db);
    presync.kick();
    presync.close();
    db.close();
    expect(syncs).not.toHaveBeenCalled();
  });

  it('stops after a failed sync', async () => {
    const db = openDatabase(dir, MIGRATIONS);
    const presync = new WalPresync(db);
    try {
      syncs.mockImplementation(((_fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
        finished.push(async () => done(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
      }) as typeof fs.fdatasync);
      presync.kick();
      await settleAll();
      now += WAL_PRESYNC_MS;
      presync.kick();
      expect(syncs).toHaveBeenCalledTimes(1);
    } finally {
      presync.close();
      db.close();
    }
  });

  itWithProc('is kicked by the group commit after its commit, and closed with the store', async () => {
    const real = fs.realpathSync(dir);
    const db = openDatabase(dir, MIGRATIONS);
    const group = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    group.run(() => insert.run('a'));
    expect(syncs).not.toHaveBeenCalled(); // the group is open: nothing is committed yet
    await group.committed();
    expect(syncs).toHaveBeenCalledTimes(1);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(1);
    await settleAll();
    db.close();
    expect(openFilesUnder(real)).toEqual([]);
  });
});
