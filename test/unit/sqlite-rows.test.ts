import Database from 'better-sqlite3';
import { objectReader } from '../../src/wire/sqlite-rows';

describe('objectReader: object rows built in JavaScript, the same as better-sqlite3 makes them', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, amount REAL, body BLOB, note TEXT);
    INSERT INTO t VALUES (1, 'one', 1.5, x'00ff', NULL), (2, 'two', -2, x'', 'n'), (3, '', 0, NULL, 'é✓')`);
  afterAll(() => db.close());

  const both = (sql: string) => ({ plain: db.prepare(sql), reader: objectReader<Record<string, unknown>>(db.prepare(sql)) });

  it('gives the same members, values, types and order for every row', () => {
    const { plain, reader } = both('SELECT id, name AS label, amount, body, note FROM t ORDER BY id');
    const expected = plain.all() as Record<string, unknown>[];
    const actual = reader.all();
    expect(actual).toEqual(expected);
    expect(actual.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)));
    expect(Buffer.isBuffer(actual[0].body)).toBe(true);
    expect(actual[2].body).toBeNull();
    expect(Object.getPrototypeOf(actual[0])).toBe(Object.prototype);
  });

  it('get answers the first row, or undefined when there is none', () => {
    const { plain, reader } = both('SELECT id, name FROM t WHERE id >= ? ORDER BY id');
    expect(reader.get(2)).toEqual(plain.get(2));
    expect(reader.get(9)).toBeUndefined();
  });

  it('takes named parameters as the statement does', () => {
    const reader = objectReader(db.prepare('SELECT name FROM t WHERE id = @id'));
    expect(reader.get({ id: 1 })).toEqual({ name: 'one' });
  });

  it('keeps the last of two columns with one name, where better-sqlite3 keeps it', () => {
    const { plain, reader } = both('SELECT id AS x, name AS y, amount AS x FROM t WHERE id = 1');
    expect(reader.get()).toEqual(plain.get());
    expect(Object.keys(reader.get() as object)).toEqual(Object.keys(plain.get() as object));
  });

  it('makes a column named __proto__ a member, never the prototype (better-sqlite3 drops it)', () => {
    const reader = objectReader<Record<string, unknown>>(db.prepare(`SELECT body AS "__proto__", id FROM t WHERE id = 1`));
    const row = reader.get() as Record<string, unknown>;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toEqual(Buffer.from([0, 255]));
  });

  it('quotes names that are not identifiers', () => {
    const reader = objectReader(db.prepare(`SELECT id AS "a b", name AS "it's", note AS "x""y\\z" FROM t WHERE id = 2`));
    expect(reader.get()).toEqual({ 'a b': 2, "it's": 'two', 'x"y\\z': 'n' });
  });
});
