// Per-client control state that survives a restart: test clocks (control-plane.md section 3) and paused
// Connectors (section 2).
import { Db } from './db';

export interface TestClockRow {
  clientId: string;
  nowMs: number;
  attachedAt: number;
  /** Where an advance under way (or cut short by a crash) is moving the clock; null when none is. */
  advancingTo: number | null;
}

export class TestClockRepository {
  private readonly allStmt;
  private readonly upsertStmt;
  private readonly targetStmt;
  private readonly reachedStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.allStmt = db.prepare('SELECT client_id AS clientId, now_ms AS nowMs, attached_at AS attachedAt, advancing_to AS advancingTo FROM test_clocks');
    this.upsertStmt = db.prepare(
      `INSERT INTO test_clocks (client_id, now_ms, attached_at) VALUES (?, ?, ?)
       ON CONFLICT (client_id) DO UPDATE SET now_ms = excluded.now_ms`,
    );
    this.targetStmt = db.prepare('UPDATE test_clocks SET advancing_to = ? WHERE client_id = ?');
    this.reachedStmt = db.prepare('UPDATE test_clocks SET now_ms = ?, advancing_to = NULL WHERE client_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM test_clocks WHERE client_id = ?');
  }

  all(): TestClockRow[] {
    return this.allStmt.all() as TestClockRow[];
  }

  /** Attaches or moves a clock (attached_at is kept from the first attach, and an advance's target stays). */
  save(clientId: string, nowMs: number, attachedAt: number): void {
    this.upsertStmt.run(clientId, nowMs, attachedAt);
  }

  /** Stores where an advance is going, before it fires anything. */
  saveTarget(clientId: string, targetMs: number): void {
    this.targetStmt.run(targetMs, clientId);
  }

  /** Moves the clock to its advance's target and forgets the target, in one statement: both or neither. */
  saveReached(clientId: string, targetMs: number): void {
    this.reachedStmt.run(targetMs, clientId);
  }

  /** Detaches a clock, and with it any advance's target. */
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
