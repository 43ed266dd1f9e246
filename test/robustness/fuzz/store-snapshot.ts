// Store snapshots: a rejected request must leave every table but nonces untouched. The journal and the live
// events record every exchange, refused ones included, by design (control-plane.md sections 4 and 6): they are
// the Bank's observation log, not its state, so they (and SQLite's AUTOINCREMENT counters) are left out.
import type { Bank } from '../../../src/bank/bank';

/** Every table but nonces, row by row (BLOBs as hex): a rejected request must leave all of it untouched. */
export function snapshotStore(bank: Bank): string {
  const tables = bank.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('nonces', 'journal', 'journal_refs', 'events', 'sqlite_sequence') ORDER BY name")
    .pluck()
    .all() as string[];
  const dump: Record<string, unknown[]> = {};
  for (const table of tables) {
    dump[table] = bank.db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all().map((row) =>
      Object.fromEntries(Object.entries(row as Record<string, unknown>).map(([key, value]) => [key, Buffer.isBuffer(value) ? value.toString('hex') : value])),
    );
  }
  return JSON.stringify(dump);
}

export function nonceRows(bank: Bank): Set<string> {
  return new Set((bank.db.prepare('SELECT client_id, nonce FROM nonces').all() as { client_id: string; nonce: string }[]).map((row) => `${row.client_id}|${row.nonce}`));
}
