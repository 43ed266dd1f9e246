// Group commit (store/group-commit.ts): units of one turn share a transaction committed on setImmediate, each unit
// undoes only its own writes, and any other write commits the open group first. A second connection shows what is
// committed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { GroupCommit, inTransaction } from '../../src/bank/store/group-commit';

type Db = Database.Database;

function open(): { db: Db; reader: Db; group: GroupCommit; close(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
  const file = path.join(dir, 'test.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE items (name TEXT PRIMARY KEY)`);
  const group = new GroupCommit(db);
  const reader = new Database(file, { readonly: true });
  return {
    db, reader, group, close: () => {
      reader.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const committedNames = (reader: Db): string[] => reader.prepare('SELECT name FROM items ORDER BY name').pluck().all() as string[];

describe('group commit', () => {
  let store: ReturnType<typeof open>;
  let insert: Database.Statement;
  beforeEach(() => {
    store = open();
    insert = store.db.prepare('INSERT INTO items (name) VALUES (?)');
  });
  afterEach(() => store.close());

  it('commits the units of one turn together, once, after they ran', async () => {
    store.group.run(() => insert.run('a'));
    store.group.run(() => insert.run('b'));
    expect(committedNames(store.reader)).toEqual([]);
    // The writing connection sees its own group at once.
    expect(store.db.prepare('SELECT COUNT(*) FROM items').pluck().get()).toBe(2);
    const pending = store.group.committed();
    expect(pending).not.toBeNull();
    await pending;
    expect(committedNames(store.reader)).toEqual(['a', 'b']);
    expect(store.group.committed()).toBeNull();
    expect(store.db.inTransaction).toBe(false);
  });

  it('undoes only the writes of a unit that throws', async () => {
    store.group.run(() => insert.run('kept'));
    expect(() => store.group.run(() => {
      insert.run('undone');
      throw new Error('refused');
    })).toThrow('refused');
    await store.group.committed();
    expect(committedNames(store.reader)).toEqual(['kept']);
  });

  it('a statement unit joins the group without a savepoint; a failing statement undoes only itself', async () => {
    store.group.run(() => insert.run('first'));
    expect(store.group.runStatement(() => insert.run('second').changes)).toBe(1);
    // A duplicate key fails the statement alone: the group's transaction and its other writes stay.
    expect(() => store.group.runStatement(() => insert.run('first'))).toThrow(/UNIQUE/);
    expect(store.db.inTransaction).toBe(true);
    store.group.runStatement(() => insert.run('third'));
    expect(committedNames(store.reader)).toEqual([]);
    await store.group.committed();
    expect(committedNames(store.reader)).toEqual(['first', 'second', 'third']);
  });

  it('a statement unit opens a group of its own, and joins a caller’s transaction or unit', async () => {
    store.group.runStatement(() => insert.run('alone'));
    expect(store.group.isOpen).toBe(true);
    await store.group.committed();
    expect(committedNames(store.reader)).toEqual(['alone']);
    store.db.transaction(() => store.group.runStatement(() => insert.run('in a transaction')))();
    expect(store.group.isOpen).toBe(false);
    store.group.run(() => store.group.runStatement(() => insert.run('in a unit')));
    await store.group.committed();
    expect(committedNames(store.reader)).toEqual(['alone', 'in a transaction', 'in a unit']);
  });

  it('answers the result of the work', () => {
    expect(store.group.run(() => insert.run('x').changes)).toBe(1);
  });

  it('commits the open group before a statement run outside a unit', () => {
    store.group.run(() => insert.run('grouped'));
    insert.run('alone');
    expect(committedNames(store.reader)).toEqual(['alone', 'grouped']);
    expect(store.group.committed()).toBeNull();
  });

  it('commits the open group before a transaction, exec or pragma outside a unit', () => {
    store.group.run(() => insert.run('g1'));
    store.db.transaction(() => insert.run('t1'))();
    expect(committedNames(store.reader)).toEqual(['g1', 't1']);
    store.group.run(() => insert.run('g2'));
    store.db.exec("INSERT INTO items (name) VALUES ('e1')");
    expect(committedNames(store.reader)).toEqual(['e1', 'g1', 'g2', 't1']);
    store.group.run(() => insert.run('g3'));
    store.db.pragma('user_version = 3');
    expect(committedNames(store.reader)).toContain('g3');
  });

  it('keeps the transaction variants of db.transaction', () => {
    store.group.run(() => insert.run('g'));
    store.db.transaction(() => insert.run('i')).immediate();
    expect(committedNames(store.reader)).toEqual(['g', 'i']);
  });

  it('joins the caller’s own transaction instead of opening a group inside it', () => {
    store.db.transaction(() => {
      store.group.run(() => insert.run('inside'));
      expect(store.group.committed()).toBeNull();
    })();
    expect(committedNames(store.reader)).toEqual(['inside']);
  });

  it('inTransaction joins a unit, and outside one commits the group before its own transaction', async () => {
    store.group.run(() => inTransaction(store.db, () => insert.run('in-unit')));
    expect(committedNames(store.reader)).toEqual([]);
    inTransaction(store.db, () => insert.run('own'));
    expect(committedNames(store.reader)).toEqual(['in-unit', 'own']);
  });

  it('a unit inside a unit joins it', async () => {
    store.group.run(() => {
      insert.run('outer');
      store.group.run(() => insert.run('inner'));
    });
    await store.group.committed();
    expect(committedNames(store.reader)).toEqual(['inner', 'outer']);
  });

  /** Makes the group's next COMMIT fail as a full disk would, once. */
  function failNextCommit(group: GroupCommit): void {
    const inner = group as unknown as { commit: { run(): unknown } };
    const real = inner.commit;
    inner.commit = {
      run() {
        inner.commit = real;
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      },
    };
  }

  it('a failed commit rolls the group back and fails its waiters', async () => {
    store.group.run(() => insert.run('lost-with-the-group'));
    store.group.run(() => insert.run('lost-too'));
    failNextCommit(store.group);
    await expect(store.group.committed()).rejects.toThrow('database or disk is full');
    expect(store.db.inTransaction).toBe(false);
    expect(committedNames(store.reader)).toEqual([]);
    expect(store.db.prepare('SELECT COUNT(*) FROM items').pluck().get()).toBe(0);
    // The next group works.
    store.group.run(() => insert.run('next'));
    await store.group.committed();
    expect(committedNames(store.reader)).toEqual(['next']);
  });

  it('a failed commit with no waiter is not an unhandled rejection', async () => {
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      store.group.run(() => insert.run('unwaited'));
      failNextCommit(store.group);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
      expect(store.db.inTransaction).toBe(false);
      expect(committedNames(store.reader)).toEqual([]);
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  describe('a unit that refuses only before it changes a row (no savepoint)', () => {
    const insertOrIgnore = () => store.db.prepare('INSERT INTO items (name) VALUES (?) ON CONFLICT (name) DO NOTHING');

    it('joins the group and commits with it', async () => {
      store.group.run(() => insert.run('with-a-savepoint'));
      expect(store.group.runRefusingBeforeChanges(() => insert.run('without').changes)).toBe(1);
      expect(committedNames(store.reader)).toEqual([]);
      await store.group.committed();
      expect(committedNames(store.reader)).toEqual(['with-a-savepoint', 'without']);
    });

    it('a refusal before any change leaves the group and its other units as they were', async () => {
      store.group.runRefusingBeforeChanges(() => insert.run('taken'));
      const ignore = insertOrIgnore();
      // As a create whose reference is taken: the statement runs, changes nothing, then the unit refuses.
      expect(() => store.group.runRefusingBeforeChanges(() => {
        if (ignore.run('taken').changes === 0) throw new Error('duplicate');
      })).toThrow('duplicate');
      // A failing statement is undone by SQLite alone.
      expect(() => store.group.runRefusingBeforeChanges(() => insert.run('taken'))).toThrow(/UNIQUE/);
      expect(store.group.isOpen).toBe(true);
      store.group.runRefusingBeforeChanges(() => insert.run('after'));
      await store.group.committed();
      expect(committedNames(store.reader)).toEqual(['after', 'taken']);
    });

    it('a throw after a change rolls the whole group back and fails its waiters with an error of their own', async () => {
      store.group.runRefusingBeforeChanges(() => insert.run('a-neighbour'));
      const waiting = store.group.committed();
      const refusal = new Error('the unit’s own refusal');
      expect(() => store.group.runRefusingBeforeChanges(() => {
        insert.run('half-done');
        throw refusal;
      })).toThrow(refusal);
      expect(store.group.isOpen).toBe(false);
      expect(store.db.inTransaction).toBe(false);
      const failure = await (waiting as Promise<void>).then(() => null, (error: Error) => error);
      expect(failure).not.toBe(refusal);
      expect(failure?.message).toMatch(/rolled back/);
      expect((failure as Error & { cause?: unknown }).cause).toBe(refusal);
      expect(store.db.prepare('SELECT COUNT(*) FROM items').pluck().get()).toBe(0);
      // The next group works, and the first group's own setImmediate does not commit it early or twice.
      store.group.runRefusingBeforeChanges(() => insert.run('next'));
      await store.group.committed();
      expect(committedNames(store.reader)).toEqual(['next']);
    });

    it('counts a write through a transaction or exec inside it as a change', () => {
      store.group.runRefusingBeforeChanges(() => insert.run('first'));
      expect(() => store.group.runRefusingBeforeChanges(() => {
        store.db.exec("INSERT INTO items (name) VALUES ('by-exec')");
        throw new Error('after exec');
      })).toThrow('after exec');
      expect(store.group.isOpen).toBe(false);
      expect(store.db.prepare('SELECT COUNT(*) FROM items').pluck().get()).toBe(0);
    });

    it('inside a caller’s own transaction it joins it, and the caller undoes it', () => {
      expect(() => store.db.transaction(() => {
        insert.run('outer');
        store.group.runRefusingBeforeChanges(() => {
          insert.run('inner');
          throw new Error('refused');
        });
      })()).toThrow('refused');
      expect(store.group.isOpen).toBe(false);
      expect(committedNames(store.reader)).toEqual([]);
    });
  });

  it('closing the database commits the open group first', () => {
    store.group.run(() => insert.run('before-close'));
    const file = store.db.name;
    store.reader.close();
    store.db.close();
    const again = new Database(file, { readonly: true });
    expect(committedNames(again)).toEqual(['before-close']);
    again.close();
    store = { ...store, close: () => undefined };
  });
});
