// The reference Connector's own SQLite file. What it shows a Connector team: keep every order's status, how it
// got there (status_log), the idempotency keys of the callbacks already processed, the reverse-polling schedule,
// alerts and spent nonces in one transactional store, and put the contract's state rules (section 3: a final
// status never changes, the same final is never applied twice) in ONE place, decideTransition().
import { createHash } from 'node:crypto';
import { checksAsComparisons, Db, Migration, openDatabase, rewriteTableDefinitions } from '../wire/sqlite';

/** AWAITING = the Bank answered the create with 202: accepted, no status yet, a callback must follow. */
export type ConnectorStatus = 'READY' | 'PENDING' | 'AWAITING' | 'SUCCESS' | 'FAILED';
export type IncomingStatus = 'PENDING' | 'AWAITING' | 'SUCCESS' | 'FAILED';
export type OrderSource = 'fixture' | 'push';
export type StatusVia = 'create' | 'callback' | 'batch' | 'reverse-poll';

export interface StatusUpdate {
  status: IncomingStatus;
  bankReference?: string | null;
  reasonCode?: string | null;
  reasonMessage?: string | null;
}

export interface OrderRow {
  reference: string;
  status: ConnectorStatus;
  bank_reference: string | null;
  reason_code: string | null;
  reason_message: string | null;
  source: OrderSource;
  initiated_at: string;
  payload: string;
  updated_at: number;
}

export interface PollRow {
  reference: string;
  next_at: number;
  interval_ms: number;
  attempts: number;
  stopped_reason: string | null;
}

export interface StatusLogRow {
  reference: string;
  status: IncomingStatus;
  via: StatusVia;
  at: number;
}

export interface AlertRow {
  reference: string;
  message: string;
  at: number;
}

export type Decision = 'apply' | 'noop' | 'conflict';

export interface ApplyResult {
  outcome: Decision | 'unknown';
  /** The order's status after the call (null when the order is unknown). */
  status: ConnectorStatus | null;
  detail?: string;
}

export const CONNECTOR_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'reference connector',
    sql: `
      CREATE TABLE orders (
        reference TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('READY', 'PENDING', 'AWAITING', 'SUCCESS', 'FAILED')),
        bank_reference TEXT,
        reason_code TEXT,
        reason_message TEXT,
        source TEXT NOT NULL CHECK (source IN ('fixture', 'push')),
        initiated_at TEXT NOT NULL,
        initiated_ms INTEGER NOT NULL,
        payload TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX orders_pull ON orders (source, status, initiated_ms, reference);
      CREATE TABLE callback_keys (
        idempotency_key TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('unit', 'batch')),
        answered_status INTEGER NOT NULL,
        body_sha256 TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE TABLE status_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        reference TEXT NOT NULL,
        status TEXT NOT NULL,
        via TEXT NOT NULL CHECK (via IN ('create', 'callback', 'batch', 'reverse-poll')),
        at INTEGER NOT NULL
      );
      CREATE TABLE poll_schedule (
        reference TEXT PRIMARY KEY,
        next_at INTEGER NOT NULL,
        interval_ms INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        stopped_reason TEXT
      );
      CREATE INDEX poll_due ON poll_schedule (next_at) WHERE stopped_reason IS NULL;
      CREATE TABLE alerts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        reference TEXT NOT NULL,
        message TEXT NOT NULL,
        at INTEGER NOT NULL
      );
      CREATE TABLE nonces (
        client TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (client, nonce)
      );
    `,
  },
  {
    version: 2,
    name: 'CHECKs as comparisons',
    // As the Bank's migration 10: SQLite builds a temporary b-tree of an IN list's values at every insert and
    // update it checks; the same CHECK written with = and OR costs next to nothing. Rows are untouched.
    apply: (db) => {
      rewriteTableDefinitions(db, checksAsComparisons);
    },
  },
  {
    version: 3,
    name: 'creates in flight',
    // A push create is written here before it is sent and removed once its answer is recorded: a row found at start
    // is a create whose answer a stop or a crash lost (the Bank may hold the order, even a final it calls back never).
    sql: `CREATE TABLE creates_in_flight (reference TEXT PRIMARY KEY, sent_at INTEGER NOT NULL);`,
  },
];

const FINAL: readonly ConnectorStatus[] = ['SUCCESS', 'FAILED'];

export function isFinalStatus(status: ConnectorStatus | null): boolean {
  return status !== null && FINAL.includes(status);
}

/**
 * Contract section 3, in one table:
 * - a final status never changes: another final is a conflict, the same final again is a no-op;
 * - PENDING (or a late 202) after a final is ignored, not an error;
 * - READY -> anything; AWAITING -> PENDING or a final; PENDING -> a final. Everything else is a no-op.
 */
export function decideTransition(current: ConnectorStatus, incoming: IncomingStatus): Decision {
  if (isFinalStatus(current)) {
    if (incoming === current) return 'noop';
    return isFinalStatus(incoming) ? 'conflict' : 'noop';
  }
  if (current === 'READY') return 'apply';
  if (isFinalStatus(incoming)) return 'apply';
  return current === 'AWAITING' && incoming === 'PENDING' ? 'apply' : 'noop';
}

export function sha256Hex(body: Buffer | string): string {
  return createHash('sha256').update(body).digest('hex');
}

export class ConnectorStore {
  constructor(readonly db: Db, private readonly pollInitialMs: number) {}

  /** Runs `fn` in one SQLite transaction: everything or nothing. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Adds an order unless its reference is already stored. Returns true when added. */
  insertOrder(order: { reference: string; initiated_at: string }, source: OrderSource, nowMs: number): boolean {
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO orders (reference, status, source, initiated_at, initiated_ms, payload, updated_at)
         VALUES (?, 'READY', ?, ?, ?, ?, ?)`,
      )
      .run(order.reference, source, order.initiated_at, Date.parse(order.initiated_at), JSON.stringify(order), nowMs);
    return result.changes === 1;
  }

  order(reference: string): OrderRow | undefined {
    return this.db.prepare('SELECT * FROM orders WHERE reference = ?').get(reference) as OrderRow | undefined;
  }

  /**
   * Contract 4.2.1: fixture orders whose CURRENT status is `status` and initiated_at >= offset (inclusive),
   * oldest first, ties by reference. Once the Bank reports on an order it is no longer READY and leaves the pull.
   */
  pullPage(status: string, offsetMs: number, limit: number): { total: number; orders: OrderRow[] } {
    const where = "source = 'fixture' AND status = ? AND initiated_ms >= ?";
    const total = this.db.prepare(`SELECT COUNT(*) FROM orders WHERE ${where}`).pluck().get(status, offsetMs) as number;
    const orders = this.db.prepare(`SELECT * FROM orders WHERE ${where} ORDER BY initiated_ms, reference LIMIT ?`).all(status, offsetMs, limit) as OrderRow[];
    return { total, orders };
  }

  /**
   * Applies a status from the Bank (create answer, callback or reverse polling) under the section 3 rules.
   * A change is logged in status_log; entering PENDING/AWAITING schedules reverse polling; a final stops it.
   */
  applyStatus(reference: string, update: StatusUpdate, via: StatusVia, nowMs: number): ApplyResult {
    return this.transaction(() => {
      const order = this.order(reference);
      if (!order) return { outcome: 'unknown', status: null, detail: `unknown order "${reference}"` };
      if (update.bankReference && order.bank_reference && update.bankReference !== order.bank_reference) {
        return { outcome: 'conflict', status: order.status, detail: `bank_reference ${update.bankReference} differs from ${order.bank_reference} already recorded` };
      }
      const decision = decideTransition(order.status, update.status);
      if (decision === 'conflict') {
        return { outcome: 'conflict', status: order.status, detail: `order ${reference} is final (${order.status}); refusing ${update.status}` };
      }
      if (decision === 'noop') return { outcome: 'noop', status: order.status };
      const failed = update.status === 'FAILED';
      this.db
        .prepare(
          `UPDATE orders SET status = ?, bank_reference = COALESCE(?, bank_reference), reason_code = ?, reason_message = ?, updated_at = ?
           WHERE reference = ?`,
        )
        .run(update.status, update.bankReference ?? null, failed ? (update.reasonCode ?? null) : null, failed ? (update.reasonMessage ?? null) : null, nowMs, reference);
      this.db.prepare('INSERT INTO status_log (reference, status, via, at) VALUES (?, ?, ?, ?)').run(reference, update.status, via, nowMs);
      if (isFinalStatus(update.status)) this.stopPolling(reference, `final ${update.status} by ${via}`);
      else this.schedulePolling(reference, nowMs);
      return { outcome: 'apply', status: update.status };
    });
  }

  // --- callback idempotency -------------------------------------------------------------------------------

  callbackKey(key: string): { kind: string; answered_status: number; body_sha256: string } | undefined {
    return this.db.prepare('SELECT kind, answered_status, body_sha256 FROM callback_keys WHERE idempotency_key = ?').get(key) as
      | { kind: string; answered_status: number; body_sha256: string }
      | undefined;
  }

  recordCallbackKey(key: string, kind: 'unit' | 'batch', answeredStatus: number, bodySha256: string, nowMs: number): void {
    this.db.prepare('INSERT INTO callback_keys (idempotency_key, kind, answered_status, body_sha256, at) VALUES (?, ?, ?, ?, ?)').run(key, kind, answeredStatus, bodySha256, nowMs);
  }

  // --- anti-replay ----------------------------------------------------------------------------------------

  /** Records the nonce; false when this client already used it and it has not expired. */
  spendNonce(client: string, nonce: string, nowMs: number, expiresAt: number): boolean {
    // expires_at is the last millisecond the nonce still counts as spent (wire/verify-request.ts, nonceExpiresAt).
    this.db.prepare('DELETE FROM nonces WHERE expires_at < ?').run(nowMs);
    return this.db.prepare('INSERT OR IGNORE INTO nonces (client, nonce, expires_at) VALUES (?, ?, ?)').run(client, nonce, expiresAt).changes === 1;
  }

  // --- creates in flight -----------------------------------------------------------------------------------

  /** A push create about to be sent (its answer not yet recorded). */
  createSent(reference: string, nowMs: number): void {
    this.db.prepare('INSERT OR REPLACE INTO creates_in_flight (reference, sent_at) VALUES (?, ?)').run(reference, nowMs);
  }

  /** The create's answer (or its last retry's) is recorded, whatever it was. */
  createAnswered(reference: string): void {
    this.db.prepare('DELETE FROM creates_in_flight WHERE reference = ?').run(reference);
  }

  /** Creates whose answer a stop or a crash lost, oldest first; each is forgotten here as it is returned. */
  takeLostCreates(): string[] {
    return this.transaction(() => {
      const references = this.db.prepare('SELECT reference FROM creates_in_flight ORDER BY sent_at, reference').pluck().all() as string[];
      this.db.prepare('DELETE FROM creates_in_flight').run();
      return references;
    });
  }

  // --- reverse polling ------------------------------------------------------------------------------------

  /** First poll after POLL_INITIAL_MS; an order already scheduled keeps its schedule. */
  schedulePolling(reference: string, nowMs: number): void {
    this.db
      .prepare('INSERT OR IGNORE INTO poll_schedule (reference, next_at, interval_ms, attempts) VALUES (?, ?, ?, 0)')
      .run(reference, nowMs + this.pollInitialMs, this.pollInitialMs);
  }

  stopPolling(reference: string, reason: string): void {
    this.db.prepare('UPDATE poll_schedule SET stopped_reason = ? WHERE reference = ? AND stopped_reason IS NULL').run(reason, reference);
  }

  duePolls(nowMs: number, limit = 100): PollRow[] {
    return this.db
      .prepare('SELECT * FROM poll_schedule WHERE stopped_reason IS NULL AND next_at <= ? ORDER BY next_at, reference LIMIT ?')
      .all(nowMs, limit) as PollRow[];
  }

  pollOf(reference: string): PollRow | undefined {
    return this.db.prepare('SELECT * FROM poll_schedule WHERE reference = ?').get(reference) as PollRow | undefined;
  }

  reschedulePoll(reference: string, nextAt: number, intervalMs: number, attempts: number): void {
    this.db
      .prepare('UPDATE poll_schedule SET next_at = ?, interval_ms = ?, attempts = ? WHERE reference = ? AND stopped_reason IS NULL')
      .run(nextAt, intervalMs, attempts, reference);
  }

  addAlert(reference: string, message: string, nowMs: number): void {
    this.db.prepare('INSERT INTO alerts (reference, message, at) VALUES (?, ?, ?)').run(reference, message, nowMs);
  }

  // --- for GET /state (the demo's timeline) ---------------------------------------------------------------

  snapshot() {
    const iso = (ms: number) => new Date(ms).toISOString();
    const orders = (this.db.prepare('SELECT * FROM orders ORDER BY initiated_ms, reference').all() as OrderRow[]).map(
      ({ payload: _payload, ...order }) => ({ ...order, updated_at: iso(order.updated_at) }),
    );
    const statusLog = (this.db.prepare('SELECT reference, status, via, at FROM status_log ORDER BY id').all() as StatusLogRow[]).map(
      (entry) => ({ ...entry, at: iso(entry.at) }),
    );
    const alerts = (this.db.prepare('SELECT reference, message, at FROM alerts ORDER BY id').all() as AlertRow[]).map((alert) => ({
      ...alert,
      at: iso(alert.at),
    }));
    const pollSchedule = (this.db.prepare('SELECT * FROM poll_schedule ORDER BY reference').all() as PollRow[]).map((row) => ({
      ...row,
      next_at: iso(row.next_at),
    }));
    return { orders, status_log: statusLog, alerts, poll_schedule: pollSchedule };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Opens (or creates) the Connector's SQLite file in `dataDir` (`:memory:` for a throwaway store). */
export function openConnectorStore(dataDir: string, pollInitialMs: number): ConnectorStore {
  return new ConnectorStore(openDatabase(dataDir, CONNECTOR_MIGRATIONS, 'CONNECTOR_DATA_DIR'), pollInitialMs);
}
