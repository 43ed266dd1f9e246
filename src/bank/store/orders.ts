// Orders and their status history, read back as domain Order values. Every write here runs inside the
// caller's transaction (the application layer opens it).
import { Db } from './db';
import { objectReader } from '../../wire/sqlite-rows';
import { Order, POLLED_FIELDS, PolledOrder } from '../domain/order';
import { OrderStatus, StatusChange } from '../domain/order-state';


/** The control plane's order filters (control-plane.md section 2); times in ms, `beforeRow` a cursor. */
export interface OrderFilter {
  clientId?: string;
  status?: string;
  reference?: string;
  scenario?: string;
  source?: string;
  since?: number;
  until?: number;
  beforeRow?: number;
}

export interface HistoryEntry {
  from: OrderStatus | null;
  to: OrderStatus;
  reasonCode: string | null;
  cause: string;
  at: number;
}

const COLUMNS: Record<keyof Order, string> = {
  clientId: 'client_id',
  reference: 'reference',
  bankReference: 'bank_reference',
  source: 'source',
  status: 'status',
  reasonCode: 'reason_code',
  reasonMessage: 'reason_message',
  scenario: 'scenario',
  scenarioSource: 'scenario_source',
  responseMode: 'response_mode',
  callbacks: 'callbacks',
  pollsToThrottle: 'polls_to_throttle',
  pollAnswer: 'poll_answer',
  settleAt: 'settle_at',
  finalStatus: 'final_status',
  finalReasonCode: 'final_reason_code',
  initiatedAt: 'initiated_at',
  initiatedAtMs: 'initiated_at_ms',
  totalAmount: 'total_amount',
  currency: 'currency',
  payload: 'payload',
  createdAt: 'created_at',
  processedAt: 'processed_at',
};

/** The order's fields in COLUMNS order. */
const FIELDS = Object.keys(COLUMNS) as (keyof Order)[];

/** Its acceptance, the first entry of its history: written with the order, read only by history(). */
const ACCEPTANCE_COLUMNS = ['accepted_status', 'accepted_reason_code', 'accepted_cause'] as const;

const selectOf = (fields: readonly (keyof Order)[]): string => `SELECT ${fields.map((field) => `${COLUMNS[field]} AS ${field}`).join(', ')} FROM orders`;
const SELECT = selectOf(FIELDS);

/** A client with this many orders is listed by walking the orders newest first (OrderRepository.walksNewestFirst). */
const WALK_FROM = 10_000;

export class OrderRepository {
  private readonly findStmt;
  private readonly findPolledStmt;
  private readonly insertStmt;
  private readonly updateStatusStmt;
  private readonly historyStmt;
  private readonly acceptanceStmt;
  private readonly historyOfStmt;
  private readonly dueStmt;
  private readonly dueOfClientStmt;
  private readonly nextSettlementStmt;
  private readonly throttleStmt;

  constructor(private readonly db: Db) {
    this.findStmt = objectReader<Order>(db.prepare(`${SELECT} WHERE client_id = ? AND reference = ?`));
    // A status poll's columns: not the payload (about a kilobyte) nor the dozen others it never reads.
    this.findPolledStmt = objectReader<PolledOrder>(db.prepare(`${selectOf(POLLED_FIELDS)} WHERE client_id = ? AND reference = ?`));
    // Positional parameters: better-sqlite3 looks each named one up on the object from C++, ~1.5 µs per insert.
    // A reference already taken by this client inserts nothing; any other conflict (bank_reference) still throws.
    // The order's acceptance (its first history entry) goes in its own row, after its fields.
    this.insertStmt = db.prepare(
      `INSERT INTO orders (${[...Object.values(COLUMNS), ...ACCEPTANCE_COLUMNS].join(', ')})
       VALUES (${[...FIELDS, ...ACCEPTANCE_COLUMNS].map(() => '?').join(', ')}) ON CONFLICT (client_id, reference) DO NOTHING`,
    );
    this.updateStatusStmt = db.prepare(
      `UPDATE orders SET status = @to, reason_code = @reasonCode, reason_message = @reasonMessage, processed_at = @at,
         settle_at = CASE WHEN @to = 'PENDING' THEN settle_at ELSE NULL END
       WHERE client_id = @clientId AND reference = @reference AND status = @from`,
    );
    this.historyStmt = db.prepare(
      `INSERT INTO order_status_history (client_id, reference, from_status, to_status, reason_code, cause, at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.acceptanceStmt = db.prepare(
      `SELECT NULL AS "from", accepted_status AS "to", accepted_reason_code AS reasonCode, accepted_cause AS cause, created_at AS at
       FROM orders WHERE client_id = ? AND reference = ? AND accepted_status IS NOT NULL`,
    );
    this.historyOfStmt = db.prepare(
      `SELECT from_status AS "from", to_status AS "to", reason_code AS reasonCode, cause, at
       FROM order_status_history WHERE client_id = ? AND reference = ? ORDER BY id`,
    );
    // Clocked clients' orders settle on their own clocks (an advance). test_clocks is the set ClientClocks keeps in
    // memory, written in the same turn, so one statement serves any number of clocks (a NOT IN list of them made a
    // statement a tick, and past 32,766 clocks SQLite refused it: 'too many SQL variables').
    this.dueStmt = db.prepare(
      `${SELECT} WHERE status = 'PENDING' AND settle_at IS NOT NULL AND settle_at <= ?
       AND client_id NOT IN (SELECT client_id FROM test_clocks) ORDER BY settle_at LIMIT ?`,
    );
    this.dueOfClientStmt = db.prepare(`${SELECT} WHERE status = 'PENDING' AND settle_at IS NOT NULL AND settle_at <= ? AND client_id = ? ORDER BY settle_at LIMIT ?`);
    this.nextSettlementStmt = db.prepare(`SELECT MIN(settle_at) FROM orders WHERE status = 'PENDING' AND settle_at IS NOT NULL AND client_id = ?`).pluck();
    this.throttleStmt = db.prepare('UPDATE orders SET polls_to_throttle = polls_to_throttle - 1 WHERE client_id = ? AND reference = ? AND polls_to_throttle > 0');
  }

  find(clientId: string, reference: string): Order | undefined {
    return this.findStmt.get(clientId, reference);
  }

  /** What a status poll needs of an order. */
  findPolled(clientId: string, reference: string): PolledOrder | undefined {
    return this.findPolledStmt.get(clientId, reference);
  }

  /**
   * Stores a new order with its acceptance, the first entry of its history (`change`, at `record.createdAt`);
   * false, storing nothing, when the client already has an order with this reference. One statement instead of a
   * lookup and an insert: the lookup found nothing nearly always.
   */
  insertIfNew(record: Order, change: StatusChange, cause: string): boolean {
    const values: unknown[] = FIELDS.map((field) => record[field]);
    values.push(change.to, change.reasonCode, cause); // ACCEPTANCE_COLUMNS, in order
    return this.insertStmt.run(values).changes === 1;
  }

  /** Applies a change computed by the state machine; the `status = from` guard refuses a stale write. */
  applyChange(clientId: string, reference: string, change: StatusChange, cause: string): void {
    const result = this.updateStatusStmt.run({ clientId, reference, ...change });
    if (result.changes !== 1) throw new Error(`order ${clientId}/${reference} changed concurrently`);
    this.appendHistory(clientId, reference, change, cause);
  }

  /** POLL_429: spends one throttled poll; false when none is left. */
  spendThrottledPoll(clientId: string, reference: string): boolean {
    return this.throttleStmt.run(clientId, reference).changes === 1;
  }

  /** The order's acceptance (from its row; in the history table for orders from before migration 12), then its changes. */
  history(clientId: string, reference: string): HistoryEntry[] {
    const acceptance = this.acceptanceStmt.get(clientId, reference) as HistoryEntry | undefined;
    const changes = this.historyOfStmt.all(clientId, reference) as HistoryEntry[];
    return acceptance ? [acceptance, ...changes] : changes;
  }

  /** PENDING orders due at `nowMs`, oldest first: of one client, or of every client without a test clock. */
  dueForSettlement(nowMs: number, limit: number, scope: { onlyClient?: string } = {}): Order[] {
    if (scope.onlyClient !== undefined) return this.dueOfClientStmt.all(nowMs, scope.onlyClient, limit) as Order[];
    return this.dueStmt.all(nowMs, limit) as Order[];
  }

  nextSettlementOf(clientId: string): number | null {
    return (this.nextSettlementStmt.get(clientId) as number | null | undefined) ?? null;
  }

  /**
   * Orders newest first (insertion order), filtered; each with its row number for the next cursor. Read one at a
   * time, and no more once their payloads have reached `payloadBudget` characters (at least one is read): `cut`
   * then says the page ended early. Unbounded, 1,000 orders of 230 KB read 221 MB at once and a small heap died.
   */
  search(filter: OrderFilter, limit: number, payloadBudget = Infinity): { rows: { row: number; order: Order }[]; cut: boolean } {
    const conditions: [string, unknown][] = [
      [this.walksNewestFirst(filter) ? '+client_id = ?' : 'client_id = ?', filter.clientId],
      ['status = ?', filter.status],
      ['reference = ?', filter.reference],
      ['scenario = ?', filter.scenario],
      ['source = ?', filter.source],
      ['created_at >= ?', filter.since],
      ['created_at <= ?', filter.until],
      ['rowid < ?', filter.beforeRow],
    ];
    const used = conditions.filter(([, value]) => value !== undefined);
    const where = used.length > 0 ? `WHERE ${used.map(([condition]) => condition).join(' AND ')}` : '';
    const statement = this.db.prepare(`${SELECT.replace('SELECT ', 'SELECT rowid AS row, ')} ${where} ORDER BY rowid DESC LIMIT ?`);
    const rows: { row: number; order: Order }[] = [];
    let payloadChars = 0;
    for (const { row, ...order } of statement.iterate(...used.map(([, value]) => value), limit) as IterableIterator<Order & { row: number }>) {
      rows.push({ row, order });
      payloadChars += order.payload.length;
      if (payloadChars >= payloadBudget && rows.length < limit) return { rows, cut: true };
    }
    return { rows, cut: false };
  }

  /**
   * Whether search() should walk the orders newest first (rowid DESC, `+client_id` keeps the planner off the
   * (client_id, reference) index) and stop at its limit, rather than read all of the client's orders through that
   * index and sort them: sorting a client's 140,000 orders took 80-125 ms a page, every cursor page; walking takes
   * under 1 ms then, but scans the whole table (~90 ms) for a client with few orders. Counting the client's orders
   * is a covering index range (~4 ms at 140,000, 0.01 ms at 100), so the walk is taken from WALK_FROM orders up.
   */
  private walksNewestFirst(filter: OrderFilter): boolean {
    if (filter.clientId === undefined || filter.reference !== undefined) return false;
    return (this.db.prepare('SELECT COUNT(*) FROM orders WHERE client_id = ?').pluck().get(filter.clientId) as number) >= WALK_FROM;
  }

  count(): number {
    return this.db.prepare('SELECT COUNT(*) FROM orders').pluck().get() as number;
  }

  private appendHistory(clientId: string, reference: string, change: StatusChange, cause: string): void {
    this.historyStmt.run(clientId, reference, change.from, change.to, change.reasonCode, cause, change.at);
  }
}
