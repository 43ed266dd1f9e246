// POST /sandbox/reset (control-plane.md section 2): forgets a client's (or everyone's) orders, messages,
// idempotency records, poll cursors and test clock. Registrations, keys and spent nonces stay: nonces expire
// on wall time, so a reset never reopens a replay.
import { Db } from './db';

/** Table -> the condition that selects one client's rows (attempts go through their message). */
const PER_CLIENT: Readonly<Record<string, string>> = {
  callback_attempts: 'callback_id IN (SELECT id FROM callbacks WHERE client_id = @clientId)',
  status_events: 'client_id = @clientId',
  callbacks: 'client_id = @clientId',
  order_status_history: 'client_id = @clientId',
  orders: 'client_id = @clientId',
  idempotency_records: 'client_id = @clientId',
  poll_cursors: 'client_id = @clientId',
  pulled_order_rejections: 'client_id = @clientId',
  create_failures: 'client_id = @clientId',
  test_clocks: 'client_id = @clientId',
};

export class ResetRepository {
  private readonly oneClient;
  private readonly everyone;

  constructor(db: Db) {
    const tables = Object.keys(PER_CLIENT);
    this.oneClient = tables.map((table) => [table, db.prepare(`DELETE FROM ${table} WHERE ${PER_CLIENT[table]}`)] as const);
    this.everyone = tables.map((table) => [table, db.prepare(`DELETE FROM ${table}`)] as const);
  }

  /** Deletes in dependency order; answers the rows deleted per table. Call inside a transaction. */
  reset(clientId: string | null): Record<string, number> {
    const deleted: Record<string, number> = {};
    for (const [table, statement] of clientId === null ? this.everyone : this.oneClient) {
      deleted[table] = (clientId === null ? statement.run() : statement.run({ clientId })).changes;
    }
    return deleted;
  }
}
