// The live events table (control-plane.md section 6): one row per event, newest kept, ids increasing.
import { Db } from './db';

export interface EventRow {
  id: number;
  at: number;
  type: string;
  clientId: string | null;
  /** JSON text. */
  data: string;
}

const COLUMNS = 'id, at, type, client_id AS clientId, data';

export class EventRepository {
  private readonly insertStmt;
  private readonly afterStmt;
  private readonly afterForClientStmt;
  private readonly pruneStmt;
  private readonly lastIdStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare('INSERT INTO events (at, type, client_id, data) VALUES (?, ?, ?, ?)');
    this.afterStmt = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id > ? ORDER BY id LIMIT ?`);
    this.afterForClientStmt = db.prepare(`SELECT ${COLUMNS} FROM events WHERE id > ? AND client_id = ? ORDER BY id LIMIT ?`);
    this.pruneStmt = db.prepare('DELETE FROM events WHERE id <= ?');
    this.lastIdStmt = db.prepare('SELECT COALESCE(MAX(id), 0) FROM events').pluck();
  }

  /** Inserts one event (joins the caller's transaction when one is open); returns its id. */
  insert(at: number, type: string, clientId: string | null, data: string): number {
    return Number(this.insertStmt.run(at, type, clientId, data).lastInsertRowid);
  }

  /** Committed events after `id`, oldest first; of one client when `clientId` is given. */
  after(id: number, limit: number, clientId: string | null = null): EventRow[] {
    return (clientId === null ? this.afterStmt.all(id, limit) : this.afterForClientStmt.all(id, clientId, limit)) as EventRow[];
  }

  /** Deletes events with an id up to `id`; returns how many. */
  pruneUpTo(id: number): number {
    return this.pruneStmt.run(id).changes;
  }

  lastId(): number {
    return this.lastIdStmt.get() as number;
  }

  /**
   * The highest journal id the newest refusals name (request.refused carries journal_id). Such an event commits at
   * once, its journal entry a few ms later, so a kill can lose the entry but not the event: the journal must not
   * hand its id out again. The newest 1,000 refusals are enough, since an id is reserved when its request arrives.
   */
  highestJournalIdNamed(): number {
    const newest = this.db.prepare(
      `SELECT COALESCE(MAX(journal_id), 0) FROM (
         SELECT CAST(json_extract(data, '$.journal_id') AS INTEGER) AS journal_id FROM events
         WHERE type = 'request.refused' ORDER BY id DESC LIMIT 1000)`,
    );
    return newest.pluck().get() as number;
  }
}
