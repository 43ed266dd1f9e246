// FAIL_ONCE (profile v1.1 section 8): the references whose first create was failed on purpose. Kept apart from
// orders and idempotency records, which the failed attempt must not touch.
import { Db } from './db';

export class CreateFailureRepository {
  private readonly recordStmt;

  constructor(db: Db) {
    this.recordStmt = db.prepare('INSERT OR IGNORE INTO create_failures (client_id, reference, failed_at) VALUES (?, ?, ?)');
  }

  /** Remembers the failure; true only the first time for this client's reference. */
  recordFirst(clientId: string, reference: string, nowMs: number): boolean {
    return this.recordStmt.run(clientId, reference, nowMs).changes === 1;
  }
}
