// Group commit. The writes of the signed requests that arrive in one turn of the event loop share one SQLite
// transaction, committed once on setImmediate; each request's writes are a unit of it, and a refused request undoes
// only its own (a savepoint, or for work that refuses only before it changes a row, nothing to undo). Its answer
// waits until the commit (`committed()`): nothing is answered before it is stored. Why: a commit writes every page
// the transaction touched to the WAL, and a create touches about a dozen (order, history, idempotency record, event,
// nonce, their indexes); consecutive creates touch the same right-edge pages, so one commit for a group writes far
// fewer pages than one commit each (issue 15: about 150 µs of SQLite per create alone, about 80 µs in a group of
// ten; bench/README.md).
//
// Everything else keeps its meaning without knowing about groups: any write outside a unit (a statement run, a
// transaction, exec, pragma, close) first commits the open group, then runs as it always did.
import { WalPresync } from '../../wire/sqlite';
import type { Db } from './db';

type Work<T> = () => T;
type Runner = (...args: unknown[]) => unknown;

const groups = new WeakMap<Db, GroupCommit>();

export class GroupCommit {
  private open = false;
  /** True while a unit's work runs: its writes belong to the group. */
  private insideUnit = false;
  /** True once the running unit has changed a row. */
  private unitChanged = false;
  private pending: Promise<void> | null = null;
  private settle: ((error?: unknown) => void) | null = null;
  private readonly begin: { run(): unknown };
  private readonly commit: { run(): unknown };
  private readonly rollback: { run(): unknown };
  /** A transaction function: called inside the group's transaction it is a savepoint. */
  private readonly savepoint: <T>(work: Work<T>) => T;
  private readonly commitSoon = (): void => this.flush();
  private readonly presync: WalPresync;

  constructor(private readonly db: Db) {
    this.begin = db.prepare('BEGIN');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.transaction(<T>(work: Work<T>): T => work()) as <T>(work: Work<T>) => T;
    this.presync = new WalPresync(db);
    interceptWrites(db, {
      before: () => {
        if (this.insideUnit) return;
        if (this.open) this.flush();
        else this.presync.kick();
      },
      changed: () => {
        if (this.insideUnit) this.unitChanged = true;
      },
    });
    const close = db.close.bind(db);
    db.close = () => {
      close();
      this.presync.close();
      return db;
    };
    groups.set(db, this);
  }

  /** True while a unit's work runs. */
  get inUnit(): boolean {
    return this.insideUnit;
  }

  /** True from a group's first unit until its commit. */
  get isOpen(): boolean {
    return this.open;
  }

  /**
   * Runs `work` now, in its own savepoint inside this turn's shared transaction, and answers its result; a throw
   * undoes only its writes. Inside a caller's own transaction it simply joins that one.
   */
  run<T>(work: Work<T>): T {
    return this.unit(work, this.savepoint);
  }

  /**
   * As run, for work that is one SQL statement: SQLite undoes a failed statement by itself and leaves the
   * transaction open, so the statement needs no savepoint of its own (a SAVEPOINT and a RELEASE saved per call).
   */
  runStatement<T>(statement: Work<T>): T {
    return this.unit(statement, (work) => work());
  }

  /**
   * As run, without a savepoint, for work whose refusals all come before it changes a row (a create: an order
   * reference already taken inserts nothing, then refuses). A throw before any change leaves the group as it was.
   * A throw after one (a failing disk, a bug) rolls the whole group back and fails its waiters with 500, as a failed
   * commit does: this unit's changes can no longer be told from the others'. Why: a savepoint makes SQLite copy
   * every page the unit changes into its sub-journal: 3.3 % of a create's CPU (bench/README.md, session 28).
   */
  runRefusingBeforeChanges<T>(work: Work<T>): T {
    return this.unit(work, <U>(inner: Work<U>): U => {
      this.unitChanged = false;
      try {
        return inner();
      } catch (error) {
        if (this.unitChanged && this.open) this.abandon(error);
        throw error;
      }
    });
  }

  /** Resolves once the writes made so far are committed (rejects if that commit fails); null when none wait. */
  committed(): Promise<void> | null {
    return this.open ? this.pending : null;
  }

  /** Commits the open group now. A failed commit rolls it back and fails the requests waiting on it. */
  flush(): void {
    if (!this.open) return;
    const settle = this.endGroup();
    try {
      this.commit.run();
      this.presync.kick();
      settle();
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      settle(error);
    }
  }

  /** Rolls the open group back: its waiters fail with 500 (never with the unit's own problem, which is not theirs). */
  private abandon(cause: unknown): void {
    const settle = this.endGroup();
    if (this.db.inTransaction) this.rollback.run();
    settle(new Error('the group commit was rolled back: a unit failed after changing rows', { cause }));
  }

  /** Marks the group ended (no longer open) and hands back how to settle its waiters. */
  private endGroup(): (error?: unknown) => void {
    const settle = this.settle as (error?: unknown) => void;
    this.open = false;
    this.pending = null;
    this.settle = null;
    return settle;
  }

  /** Runs `work` through `wrap` as a unit of this turn's group (opened if need be), or in the caller's unit or transaction. */
  private unit<T>(work: Work<T>, wrap: <U>(work: Work<U>) => U): T {
    if (this.insideUnit) return work();
    if (!this.open) {
      if (this.db.inTransaction) return wrap(work);
      this.openGroup();
    }
    this.insideUnit = true;
    try {
      return wrap(work);
    } finally {
      this.insideUnit = false;
    }
  }

  private openGroup(): void {
    this.begin.run();
    this.open = true;
    const pending = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Waiters see the failure; no waiter (a unit run outside a request) must not make it an unhandled rejection.
    pending.catch(() => undefined);
    this.pending = pending;
    setImmediate(this.commitSoon);
  }
}

/**
 * Runs `work` in the caller's transaction when there is one (a unit, or a transaction of its own), else in a new
 * transaction, which first commits an open group that the caller is not part of.
 */
export function inTransaction<T>(db: Db, work: Work<T>): T {
  const group = groups.get(db);
  const joins = group ? group.inUnit || (db.inTransaction && !group.isOpen) : db.inTransaction;
  return joins ? work() : db.transaction(work)();
}

interface WriteHooks {
  /** Ahead of every write: a statement that is not read-only, a transaction, exec, pragma, close. */
  before(): void;
  /** When a write may have changed a row: after a run that changed one; at any other write, before it runs. */
  changed(): void;
}

/** Calls `hooks.before` ahead of every write, and `hooks.changed` after one that may have changed a row. */
function interceptWrites(db: Db, hooks: WriteHooks): void {
  const { before: beforeWrite, changed } = hooks;
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    if (!statement.readonly) {
      const methods = statement as unknown as Record<'run' | 'get' | 'all' | 'iterate', Runner>;
      const run = methods.run;
      methods.run = function (this: unknown, ...args: unknown[]) {
        beforeWrite();
        const result = run.apply(this, args) as { changes: number };
        if (result.changes > 0) changed();
        return result;
      };
      for (const name of ['get', 'all', 'iterate'] as const) {
        const original = methods[name];
        methods[name] = function (this: unknown, ...args: unknown[]) {
          beforeWrite();
          changed();
          return original.apply(this, args);
        };
      }
    }
    return statement;
  }) as Db['prepare'];
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: Runner) => {
    const inner = transaction(fn) as unknown as Record<'deferred' | 'immediate' | 'exclusive', Runner> & Runner;
    const outer = function (this: unknown, ...args: unknown[]) {
      beforeWrite();
      changed();
      return inner.apply(this, args);
    } as Runner & Record<string, unknown>;
    for (const mode of ['deferred', 'immediate', 'exclusive'] as const) {
      outer[mode] = function (this: unknown, ...args: unknown[]) {
        beforeWrite();
        changed();
        return inner[mode].apply(this, args);
      };
    }
    outer.default = outer;
    outer.database = db;
    return outer;
  }) as unknown as Db['transaction'];
  for (const name of ['exec', 'pragma', 'close', 'backup', 'serialize'] as const) {
    const original = (db as unknown as Record<string, Runner>)[name].bind(db);
    (db as unknown as Record<string, Runner>)[name] = (...args: unknown[]) => {
      beforeWrite();
      changed();
      return original(...args);
    };
  }
}
