// The transactional outbox (status_events), callback messages and their delivery attempts.
import { Db } from './db';
import { objectReader } from '../../wire/sqlite-rows';

export interface StatusEventRow {
  id: number;
  clientId: string;
  reference: string;
  bankReference: string;
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  reasonCode: string | null;
  reasonMessage: string | null;
  processedAt: number;
  copies: number;
  createdAt: number;
  /** 1 for the report of the order's acceptance, its first: no earlier report of that order exists. */
  firstReport: 0 | 1;
}

export interface CallbackRow {
  id: number;
  clientId: string;
  kind: 'unit' | 'batch';
  idempotencyKey: string;
  url: string;
  body: Buffer;
  copiesLeft: number;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  deliveredAt: number | null;
  lastError: string | null;
}

export interface AttemptRow {
  callbackId: number;
  attempt: number;
  startedAt: number;
  url: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

const EVENT_COLUMNS = `id, client_id AS clientId, reference, bank_reference AS bankReference, status, reason_code AS reasonCode,
  reason_message AS reasonMessage, processed_at AS processedAt, copies, created_at AS createdAt, first_report AS firstReport`;
function callbackColumns(alias = ''): string {
  const p = alias ? `${alias}.` : '';
  return `${p}id AS id, ${p}client_id AS clientId, ${p}kind AS kind, ${p}idempotency_key AS idempotencyKey, ${p}url AS url, ${p}body AS body,
    ${p}copies_left AS copiesLeft, ${p}state AS state, ${p}attempts AS attempts, ${p}next_attempt_at AS nextAttemptAt,
    ${p}created_at AS createdAt, ${p}delivered_at AS deliveredAt, ${p}last_error AS lastError`;
}
const CALLBACK_COLUMNS = callbackColumns();
const callbackColumnsWithoutBody = CALLBACK_COLUMNS.replace(/, body AS body/, '');

export class OutboxRepository {
  private readonly enqueueStmt;
  private readonly queuedStmt;
  private readonly nextDueStmt;
  private readonly blockedStmt;
  private readonly laterFinalStmt;
  private readonly supersedeStmt;
  private readonly insertCallbackStmt;
  private readonly markSentStmt;
  private readonly markManySentStmt;
  private readonly dueStmt;
  private readonly attemptStmt;
  private readonly deliveredStmt;
  private readonly resendStmt;
  private readonly retryStmt;
  private readonly deadStmt;
  private readonly attemptsOfStmt;
  private readonly findStmt;
  private readonly ofOrderStmt;
  private readonly redeliverStmt;
  private readonly idsInStateStmt;
  private readonly idsOfClientInStateStmt;

  constructor(readonly db: Db) {
    this.enqueueStmt = db.prepare(
      `INSERT INTO status_events (client_id, reference, bank_reference, status, reason_code, reason_message, processed_at, copies, created_at, first_report)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.nextDueStmt = db.prepare(`SELECT MIN(next_attempt_at) FROM callbacks WHERE state = 'pending' AND client_id = ?`).pluck();
    this.queuedStmt = objectReader<StatusEventRow>(db.prepare(`SELECT ${EVENT_COLUMNS} FROM status_events WHERE state = 'queued' AND client_id = ? ORDER BY id LIMIT ?`));
    this.blockedStmt = db.prepare(
      `SELECT 1 FROM status_events e JOIN callbacks c ON c.id = e.callback_id
       WHERE e.client_id = ? AND e.reference = ? AND e.id < ? AND c.state = 'pending' LIMIT 1`,
    );
    this.laterFinalStmt = db.prepare(
      `SELECT 1 FROM status_events WHERE client_id = ? AND reference = ? AND id > ? AND status IN ('SUCCESS', 'FAILED') LIMIT 1`,
    );
    this.supersedeStmt = db.prepare(`UPDATE status_events SET state = 'superseded' WHERE id = ?`);
    this.insertCallbackStmt = db.prepare(
      `INSERT INTO callbacks (client_id, kind, idempotency_key, url, body, copies_left, state, next_attempt_at, created_at)
       VALUES (@clientId, @kind, @idempotencyKey, @url, @body, @copiesLeft, 'pending', @nextAttemptAt, @createdAt)`,
    );
    this.markSentStmt = db.prepare(`UPDATE status_events SET state = 'sent', callback_id = ? WHERE id = ? AND state = 'queued'`);
    // A batch message binds up to batchSize events: one statement over a JSON array of ids instead of one per event.
    this.markManySentStmt = db.prepare(
      `UPDATE status_events SET state = 'sent', callback_id = ? WHERE id IN (SELECT value FROM json_each(?)) AND state = 'queued'`,
    );
    this.dueStmt = objectReader<CallbackRow>(db.prepare(
      `SELECT ${CALLBACK_COLUMNS} FROM callbacks WHERE state = 'pending' AND client_id = ? AND next_attempt_at <= ?
       ORDER BY next_attempt_at, id LIMIT ?`,
    ));
    this.attemptStmt = db.prepare(
      `INSERT INTO callback_attempts (callback_id, attempt, started_at, url, status_code, latency_ms, error, response_body)
       VALUES (@callbackId, @attempt, @startedAt, @url, @statusCode, @latencyMs, @error, @responseBody)`,
    );
    this.deliveredStmt = db.prepare(
      `UPDATE callbacks SET state = 'delivered', attempts = attempts + 1, delivered_at = ?, copies_left = 0, last_error = NULL WHERE id = ? AND state = 'pending'`,
    );
    this.resendStmt = db.prepare(
      `UPDATE callbacks SET attempts = attempts + 1, copies_left = copies_left - 1, next_attempt_at = ?, last_error = NULL WHERE id = ? AND state = 'pending'`,
    );
    this.retryStmt = db.prepare(`UPDATE callbacks SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ? AND state = 'pending'`);
    this.attemptsOfStmt = db.prepare(
      `SELECT callback_id AS callbackId, attempt, started_at AS startedAt, url, status_code AS statusCode, latency_ms AS latencyMs,
         error, response_body AS responseBody FROM callback_attempts WHERE callback_id = ? ORDER BY id`,
    );
    this.findStmt = db.prepare(`SELECT ${CALLBACK_COLUMNS} FROM callbacks WHERE id = ?`);
    this.redeliverStmt = db.prepare(
      `UPDATE callbacks SET state = 'pending', next_attempt_at = ?, copies_left = MAX(copies_left, 1), delivered_at = NULL WHERE id = ?`,
    );
    this.idsInStateStmt = db.prepare('SELECT id FROM callbacks WHERE state = ? ORDER BY id').pluck();
    this.idsOfClientInStateStmt = db.prepare('SELECT id FROM callbacks WHERE state = ? AND client_id = ? ORDER BY id').pluck();
    this.ofOrderStmt = db.prepare(
      `SELECT ${callbackColumns('c').replace(/, c\.body AS body/, '')} FROM callbacks c
       WHERE c.id IN (SELECT callback_id FROM status_events WHERE client_id = ? AND reference = ?) ORDER BY c.id`,
    );
    this.deadStmt = db.prepare(`UPDATE callbacks SET state = 'dead', attempts = attempts + 1, last_error = ? WHERE id = ? AND state = 'pending'`);
  }

  enqueue(event: Omit<StatusEventRow, 'id'>): void {
    // Positional, in the column order above: named parameters are looked up one by one from C++.
    const { clientId, reference, bankReference, status, reasonCode, reasonMessage, processedAt, copies, createdAt, firstReport } = event;
    this.enqueueStmt.run(clientId, reference, bankReference, status, reasonCode, reasonMessage, processedAt, copies, createdAt, firstReport);
  }

  /** The earliest next attempt of a client's pending messages, if any. */
  nextAttemptOf(clientId: string): number | null {
    return (this.nextDueStmt.get(clientId) as number | null | undefined) ?? null;
  }

  queued(clientId: string, limit: number): StatusEventRow[] {
    return this.queuedStmt.all(clientId, limit);
  }

  /** An earlier report of the same order is still being delivered: this one must wait (in-order delivery). */
  isBlocked(event: StatusEventRow): boolean {
    // An order's first report has nothing ahead of it: no lookup (one an order on the batch path, issue 15).
    if (event.firstReport === 1) return false;
    return this.blockedStmt.get(event.clientId, event.reference, event.id) !== undefined;
  }

  /** A PENDING not yet sent is moot once a final for the same order is queued: PENDING never follows a final. */
  hasLaterFinal(event: StatusEventRow): boolean {
    return this.laterFinalStmt.get(event.clientId, event.reference, event.id) !== undefined;
  }

  supersede(eventId: number): void {
    this.supersedeStmt.run(eventId);
  }

  /** Freezes a message (key, URL, body bytes) and binds its events to it. Call inside a transaction. */
  createCallback(callback: Pick<CallbackRow, 'clientId' | 'kind' | 'idempotencyKey' | 'url' | 'body' | 'copiesLeft' | 'nextAttemptAt' | 'createdAt'>, eventIds: number[]): number {
    const id = Number(this.insertCallbackStmt.run(callback).lastInsertRowid);
    if (eventIds.length === 1) this.markSentStmt.run(id, eventIds[0]);
    else if (eventIds.length > 1) this.markManySentStmt.run(id, JSON.stringify(eventIds));
    return id;
  }

  due(clientId: string, nowMs: number, limit: number): CallbackRow[] {
    return this.dueStmt.all(clientId, nowMs, limit);
  }

  /** False when the message no longer exists (a reset deleted it while it was being sent): nothing is written. */
  recordAttempt(attempt: AttemptRow): boolean {
    try {
      this.attemptStmt.run(attempt);
      return true;
    } catch (error) {
      // Caught rather than looked up first: a lookup would cost every attempt for what only a reset can cause.
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return false;
      throw error;
    }
  }

  markDelivered(callbackId: number, nowMs: number): void {
    this.deliveredStmt.run(nowMs, callbackId);
  }

  /** A 200 on a message that must be sent again (DUPLICATE_CALLBACK): same key, same bytes, right away. */
  markResend(callbackId: number, nowMs: number): void {
    this.resendStmt.run(nowMs, callbackId);
  }

  /**
   * Makes a message due again, as it is: same key, same URL, same body bytes (a redelivery never builds a new
   * message). A delivered or dead message goes back to pending, with one more copy to send.
   */
  redeliver(callbackId: number, nowMs: number): boolean {
    return this.redeliverStmt.run(nowMs, callbackId).changes === 1;
  }

  /** Ids of the messages in `state`, of one client or all, oldest first. */
  idsInState(state: string, clientId: string | null): number[] {
    return (clientId === null ? this.idsInStateStmt.all(state) : this.idsOfClientInStateStmt.all(state, clientId)) as number[];
  }

  scheduleRetry(callbackId: number, atMs: number, error: string): void {
    this.retryStmt.run(atMs, error, callbackId);
  }

  markDead(callbackId: number, error: string): void {
    this.deadStmt.run(error, callbackId);
  }

  /** Messages newest first, optionally by state and client, before a message id (cursor); bodies left out. */
  listCallbacks(filter: { state: string | null; clientId: string | null; beforeId: number | null }, limit: number): Omit<CallbackRow, 'body'>[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.state) (where.push('state = ?'), args.push(filter.state));
    if (filter.clientId) (where.push('client_id = ?'), args.push(filter.clientId));
    if (filter.beforeId !== null) (where.push('id < ?'), args.push(filter.beforeId));
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    return this.db.prepare(`SELECT ${callbackColumnsWithoutBody} FROM callbacks ${clause} ORDER BY id DESC LIMIT ?`).all(...args, limit) as Omit<CallbackRow, 'body'>[];
  }

  attemptsOf(callbackId: number): AttemptRow[] {
    return this.attemptsOfStmt.all(callbackId) as AttemptRow[];
  }

  find(callbackId: number): CallbackRow | undefined {
    return this.findStmt.get(callbackId) as CallbackRow | undefined;
  }

  /** The messages that carried this order's reports, oldest first (bodies left out). */
  callbacksOfOrder(clientId: string, reference: string): Omit<CallbackRow, 'body'>[] {
    return this.ofOrderStmt.all(clientId, reference) as Omit<CallbackRow, 'body'>[];
  }
}
