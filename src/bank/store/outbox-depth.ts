// How much the outbox holds, for /metrics: read on each scrape, so it must stay cheap however large the tables
// grow. Both counts scan only a partial index (of the queued reports, of the pending messages); the oldest row is
// the one with the smallest id among them, found in the same index, then read by its key. Rows of clients deleted at
// run time are not counted: they stay (readable, until a reset) but nothing will send them, and counted they made
// the oldest age grow for ever (the stuck-outbox alert of docs/operations.md fired from one such client on).
import type { Statement } from 'better-sqlite3';
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
  private readonly anyDeletedStmt;
  private readonly counts: Record<'queued' | 'pending', { all: Statement; live: Statement; row: Statement }>;

  constructor(readonly db: Db) {
    this.anyDeletedStmt = db.prepare('SELECT EXISTS (SELECT 1 FROM clients WHERE deleted_at IS NOT NULL)').pluck();
    // Filtering by client reads each waiting row (~7x the covering count: 22 ms for 100,000 pending messages), so
    // it runs only once some client has been deleted.
    const live = 'AND client_id NOT IN (SELECT client_id FROM clients WHERE deleted_at IS NOT NULL)';
    const counted = (table: string, state: string) => ({
      all: db.prepare(`SELECT COUNT(*) AS count, MIN(id) AS oldestId FROM ${table} WHERE state = '${state}'`),
      live: db.prepare(`SELECT COUNT(*) AS count, MIN(id) AS oldestId FROM ${table} WHERE state = '${state}' ${live}`),
      row: db.prepare(`SELECT client_id AS clientId, created_at AS createdAt FROM ${table} WHERE id = ?`),
    });
    this.counts = { queued: counted('status_events', 'queued'), pending: counted('callbacks', 'pending') };
  }

  /** Reports (`status_events`) not yet built into a message. */
  queuedReports(): OutboxBacklog {
    return this.backlog('queued');
  }

  /** Messages (`callbacks`) waiting for their first delivery or a retry. */
  pendingMessages(): OutboxBacklog {
    return this.backlog('pending');
  }

  private backlog(state: 'queued' | 'pending'): OutboxBacklog {
    const statements = this.counts[state];
    const row = (this.anyDeletedStmt.get() ? statements.live : statements.all).get() as CountRow;
    if (row.oldestId === null) return { count: row.count, oldest: null };
    const oldest = statements.row.get(row.oldestId) as { clientId: string; createdAt: number } | undefined;
    return { count: row.count, oldest: oldest ?? null };
  }
}
