// The order store's insert (store/orders.ts insertIfNew): one statement stores a new order with its first history
// row, or nothing when the client already has that reference. Only that conflict is a duplicate: a taken bank
// reference is an error, never a silent duplicate.
import { OrderRepository } from '../../src/bank/store/orders';
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

  it('stores a new order with its first history row', () => {
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
