// Object rows built in JavaScript. better-sqlite3 makes an object row one property at a time through V8's API; the
// raw row (an array) and an object literal of the same shape cost about half of that (issue 15, bench/README.md:
// 2.0 against 1.0 µs a row of ten columns). Used for the reads on the hot paths: a status poll's order, the
// outbox's queued reports, the due callback messages.
import type { Statement } from 'better-sqlite3';

export interface ObjectReader<T> {
  /** The first row as an object, as Statement.get gives it; undefined when there is none. */
  get(...params: unknown[]): T | undefined;
  /** Every row as an object, as Statement.all gives them. */
  all(...params: unknown[]): T[];
}

/**
 * Reads `statement`'s rows as objects keyed by its result column names (their `AS` names), exactly as better-sqlite3
 * would, duplicates included (the last column of a name wins; a column named __proto__ is an own member, which
 * better-sqlite3 drops). Switches the statement to raw rows for good.
 */
export function objectReader<T>(statement: Statement): ObjectReader<T> {
  const shape = rowShape<T>(statement.columns().map((column) => column.name));
  statement.raw(true);
  return {
    get(...params: unknown[]): T | undefined {
      const row = statement.get(...params) as unknown[] | undefined;
      return row === undefined ? undefined : shape(row);
    },
    all(...params: unknown[]): T[] {
      const rows = statement.all(...params) as unknown[][];
      const out = new Array<T>(rows.length);
      for (let index = 0; index < rows.length; index += 1) out[index] = shape(rows[index]);
      return out;
    },
  };
}

/** A function making an object literal of one fixed shape from a raw row: every row shares one hidden class. */
function rowShape<T>(names: readonly string[]): (row: unknown[]) => T {
  // `__proto__: value` in a literal would set the prototype; as a computed key it is an own member.
  const key = (name: string): string => (name === '__proto__' ? `["__proto__"]` : JSON.stringify(name));
  const members = names.map((name, index) => `${key(name)}: row[${index}]`).join(', ');
  return new Function('row', `return { ${members} };`) as (row: unknown[]) => T;
}
