// Deleting many rows without stalling the event loop. better-sqlite3 is synchronous: one DELETE of ~140,000 expired
// nonces held the loop 1.2 s (every request, /readyz included, waited). A prune instead runs a statement that
// deletes at most `limit` rows, oldest first through the table's expiry index, each chunk its own (autocommit)
// transaction, and lets the event loop serve what is waiting (setImmediate) before the next chunk, until a chunk
// deletes fewer than `limit` rows.
//
// A chunk statement has the form (the limit its last parameter):
//   DELETE FROM t WHERE rowid IN (SELECT rowid FROM t WHERE expires_at < ? ORDER BY expires_at LIMIT ?)
// or, for a WITHOUT ROWID table, the same over its primary key: WHERE (k1, k2) IN (SELECT k1, k2 FROM t ...).
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Rows one chunk deletes: ~5-10 ms of SQLite for the nonces' and idempotency records' rows. */
export const PRUNE_CHUNK_ROWS = 1000;

/** One chunk: deletes at most `limit` rows; returns how many it deleted. */
export type DeleteChunk = (limit: number) => number;

/**
 * Runs `deleteChunk` until it deletes fewer than `limit` rows, yielding to the event loop between chunks; returns
 * how many rows it deleted in all. `stillOpen` is asked before each chunk after the first (a store closed in
 * between stops the prune, which the next one finishes).
 */
export async function deleteInChunks(deleteChunk: DeleteChunk, options: { limit?: number; stillOpen?: () => boolean } = {}): Promise<number> {
  const limit = options.limit ?? PRUNE_CHUNK_ROWS;
  let total = 0;
  for (;;) {
    const deleted = deleteChunk(limit);
    total += deleted;
    if (deleted < limit) return total;
    await nextTurn();
    if (options.stillOpen && !options.stillOpen()) return total;
  }
}
