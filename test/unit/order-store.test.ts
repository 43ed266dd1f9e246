// The order store's insert (store/orders.ts insertIfNew): one statement stores a new order with its acceptance (the
// first entry of its history, in the order's own row), or nothing when the client already has that reference. Only
// that conflict is a duplicate: a taken bank reference is an error, never a silent duplicate.
import Database from 'better-sqlite3';
import { OrderRepository } from '../../src/bank/store/orders';
import { MIGRATIONS } from '../../src/bank/store/migrations';
import { migrate } from '../../src/wire/sqlite';
import { Order } from '../../src/bank/domain/order';
import { StatusChange } from '../../src/bank/domain/order-state';
import { freshStore } from '../helpers/store';

function order(overrides: Partial<Order> = {}): Order {
  return {
    clientId: 'demo', reference: 'ORD-1', bankReference: 'SBK2026112700000010000000001', source: 'push', status: 'SUCCESS',
    reasonCode: null, reasonMessage: null, scenario: 'SUCCESS', scenarioSource: 'default', responseMode: 'sync', callbacks: 'normal',
    pollsToThrottle: 0, pollAnswer: 'status', settleAt: null, finalStatus: null, finalReasonCode: null,
    initiatedAt: '2026-11-27T00:00:00Z', initiatedAtMs: Date.parse('2026-11-27T00:00:00Z'), totalAmount: '10.00', currency: 'EUR',
    payload: '{"reference":"ORD-1"}', createdAt: 1, processedAt: 1, ...overrides,
  };
}

const change: StatusChange = { from: null, to: 'SUCCESS', reasonCode: null, reasonMessage: null, at: 1 };

describe('order store: insertIfNew', () => {
  const store = freshStore((db) => new OrderRepository(db));
  let orders: OrderRepository;
  beforeEach(() => (orders = store.repo()));

  it('stores a new order with its acceptance as the first entry of its history', () => {
    expect(orders.insertIfNew(order(), change, 'accepted')).toBe(true);
    expect(orders.find('demo', 'ORD-1')).toEqual(order());
    expect(orders.history('demo', 'ORD-1')).toEqual([{ from: null, to: 'SUCCESS', reasonCode: null, cause: 'accepted', at: 1 }]);
  });

  it("stores nothing for a reference the client already has, and keeps the first order as it was", () => {
    orders.insertIfNew(order(), change, 'accepted');
    const again = order({ bankReference: 'SBK2026112700000020000000002', totalAmount: '99.00', status: 'FAILED' });
    expect(orders.insertIfNew(again, { ...change, to: 'FAILED' }, 'again')).toBe(false);
    expect(orders.find('demo', 'ORD-1')).toEqual(order());
    expect(orders.history('demo', 'ORD-1')).toHaveLength(1);
    expect(orders.count()).toBe(1);
  });

  it('stores the same reference for another client', () => {
    orders.insertIfNew(order(), change, 'accepted');
    expect(orders.insertIfNew(order({ clientId: 'other', bankReference: 'SBK2026112700000030000000003' }), change, 'accepted')).toBe(true);
    expect(orders.count()).toBe(2);
  });

  it('throws on a bank reference already taken, instead of calling it a duplicate', () => {
    orders.insertIfNew(order(), change, 'accepted');
    expect(() => orders.insertIfNew(order({ reference: 'ORD-2' }), change, 'accepted')).toThrow(/UNIQUE constraint failed: orders.bank_reference/);
    expect(orders.count()).toBe(1);
  });
});

describe('order store: history', () => {
  const store = freshStore((db) => new OrderRepository(db));
  const historyRows = () => store.db().prepare('SELECT COUNT(*) FROM order_status_history').pluck().get();
  const pending: StatusChange = { from: null, to: 'PENDING', reasonCode: null, reasonMessage: null, at: 1 };

  it("keeps the acceptance in the order's row and later changes in the history table, and reads them in order", () => {
    const orders = store.repo();
    orders.insertIfNew(order({ status: 'PENDING' }), pending, 'accepted via push (default: DELAY_SUCCESS)');
    expect(historyRows()).toBe(0);
    orders.applyChange('demo', 'ORD-1', { from: 'PENDING', to: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED', reasonMessage: 'Account closed', at: 5 }, 'scenario delay elapsed');
    expect(historyRows()).toBe(1);
    expect(orders.history('demo', 'ORD-1')).toEqual([
      { from: null, to: 'PENDING', reasonCode: null, cause: 'accepted via push (default: DELAY_SUCCESS)', at: 1 },
      { from: 'PENDING', to: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED', cause: 'scenario delay elapsed', at: 5 },
    ]);
    expect(orders.history('demo', 'NO-SUCH-ORDER')).toEqual([]);
  });

  it('reads an order stored before migration 12, whose acceptance is a history row, as it was', () => {
    const db = new Database(':memory:');
    try {
      migrate(db, MIGRATIONS.filter((migration) => migration.version < 12));
      db.prepare(`INSERT INTO orders (client_id, reference, bank_reference, source, status, scenario, scenario_source, response_mode,
        callbacks, initiated_at, initiated_at_ms, total_amount, currency, payload, created_at, processed_at)
        VALUES ('demo', 'OLD-1', 'SBK2026112700000090000000009', 'push', 'PENDING', 'DELAY_SUCCESS', 'default', 'sync', 'normal',
        '2026-11-27T00:00:00Z', 0, '10.00', 'EUR', '{}', 1, 1)`).run();
      db.prepare(`INSERT INTO order_status_history (client_id, reference, from_status, to_status, reason_code, cause, at)
        VALUES ('demo', 'OLD-1', NULL, 'PENDING', NULL, 'accepted via push', 1)`).run();
      migrate(db, MIGRATIONS);
      const orders = new OrderRepository(db);
      orders.applyChange('demo', 'OLD-1', { from: 'PENDING', to: 'SUCCESS', reasonCode: null, reasonMessage: null, at: 7 }, 'scenario delay elapsed');
      expect(orders.history('demo', 'OLD-1')).toEqual([
        { from: null, to: 'PENDING', reasonCode: null, cause: 'accepted via push', at: 1 },
        { from: 'PENDING', to: 'SUCCESS', reasonCode: null, cause: 'scenario delay elapsed', at: 7 },
      ]);
    } finally {
      db.close();
    }
  });

  it('refuses an acceptance that is not an order status', () => {
    store.repo().insertIfNew(order(), { ...pending, to: 'SUCCESS' }, 'accepted');
    expect(() => store.db().prepare("UPDATE orders SET accepted_status = 'DONE'").run()).toThrow(/CHECK constraint failed/);
  });
});
