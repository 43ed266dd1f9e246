// Idempotency records for create: (client, key) -> body fingerprint and the stored answer.
import { Db } from './db';
import { deleteInChunks, PRUNE_CHUNK_ROWS } from './chunked-delete';

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
   * The reservations this process holds, each with its own hold number. One it does not hold was left by a process
   * that stopped before it could finish it (a crash, a kill): nothing is processing it, so it counts as abandoned at
   * once. One it holds is live until its create ends, even past locked_until or expires_at, which a test clock's
   * advance can pass during CREATE_LATENCY_MS: a second create for the key then waits (409) instead of taking over.
   * An entry whose row a reset deleted is stale until its create ends (it always ends it, by complete or release):
   * find() never sees it without a row, a new reserve() of the key replaces it, and holds() tells its create.
   */
  private readonly heldHere = new Map<string, number>();
  private lastHold = 0;
  private readonly findStmt;
  private readonly deleteStmt;
  private readonly reserveStmt;
  private readonly recordStmt;
  private readonly completeStmt;
  private readonly pruneChunkStmt;
  private readonly pruneClientStmt;

  constructor(private readonly db: Db) {
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
    // Records of a client with a test clock expire by that clock (pruneClient), not by the Bank's (pruneInChunks).
    this.pruneClientStmt = db.prepare('DELETE FROM idempotency_records WHERE expires_at <= ? AND client_id = ?');
    // Expired records of clients on the Bank's clock, at most `limit` of them, oldest first through idempotency_expiry.
    this.pruneChunkStmt = db.prepare(
      `DELETE FROM idempotency_records WHERE rowid IN
         (SELECT rowid FROM idempotency_records WHERE expires_at <= ? AND client_id NOT IN (SELECT client_id FROM test_clocks) ORDER BY expires_at LIMIT ?)`,
    );
  }

  /** The live record, ignoring (and removing) an expired one or an abandoned reservation. */
  find(clientId: string, key: string, nowMs: number): IdempotencyRecord | undefined {
    const record = this.findStmt.get(clientId, key) as IdempotencyRecord | undefined;
    if (!record) return undefined;
    if (record.state === 'in_progress') {
      if (this.heldHere.has(heldKey(clientId, key))) return record;
    } else if (record.expiresAt > nowMs) {
      return record;
    }
    this.deleteStmt.run(clientId, key);
    return undefined;
  }

  /**
   * `reference`: the order the key creates (a conformance run deletes its own orders' records by it). Returns the
   * hold that complete() or release() must show: only the create that made the reservation ends it.
   */
  reserve(clientId: string, key: string, fingerprint: string, nowMs: number, lockMs: number, retentionMs: number, reference: string | null = null): number {
    this.reserveStmt.run(clientId, key, fingerprint, nowMs + lockMs, nowMs, nowMs + retentionMs, reference);
    this.lastHold += 1;
    this.heldHere.set(heldKey(clientId, key), this.lastHold);
    return this.lastHold;
  }

  /**
   * A finished record in one INSERT: the row reserve() then complete() leave, for a create that reserves and
   * finishes inside one transaction (nobody can see the reservation in between).
   */
  record(clientId: string, key: string, fingerprint: string, nowMs: number, retentionMs: number, reference: string | null, statusCode: number, body: Buffer): void {
    this.recordStmt.run(clientId, key, fingerprint, statusCode, body, nowMs, nowMs + retentionMs, reference);
  }

  /**
   * True while the reservation `hold` made is still there to be finished: held by it here, and its row not deleted
   * since. A POST /sandbox/reset deletes the row under a create in progress (and a test clock's advance past the
   * retention prunes it, after which another create may reserve the key again): the create that made it must then
   * store nothing, for its record could no longer be written, and an order without one could never be replayed.
   * Asked in the create's own unit, right before it writes, so nothing can delete the row in between.
   */
  holds(clientId: string, key: string, hold: number): boolean {
    if (this.heldHere.get(heldKey(clientId, key)) !== hold) return false;
    return (this.findStmt.get(clientId, key) as IdempotencyRecord | undefined)?.state === 'in_progress';
  }

  /**
   * Finishes the reservation `hold` made; true when it stored the answer, false when the row is no longer that
   * reservation (deleted by a reset, pruned, replaced): the caller checks holds() first.
   */
  complete(clientId: string, key: string, hold: number, statusCode: number, body: Buffer): boolean {
    if (!this.endHold(clientId, key, hold)) return false;
    return this.completeStmt.run(statusCode, body, clientId, key).changes === 1;
  }

  /** Drops the reservation `hold` made (its create was refused or failed); nothing when the row is no longer it. */
  release(clientId: string, key: string, hold: number): void {
    if (!this.endHold(clientId, key, hold)) return;
    this.deleteStmt.run(clientId, key);
  }

  private endHold(clientId: string, key: string, hold: number): boolean {
    const held = heldKey(clientId, key);
    if (this.heldHere.get(held) !== hold) return false;
    this.heldHere.delete(held);
    return true;
  }

  pruneClient(clientId: string, nowMs: number): number {
    return this.pruneClientStmt.run(nowMs, clientId).changes;
  }

  /** Deletes the expired records `limit` at a time, serving the event loop between chunks (store/chunked-delete.ts). */
  pruneInChunks(nowMs: number, limit = PRUNE_CHUNK_ROWS): Promise<number> {
    return deleteInChunks((chunk) => this.pruneChunkStmt.run(nowMs, chunk).changes, { limit, stillOpen: () => this.db.open });
  }
}

function heldKey(clientId: string, key: string): string {
  return `${clientId}\n${key}`;
}
