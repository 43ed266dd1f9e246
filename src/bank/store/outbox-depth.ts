// How much the outbox holds, for /metrics: read on each scrape, so it must stay cheap however large the tables
// grow. Both counts scan only a partial index (of the queued reports, of the pending messages); the oldest row is
// the one with the smallest id among them, found in the same index, then read by its key.
import { Db } from './db';

export interface OutboxBacklog {
  count: number;
  /** The oldest row still waiting (smallest id), or null when none waits. */
  oldest: { clientId: string; createdAt: number } | null;
}

interface CountRow {
  count: number;
  oldestId: number | null;
}

export class OutboxDepthRepository {
  private readonly queuedStmt;
  private readonly queuedRowStmt;
  private readonly pendingStmt;
  private readonly pendingRowStmt;

  constructor(readonly db: Db) {
    this.queuedStmt = db.prepare(`SELECT COUNT(*) AS count, MIN(id) AS oldestId FROM status_events WHERE state = 'queued'`);
    this.queuedRowStmt = db.prepare('SELECT client_id AS clientId, created_at AS createdAt FROM status_events WHERE id = ?');
    this.pendingStmt = db.prepare(`SELECT COUNT(*) AS count, MIN(id) AS oldestId FROM callbacks WHERE state = 'pending'`);
    this.pendingRowStmt = db.prepare('SELECT client_id AS clientId, created_at AS createdAt FROM callbacks WHERE id = ?');
  }

  /** Reports (`status_events`) not yet built into a message. */
  queuedReports(): OutboxBacklog {
    return this.backlog(this.queuedStmt.get() as CountRow, this.queuedRowStmt);
  }

  /** Messages (`callbacks`) waiting for their first delivery or a retry. */
  pendingMessages(): OutboxBacklog {
    return this.backlog(this.pendingStmt.get() as CountRow, this.pendingRowStmt);
  }

  private backlog(row: CountRow, oldestStmt: { get(id: number): unknown }): OutboxBacklog {
    if (row.oldestId === null) return { count: row.count, oldest: null };
    const oldest = oldestStmt.get(row.oldestId) as { clientId: string; createdAt: number } | undefined;
    return { count: row.count, oldest: oldest ?? null };
  }
}
