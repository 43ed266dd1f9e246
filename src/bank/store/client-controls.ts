// Per-client control state that survives a restart: test clocks (control-plane.md section 3) and paused
// Connectors (section 2).
import { Db } from './db';

export interface TestClockRow {
  clientId: string;
  nowMs: number;
  attachedAt: number;
}

export class TestClockRepository {
  private readonly allStmt;
  private readonly upsertStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.allStmt = db.prepare('SELECT client_id AS clientId, now_ms AS nowMs, attached_at AS attachedAt FROM test_clocks');
    this.upsertStmt = db.prepare(
      `INSERT INTO test_clocks (client_id, now_ms, attached_at) VALUES (?, ?, ?)
       ON CONFLICT (client_id) DO UPDATE SET now_ms = excluded.now_ms`,
    );
    this.deleteStmt = db.prepare('DELETE FROM test_clocks WHERE client_id = ?');
  }

  all(): TestClockRow[] {
    return this.allStmt.all() as TestClockRow[];
  }

  /** Attaches or moves a clock (attached_at is kept from the first attach). */
  save(clientId: string, nowMs: number, attachedAt: number): void {
    this.upsertStmt.run(clientId, nowMs, attachedAt);
  }

  remove(clientId: string): boolean {
    return this.deleteStmt.run(clientId).changes === 1;
  }
}

export class ClientPauseRepository {
  private readonly allStmt;
  private readonly pauseStmt;
  private readonly resumeStmt;

  constructor(db: Db) {
    this.allStmt = db.prepare('SELECT client_id FROM client_pauses').pluck();
    this.pauseStmt = db.prepare('INSERT OR IGNORE INTO client_pauses (client_id, paused_at) VALUES (?, ?)');
    this.resumeStmt = db.prepare('DELETE FROM client_pauses WHERE client_id = ?');
  }

  paused(): string[] {
    return this.allStmt.all() as string[];
  }

  pause(clientId: string, nowMs: number): void {
    this.pauseStmt.run(clientId, nowMs);
  }

  resume(clientId: string): void {
    this.resumeStmt.run(clientId);
  }
}
