// Spent nonces per client. A nonce is fresh when it was never seen or its earlier use has expired.
import { Db } from './db';

export class NonceRepository {
  private readonly spendStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.spendStmt = db.prepare(
      `INSERT INTO nonces (client_id, nonce, expires_at) VALUES (@clientId, @nonce, @expiresAt)
       ON CONFLICT (client_id, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= @nowMs`,
    );
    this.pruneStmt = db.prepare('DELETE FROM nonces WHERE expires_at <= ?');
  }

  /** Records the nonce; false when it was already spent and has not expired. */
  spend(clientId: string, nonce: string, nowMs: number, expiresAt: number): boolean {
    return this.spendStmt.run({ clientId, nonce, nowMs, expiresAt }).changes === 1;
  }

  prune(nowMs: number): number {
    return this.pruneStmt.run(nowMs).changes;
  }
}
