// Spent nonces per client. A nonce is fresh when it was never seen or its earlier use has expired. `expires_at` is
// the last millisecond at which a request with that nonce could still be accepted (the window is inclusive), so a
// spent nonce counts until it has passed: expired is `expires_at < now`, never `<=`.
import { Db } from './db';
import { deleteInChunks, PRUNE_CHUNK_ROWS } from './chunked-delete';

export class NonceRepository {
  private readonly spendStmt;
  private readonly firstSeenStmt;
  private readonly pruneChunkStmt;

  constructor(private readonly db: Db) {
    // Positional parameters (named ones cost ~1 µs more a spend, issue 15); excluded.first_seen_at is now.
    this.spendStmt = db.prepare(
      `INSERT INTO nonces (client_id, nonce, expires_at, first_seen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (client_id, nonce) DO UPDATE SET expires_at = excluded.expires_at, first_seen_at = excluded.first_seen_at
       WHERE nonces.expires_at < excluded.first_seen_at`,
    );
    this.firstSeenStmt = db.prepare('SELECT first_seen_at FROM nonces WHERE client_id = ? AND nonce = ?').pluck();
    // WITHOUT ROWID: a chunk names its rows by the primary key; the subquery walks nonces_expiry, oldest first.
    this.pruneChunkStmt = db.prepare(
      `DELETE FROM nonces WHERE (client_id, nonce) IN
         (SELECT client_id, nonce FROM nonces WHERE expires_at < ? ORDER BY expires_at LIMIT ?)`,
    );
  }

  /** Records the nonce; false when it was already spent and has not expired. */
  spend(clientId: string, nonce: string, nowMs: number, expiresAt: number): boolean {
    return this.spendStmt.run(clientId, nonce, expiresAt, nowMs).changes === 1;
  }

  /** When a spent nonce was first seen (null for one spent before that was recorded). */
  firstSeenAt(clientId: string, nonce: string): number | null {
    return (this.firstSeenStmt.get(clientId, nonce) as number | null | undefined) ?? null;
  }

  /** Deletes every expired use, `limit` at a time, serving the event loop between chunks (store/chunked-delete.ts). */
  pruneInChunks(nowMs: number, limit = PRUNE_CHUNK_ROWS): Promise<number> {
    return deleteInChunks((chunk) => this.pruneChunkStmt.run(nowMs, chunk).changes, { limit, stillOpen: () => this.db.open });
  }

  /**
   * Each spent nonce's expiry was fixed by the replay window in force when it was spent. A window widened since (a
   * larger TIMESTAMP_WINDOW_S at this start) keeps every spent nonce that much longer, or a request still fresh under
   * the new window could be replayed; a narrower one changes nothing (a nonce kept too long refuses nothing fresh).
   * Returns how many nonces now live longer: 0 unless the window grew.
   */
  followWindow(windowS: number): number {
    return this.db.transaction(() => {
      const stored = this.db.prepare("SELECT value FROM bank_settings WHERE name = 'timestamp_window_s'").pluck().get() as string | undefined;
      if (stored === String(windowS)) return 0;
      const grownMs = stored === undefined ? 0 : (windowS - Number(stored)) * 1000;
      const widened = grownMs > 0 ? this.db.prepare('UPDATE nonces SET expires_at = expires_at + ?').run(grownMs).changes : 0;
      this.db.prepare("INSERT INTO bank_settings (name, value) VALUES ('timestamp_window_s', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value").run(String(windowS));
      return widened;
    })();
  }
}
