// The outbox's freezing of a message (store/outbox.ts createCallback): the message's events, and only those still
// queued, become `sent` and point at it. A batch binds its events in one statement over a JSON array of ids
// (issue 15: one UPDATE per event was ~5 µs of every batched order), which must look each id up by primary key.
import type Database from 'better-sqlite3';
import { OutboxRepository } from '../../src/bank/store/outbox';
import { freshStore } from '../helpers/store';

describe('outbox store: binding events to a message', () => {
  const store = freshStore((db) => new OutboxRepository(db));
  let outbox: OutboxRepository;
  beforeEach(() => {
    outbox = store.repo();
    for (let i = 1; i <= 5; i += 1) {
      outbox.enqueue({ clientId: 'demo', reference: `R${i}`, bankReference: `B${i}`, status: 'SUCCESS', reasonCode: null, reasonMessage: null, processedAt: i, copies: 1, createdAt: i });
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
