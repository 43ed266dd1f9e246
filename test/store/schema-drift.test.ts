// Migration 15 brings stores that builds between two changed migrations left behind to the schema of a fresh store:
// migration 6 gained orders_due_by_client after it shipped, and migration 14 first made bank_settings WITHOUT ROWID.
// Found by an upgrade audit: such stores reported the latest schema_version without the latest schema.
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/bank/store/migrations';
import { migrate } from '../../src/wire/sqlite';

/** Every table, index and column of a store, without the SQL text (a rebuilt table's text differs in quoting). */
function schemaOf(db: Database.Database): unknown {
  const objects = db.prepare("SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all() as { type: string; name: string }[];
  return objects.map((object) => ({
    ...object,
    columns: object.type === 'table' ? db.prepare(`PRAGMA table_xinfo(${JSON.stringify(object.name)})`).all() : undefined,
    withoutRowid: object.type === 'table' ? /WITHOUT\s+ROWID/i.test(db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(object.name) as string) : undefined,
  }));
}

describe('migration 15', () => {
  it('gives a store migrated by the builds in between the index and the table of a fresh store, keeping its settings', () => {
    const fresh = new Database(':memory:');
    migrate(fresh, MIGRATIONS);

    const drifted = new Database(':memory:');
    migrate(drifted, MIGRATIONS.filter((migration) => migration.version <= 14));
    drifted.exec(`
      DROP INDEX orders_due_by_client;
      DROP TABLE bank_settings;
      CREATE TABLE bank_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO bank_settings VALUES ('timestamp_window_s', '300');
    `);
    migrate(drifted, MIGRATIONS);

    expect(schemaOf(drifted)).toEqual(schemaOf(fresh));
    expect(drifted.prepare('SELECT name, value FROM bank_settings').all()).toEqual([{ name: 'timestamp_window_s', value: '300' }]);
    fresh.close();
    drifted.close();
  });
});
