// The Bank's SQLite store: the shared opener with the Bank's own migrations.
import { Db, openDatabase } from '../../wire/sqlite';
import { MIGRATIONS } from './migrations';

export type { Db } from '../../wire/sqlite';
export { schemaVersion, StoreError } from '../../wire/sqlite';

export const LATEST_MIGRATION = Math.max(...MIGRATIONS.map((migration) => migration.version));

export function openBankDatabase(dataDir: string): Db {
  return openDatabase(dataDir, MIGRATIONS);
}
