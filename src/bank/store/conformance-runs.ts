// Conformance runs (migration 7): one row per run, its results as JSON, rewritten as cases finish; and the deletion
// of a run's own orders (references CONF-<run>-…) with everything that hangs off them.
import { Db } from './db';

export interface RunRow {
  id: string;
  clientId: string;
  state: 'running' | 'finished' | 'aborted';
  startedAt: number;
  finishedAt: number | null;
  /** JSON: what the run was asked and found out at its start (cases, window, Connector URL, Bank version). */
  request: string;
  /** JSON: the client orders. */
  clientOrders: string;
  /** JSON: the case results so far. */
  results: string;
  error: string | null;
}

const COLUMNS = `id, client_id AS clientId, state, started_at AS startedAt, finished_at AS finishedAt, request,
  client_orders AS clientOrders, results, error`;

/** Rows of these tables that belong to a client's orders whose reference starts with @prefix. */
const RUN_ORDER_ROWS: readonly [string, string][] = [
  // A message goes only when every status event it carries is the run's (a batch may mix in real orders).
  ['callback_attempts', `callback_id IN (SELECT callback_id FROM status_events WHERE client_id = @clientId AND substr(reference, 1, @length) = @prefix)
    AND callback_id NOT IN (SELECT callback_id FROM status_events WHERE client_id = @clientId AND callback_id IS NOT NULL AND substr(reference, 1, @length) <> @prefix)`],
  ['callbacks', `id IN (SELECT callback_id FROM status_events WHERE client_id = @clientId AND substr(reference, 1, @length) = @prefix)
    AND id NOT IN (SELECT callback_id FROM status_events WHERE client_id = @clientId AND callback_id IS NOT NULL AND substr(reference, 1, @length) <> @prefix)`],
  ['status_events', 'client_id = @clientId AND substr(reference, 1, @length) = @prefix'],
  ['order_status_history', 'client_id = @clientId AND substr(reference, 1, @length) = @prefix'],
  ['orders', 'client_id = @clientId AND substr(reference, 1, @length) = @prefix'],
  ['idempotency_records', 'client_id = @clientId AND substr(reference, 1, @length) = @prefix'],
  ['create_failures', 'client_id = @clientId AND substr(reference, 1, @length) = @prefix'],
];

export class ConformanceRunRepository {
  private readonly insertStmt;
  private readonly resultsStmt;
  private readonly finishStmt;
  private readonly findStmt;
  private readonly listStmt;
  private readonly runningStmt;
  private readonly abortRunningStmt;
  private readonly beyondStmt;
  private readonly deleteStmt;
  private readonly runOrderStmts;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      `INSERT INTO conformance_runs (id, client_id, state, started_at, finished_at, request, client_orders, results, error)
       VALUES (@id, @clientId, @state, @startedAt, @finishedAt, @request, @clientOrders, @results, @error)`,
    );
    this.resultsStmt = db.prepare('UPDATE conformance_runs SET results = ? WHERE id = ?');
    this.finishStmt = db.prepare('UPDATE conformance_runs SET state = ?, finished_at = ?, results = ?, error = ? WHERE id = ?');
    this.findStmt = db.prepare(`SELECT ${COLUMNS} FROM conformance_runs WHERE id = ?`);
    this.listStmt = db.prepare(
      `SELECT ${COLUMNS} FROM conformance_runs WHERE (@clientId IS NULL OR client_id = @clientId)
       AND (@before IS NULL OR started_at < @before OR (started_at = @before AND id < @beforeId))
       ORDER BY started_at DESC, id DESC LIMIT @limit`,
    );
    this.runningStmt = db.prepare(`SELECT ${COLUMNS} FROM conformance_runs WHERE client_id = ? AND state = 'running'`);
    this.abortRunningStmt = db.prepare(`UPDATE conformance_runs SET state = 'aborted', finished_at = ?, error = ? WHERE state = 'running'`);
    this.beyondStmt = db.prepare(`SELECT ${COLUMNS} FROM conformance_runs WHERE state <> 'running' ORDER BY started_at DESC, id DESC LIMIT -1 OFFSET ?`);
    this.deleteStmt = db.prepare('DELETE FROM conformance_runs WHERE id = ?');
    this.runOrderStmts = RUN_ORDER_ROWS.map(([table, where]) => [table, db.prepare(`DELETE FROM ${table} WHERE ${where}`)] as const);
  }

  insert(row: RunRow): void {
    this.insertStmt.run(row);
  }

  saveResults(id: string, results: string): void {
    this.resultsStmt.run(results, id);
  }

  finish(id: string, state: 'finished' | 'aborted', finishedAt: number, results: string, error: string | null): void {
    this.finishStmt.run(state, finishedAt, results, error, id);
  }

  find(id: string): RunRow | undefined {
    return this.findStmt.get(id) as RunRow | undefined;
  }

  /** Newest first; `before` is the position after the last row of the previous page. */
  list(clientId: string | null, before: { startedAt: number; id: string } | null, limit: number): RunRow[] {
    return this.listStmt.all({ clientId, before: before?.startedAt ?? null, beforeId: before?.id ?? null, limit }) as RunRow[];
  }

  running(clientId: string): RunRow | undefined {
    return this.runningStmt.get(clientId) as RunRow | undefined;
  }

  /** After a restart: a run that was going on cannot go on. */
  abortRunning(at: number, error: string): number {
    return this.abortRunningStmt.run(at, error).changes;
  }

  /** The finished runs beyond the newest `keep`. */
  beyond(keep: number): RunRow[] {
    return this.beyondStmt.all(keep) as RunRow[];
  }

  delete(id: string): void {
    this.deleteStmt.run(id);
  }

  /** Deletes a run's orders and what hangs off them; answers the rows deleted per table. Call inside a transaction. */
  deleteRunOrders(clientId: string, prefix: string): Record<string, number> {
    const deleted: Record<string, number> = {};
    for (const [table, statement] of this.runOrderStmts) deleted[table] = statement.run({ clientId, prefix, length: prefix.length }).changes;
    return deleted;
  }
}
