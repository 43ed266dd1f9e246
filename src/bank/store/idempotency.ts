// Idempotency records for create: (client, key) -> body fingerprint and the stored answer.
import { Db } from './db';

export interface IdempotencyRecord {
  fingerprint: string;
  state: 'in_progress' | 'done';
  statusCode: number | null;
  body: Buffer | null;
  lockedUntil: number | null;
  expiresAt: number;
}

export class IdempotencyRepository {
  /**
   * The reservations this process holds. One it does not hold was left by a process that stopped before it could
   * finish it (a crash, a kill): nothing is processing it, so it counts as abandoned at once, not at locked_until.
   */
  private readonly heldHere = new Set<string>();
  private readonly findStmt;
  private readonly deleteStmt;
  private readonly reserveStmt;
  private readonly recordStmt;
  private readonly completeStmt;
  private readonly pruneStmt;
  private readonly pruneClientStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare(
      `SELECT fingerprint, state, status_code AS statusCode, body, locked_until AS lockedUntil, expires_at AS expiresAt
       FROM idempotency_records WHERE client_id = ? AND idem_key = ?`,
    );
    this.deleteStmt = db.prepare('DELETE FROM idempotency_records WHERE client_id = ? AND idem_key = ?');
    this.reserveStmt = db.prepare(
      `INSERT INTO idempotency_records (client_id, idem_key, fingerprint, state, locked_until, created_at, expires_at, reference)
       VALUES (?, ?, ?, 'in_progress', ?, ?, ?, ?)`,
    );
    this.recordStmt = db.prepare(
      `INSERT INTO idempotency_records (client_id, idem_key, fingerprint, state, status_code, body, locked_until, created_at, expires_at, reference)
       VALUES (?, ?, ?, 'done', ?, ?, NULL, ?, ?, ?)`,
    );
    this.completeStmt = db.prepare(
      `UPDATE idempotency_records SET state = 'done', status_code = ?, body = ?, locked_until = NULL
       WHERE client_id = ? AND idem_key = ? AND state = 'in_progress'`,
    );
    // Records of a client with a test clock expire by that clock (pruneClient), not by the Bank's.
    this.pruneStmt = db.prepare('DELETE FROM idempotency_records WHERE expires_at <= ? AND client_id NOT IN (SELECT client_id FROM test_clocks)');
    this.pruneClientStmt = db.prepare('DELETE FROM idempotency_records WHERE expires_at <= ? AND client_id = ?');
  }

  /** The live record, ignoring (and removing) an expired one or an abandoned reservation. */
  find(clientId: string, key: string, nowMs: number): IdempotencyRecord | undefined {
    const record = this.findStmt.get(clientId, key) as IdempotencyRecord | undefined;
    if (!record) return undefined;
    const abandoned = record.state === 'in_progress' && ((record.lockedUntil ?? 0) <= nowMs || !this.heldHere.has(heldKey(clientId, key)));
    if (record.expiresAt <= nowMs || abandoned) {
      this.release(clientId, key);
      return undefined;
    }
    return record;
  }

  /** `reference`: the order the key creates (a conformance run deletes its own orders' records by it). */
  reserve(clientId: string, key: string, fingerprint: string, nowMs: number, lockMs: number, retentionMs: number, reference: string | null = null): void {
    this.reserveStmt.run(clientId, key, fingerprint, nowMs + lockMs, nowMs, nowMs + retentionMs, reference);
    this.heldHere.add(heldKey(clientId, key));
  }

  /**
   * A finished record in one INSERT: the row reserve() then complete() leave, for a create that reserves and
   * finishes inside one transaction (nobody can see the reservation in between).
   */
  record(clientId: string, key: string, fingerprint: string, nowMs: number, retentionMs: number, reference: string | null, statusCode: number, body: Buffer): void {
    this.recordStmt.run(clientId, key, fingerprint, statusCode, body, nowMs, nowMs + retentionMs, reference);
  }

  complete(clientId: string, key: string, statusCode: number, body: Buffer): void {
    this.completeStmt.run(statusCode, body, clientId, key);
    this.heldHere.delete(heldKey(clientId, key));
  }

  release(clientId: string, key: string): void {
    this.deleteStmt.run(clientId, key);
    this.heldHere.delete(heldKey(clientId, key));
  }

  pruneClient(clientId: string, nowMs: number): number {
    return this.pruneClientStmt.run(nowMs, clientId).changes;
  }

  prune(nowMs: number): number {
    return this.pruneStmt.run(nowMs).changes;
  }
}

function heldKey(clientId: string, key: string): string {
  return `${clientId}\n${key}`;
}
