// The outbox's freezing of a message (store/outbox.ts createCallback): the message's events, and only those still
// queued, become `sent` and point at it. A batch binds its events in one statement over a JSON array of ids
// (issue 15: one UPDATE per event was ~5 µs of every batched order), which must look each id up by primary key.
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/bank/store/migrations';
import { OutboxRepository } from '../../src/bank/store/outbox';
import { migrate } from '../../src/wire/sqlite';
import { freshStore } from '../helpers/store';

describe('outbox store: binding events to a message', () => {
  const store = freshStore((db) => new OutboxRepository(db));
  let outbox: OutboxRepository;
  beforeEach(() => {
    outbox = store.repo();
    for (let i = 1; i <= 5; i += 1) {
      outbox.enqueue({ clientId: 'demo', reference: `R${i}`, bankReference: `B${i}`, status: 'SUCCESS', reasonCode: null, reasonMessage: null, processedAt: i, copies: 1, createdAt: i, firstReport: 1 });
    }
  });

  const message = (kind: 'unit' | 'batch') => ({ clientId: 'demo', kind, idempotencyKey: `key-${kind}`, url: 'https://connector/cb', body: Buffer.from('{}'), copiesLeft: 1, nextAttemptAt: 0, createdAt: 0 });
  const events = () => store.db().prepare('SELECT id, state, callback_id AS callbackId FROM status_events ORDER BY id').all();

  it('a unit message binds its one event; a batch binds its events and leaves the others queued', () => {
    const unit = outbox.createCallback(message('unit'), [1]);
    store.db().prepare(`UPDATE status_events SET state = 'superseded' WHERE id = 4`).run();
    const batch = outbox.createCallback(message('batch'), [2, 3, 4]);
    expect(events()).toEqual([
      { id: 1, state: 'sent', callbackId: unit },
      { id: 2, state: 'sent', callbackId: batch },
      { id: 3, state: 'sent', callbackId: batch },
      { id: 4, state: 'superseded', callbackId: null },
      { id: 5, state: 'queued', callbackId: null },
    ]);
  });

  it('looks each id of a batch up by primary key', () => {
    const source = (outbox as unknown as { markManySentStmt: Database.Statement }).markManySentStmt.source;
    const plan = store.db().prepare(`EXPLAIN QUERY PLAN ${source}`).all(0, '[1]') as { detail: string }[];
    expect(plan.map((step) => step.detail).join('; ')).toMatch(/SEARCH status_events USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  });
});

describe('outbox store: in-order delivery and an order\'s first report', () => {
  const store = freshStore((db) => new OutboxRepository(db));
  const report = (reference: string, status: 'PENDING' | 'SUCCESS', firstReport: 0 | 1) => ({
    clientId: 'demo', reference, bankReference: `B-${reference}`, status, reasonCode: null, reasonMessage: null, processedAt: 1, copies: 1, createdAt: 1, firstReport,
  });
  const message = { clientId: 'demo', kind: 'unit' as const, idempotencyKey: 'k', url: 'https://connector/cb', body: Buffer.from('{}'), copiesLeft: 1, nextAttemptAt: 0, createdAt: 0 };

  it('holds a later report behind an earlier one still being delivered, and reads the first-report mark back', () => {
    const outbox = store.repo();
    outbox.enqueue(report('R1', 'PENDING', 1));
    outbox.createCallback(message, [1]);
    outbox.enqueue(report('R1', 'SUCCESS', 0));
    const [later] = outbox.queued('demo', 10);
    expect(later).toMatchObject({ id: 2, status: 'SUCCESS', firstReport: 0 });
    expect(outbox.isBlocked(later)).toBe(true);
    store.db().prepare(`UPDATE callbacks SET state = 'delivered'`).run();
    expect(outbox.isBlocked(later)).toBe(false);
  });

  it('does not look up an order\'s first report: nothing of that order can be ahead of it', () => {
    const outbox = store.repo();
    outbox.enqueue(report('R2', 'SUCCESS', 1));
    const [first] = outbox.queued('demo', 10);
    expect(first.firstReport).toBe(1);
    const blocked = (outbox as unknown as { blockedStmt: { get: (...args: unknown[]) => unknown } }).blockedStmt;
    const lookup = jest.spyOn(blocked, 'get');
    expect(outbox.isBlocked(first)).toBe(false);
    expect(lookup).not.toHaveBeenCalled();
  });
});

describe('outbox store: reports queued before the first-report mark existed', () => {
  it('are read as not first after the migration, so they keep their in-order check', () => {
    const db = new Database(':memory:');
    migrate(db, MIGRATIONS.filter((migration) => migration.version < 9));
    db.prepare(`INSERT INTO status_events (client_id, reference, bank_reference, status, processed_at, created_at) VALUES ('demo', 'OLD-1', 'B', 'SUCCESS', 1, 1)`).run();
    migrate(db, MIGRATIONS);
    expect(new OutboxRepository(db).queued('demo', 10)).toEqual([expect.objectContaining({ reference: 'OLD-1', firstReport: 0 })]);
    db.close();
  });
});
