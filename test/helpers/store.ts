// A fresh in-memory Bank store for each test of a store module: migrated, with the repository under test over it.
import Database from 'better-sqlite3';
import { migrate } from '../../src/wire/sqlite';
import { MIGRATIONS } from '../../src/bank/store/migrations';

/** Registers the hooks: before each test a new migrated database and `make`'s repository; after it, closes it. */
export function freshStore<T>(make: (db: Database.Database) => T): { db: () => Database.Database; repo: () => T } {
  let db: Database.Database;
  let repo: T;
  beforeEach(() => {
    db = new Database(':memory:');
    migrate(db, MIGRATIONS);
    repo = make(db);
  });
  afterEach(() => db.close());
  return { db: () => db, repo: () => repo };
}
