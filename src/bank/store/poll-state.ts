// Pull cursors per Connector and the pulled orders that were rejected.
import { Db } from './db';

export class PollStateRepository {
  private readonly getStmt;
  private readonly setStmt;
  private readonly rejectStmt;

  constructor(private readonly db: Db) {
    this.getStmt = db.prepare('SELECT cursor FROM poll_cursors WHERE client_id = ?').pluck();
    this.setStmt = db.prepare(
      `INSERT INTO poll_cursors (client_id, cursor, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (client_id) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at`,
    );
    this.rejectStmt = db.prepare(
      `INSERT OR IGNORE INTO pulled_order_rejections (client_id, reference, fingerprint, reason, payload, at) VALUES (?, ?, ?, ?, ?, ?)`,
    );
  }

  cursor(clientId: string): string | undefined {
    return this.getStmt.get(clientId) as string | undefined;
  }

  setCursor(clientId: string, cursor: string, nowMs: number): void {
    this.setStmt.run(clientId, cursor, nowMs);
  }

  /** Records a rejected pulled order once per distinct payload; true when it is new. */
  reject(clientId: string, reference: string | null, fingerprint: string, reason: string, payload: string, nowMs: number): boolean {
    return this.rejectStmt.run(clientId, reference, fingerprint, reason, payload, nowMs).changes === 1;
  }

  rejections(clientId: string): { reference: string | null; reason: string; at: number }[] {
    return this.db.prepare('SELECT reference, reason, at FROM pulled_order_rejections WHERE client_id = ? ORDER BY id').all(clientId) as {
      reference: string | null;
      reason: string;
      at: number;
    }[];
  }
}
