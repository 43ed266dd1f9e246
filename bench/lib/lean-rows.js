// The rows the specs make a create and a poll write, in the leanest schema that still does the checks they exist
// for: the limit server with LIMIT_STORE=lean stores through this. It is a lower bound for the storage, not a design
// the Bank could ship: the same rows as bench/lib/required-rows.js (nonce, idempotency record, order with its
// acceptance, event, journal entry with its reference), of the same sizes, but
//   - only the keys the checks look rows up by (a spent nonce, an idempotency key, a duplicate reference), each
//     table one B-tree (WITHOUT ROWID when keyed, appended by rowid otherwise);
//   - no secondary index (the Bank's indexes serve expiry pruning, the order's timeline, the journal's filters
//     and the order's exchanges), no AUTOINCREMENT, no foreign key, no CHECK constraint;
//   - the journal entry and its reference in one row, written in the request's own group commit;
//   - nothing ever pruned.
// LEAN_ADD=<part>,… adds back one part of the Bank's schema or writing at a time, to weigh it (bench/ab.js
// `lean` against `lean?LEAN_ADD=…`): journal-batch (the journal in transactions of its own, every 5 ms, as the
// Bank writes it), journal-reference-index (the entry's one reference indexed by order in its row, as the Bank
// keeps it since migration 11), journal-refs (the references in a table of their own, indexed by order: the Bank's
// design before migration 11), journal-indexes (journal_at, journal_by_client), autoincrement, orders-rowid (a
// rowid table, its key and the unique bank reference as indexes), idempotency-rowid (likewise, and the expiry
// index), nonce-expiry, history-row (the order's acceptance as a row of the history table, indexed by order with
// the foreign key to the order: the Bank's design before migration 12; by default it is in the order's row).
// The Bank's pragmas (WAL, synchronous=NORMAL, its page cache and checkpoint bound) and its group commit, from
// dist/. If this misses 0.8x of the limit server too, no schema for these rows can reach it on this SQLite.
'use strict';
const path = require('node:path');
const { signedFlows, createdEvent } = require('./required-rows');

const DIST = path.resolve(__dirname, '../../dist');
const { DEFAULTS } = require(path.join(DIST, 'bank/config'));
const NONCE_WINDOW_MS = DEFAULTS.timestampWindowS * 1000;
const IDEMPOTENCY_RETENTION_MS = DEFAULTS.idempotencyRetentionS * 1000;

const PARTS = ['journal-batch', 'journal-reference-index', 'journal-refs', 'journal-indexes', 'autoincrement', 'orders-rowid',
  'idempotency-rowid', 'nonce-expiry', 'history-row'];
const ADD = new Set((process.env.LEAN_ADD ?? '').split(',').filter(Boolean));
// A misspelt or renamed part would otherwise measure the lean rows without it, silently.
const unknownParts = [...ADD].filter((part) => !PARTS.includes(part));
if (unknownParts.length > 0) throw new Error(`LEAN_ADD: unknown part(s) ${unknownParts.join(', ')}; the parts are ${PARTS.join(', ')}`);
const HISTORY_ROW = ADD.has('history-row');

/** The schema: the lean tables, with the parts LEAN_ADD names put back. */
function leanSchema() {
  const autoincrement = ADD.has('autoincrement') ? ' AUTOINCREMENT' : '';
  const keyed = (name) => (ADD.has(name) ? '' : ' WITHOUT ROWID');
  return `
  CREATE TABLE nonces (client_id TEXT NOT NULL, nonce TEXT NOT NULL, expires_at INTEGER NOT NULL,
    PRIMARY KEY (client_id, nonce)) WITHOUT ROWID;
  ${ADD.has('nonce-expiry') ? 'CREATE INDEX nonces_expiry ON nonces (expires_at);' : ''}
  CREATE TABLE idempotency_records (client_id TEXT NOT NULL, idem_key TEXT NOT NULL, fingerprint TEXT NOT NULL,
    reference TEXT, status_code INTEGER NOT NULL, body BLOB NOT NULL, created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL, PRIMARY KEY (client_id, idem_key))${keyed('idempotency-rowid')};
  ${ADD.has('idempotency-rowid') ? 'CREATE INDEX idempotency_expiry ON idempotency_records (expires_at);' : ''}
  CREATE TABLE orders (client_id TEXT NOT NULL, reference TEXT NOT NULL,
    bank_reference TEXT NOT NULL${ADD.has('orders-rowid') ? ' UNIQUE' : ''},
    source TEXT NOT NULL, status TEXT NOT NULL, reason_code TEXT, reason_message TEXT, scenario TEXT NOT NULL,
    scenario_source TEXT NOT NULL, response_mode TEXT NOT NULL, callbacks TEXT NOT NULL, settle_at INTEGER,
    final_status TEXT, final_reason_code TEXT, initiated_at TEXT NOT NULL, initiated_at_ms INTEGER NOT NULL,
    total_amount TEXT NOT NULL, currency TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL,
    processed_at INTEGER NOT NULL, accepted_status TEXT, accepted_reason_code TEXT, accepted_cause TEXT,
    PRIMARY KEY (client_id, reference))${keyed('orders-rowid')};
  CREATE TABLE order_status_history (id INTEGER PRIMARY KEY${autoincrement}, client_id TEXT NOT NULL, reference TEXT NOT NULL,
    from_status TEXT, to_status TEXT NOT NULL, reason_code TEXT, cause TEXT NOT NULL, at INTEGER NOT NULL
    ${HISTORY_ROW ? ', FOREIGN KEY (client_id, reference) REFERENCES orders (client_id, reference)' : ''});
  ${HISTORY_ROW ? 'CREATE INDEX history_by_order ON order_status_history (client_id, reference, id);' : ''}
  CREATE TABLE events (id INTEGER PRIMARY KEY${autoincrement}, at INTEGER NOT NULL, type TEXT NOT NULL, client_id TEXT, data TEXT NOT NULL);
  CREATE TABLE journal (id INTEGER PRIMARY KEY${autoincrement}, at INTEGER NOT NULL, direction TEXT NOT NULL, client_id TEXT,
    method TEXT NOT NULL, url TEXT NOT NULL, path TEXT NOT NULL, status INTEGER, code TEXT, latency_ms INTEGER,
    request_id TEXT, reference TEXT, detail TEXT NOT NULL);
  ${ADD.has('journal-indexes') ? 'CREATE INDEX journal_at ON journal (at); CREATE INDEX journal_by_client ON journal (client_id, id);' : ''}
  ${ADD.has('journal-reference-index') ? 'CREATE INDEX journal_by_reference ON journal (reference, client_id) WHERE reference IS NOT NULL;' : ''}
  ${ADD.has('journal-refs') ? `CREATE TABLE journal_refs (entry_id INTEGER NOT NULL, client_id TEXT NOT NULL, reference TEXT NOT NULL,
    PRIMARY KEY (entry_id, reference)) WITHOUT ROWID;
    CREATE INDEX journal_refs_by_order ON journal_refs (reference, client_id, entry_id);` : ''}
`;
}

function leanStatements(db) {
  return {
    spendNonce: db.prepare(`INSERT INTO nonces (client_id, nonce, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (client_id, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= ?`),
    findKey: db.prepare('SELECT fingerprint FROM idempotency_records WHERE client_id = ? AND idem_key = ? AND expires_at > ?'),
    recordKey: db.prepare(`INSERT INTO idempotency_records (client_id, idem_key, fingerprint, reference, status_code, body,
      created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    insertOrder: db.prepare(`INSERT INTO orders (client_id, reference, bank_reference, source, status, reason_code,
      reason_message, scenario, scenario_source, response_mode, callbacks, settle_at, final_status, final_reason_code,
      initiated_at, initiated_at_ms, total_amount, currency, payload, created_at, processed_at, accepted_status,
      accepted_reason_code, accepted_cause)
      VALUES (?, ?, ?, 'push', ?, NULL, NULL, 'SUCCESS', 'default', 'sync', 'normal', NULL, NULL, NULL, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
      ON CONFLICT DO NOTHING`),
    insertHistory: db.prepare(`INSERT INTO order_status_history (client_id, reference, from_status, to_status, reason_code,
      cause, at) VALUES (?, ?, NULL, ?, NULL, ?, ?)`),
    insertEvent: db.prepare('INSERT INTO events (at, type, client_id, data) VALUES (?, ?, ?, ?)'),
    insertJournal: db.prepare(`INSERT INTO journal (at, direction, client_id, method, url, path, status, code, latency_ms,
      request_id, reference, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertRef: ADD.has('journal-refs') ? db.prepare('INSERT OR IGNORE INTO journal_refs (entry_id, client_id, reference) VALUES (?, ?, ?)') : null,
    findOrder: db.prepare('SELECT reference, bank_reference AS bankReference, status, processed_at AS processedAt FROM orders WHERE client_id = ? AND reference = ?'),
  };
}

/** journal-batch: the entries queued and written in a transaction of their own every 5 ms, as the Bank does. */
function batchedJournal(db, writeEntry) {
  let pending = [];
  let timer = null;
  const writeBatch = db.transaction((entries) => {
    for (const entry of entries) writeEntry(entry);
  });
  const flush = () => {
    timer = null;
    const rows = pending;
    pending = [];
    writeBatch(rows);
  };
  return (entry) => {
    pending.push(entry);
    timer ??= setTimeout(flush, 5);
  };
}

function leanRowsStore(dataDir) {
  const { openDatabase } = require(path.join(DIST, 'wire/sqlite'));
  const { GroupCommit } = require(path.join(DIST, 'bank/store/group-commit'));
  const db = openDatabase(dataDir, [{ version: 1, name: 'lean rows', sql: leanSchema() }]);
  const group = new GroupCommit(db);
  const sql = leanStatements(db);

  const writeEntry = (entry) => {
    const reference = entry.references[0]?.reference ?? null;
    const id = sql.insertJournal.run(entry.at, entry.direction, entry.clientId, entry.method, entry.url, entry.path, entry.status,
      entry.code, entry.latencyMs, entry.requestId, sql.insertRef ? null : reference, entry.detail).lastInsertRowid;
    if (sql.insertRef && reference !== null) sql.insertRef.run(id, entry.clientId, reference);
  };

  return signedFlows(group, {
    spendNonce: (clientId, nonce, now) => group.runStatement(() => sql.spendNonce.run(clientId, nonce, now + NONCE_WINDOW_MS, now).changes === 1),
    keyInUse: (clientId, key, now) => Boolean(sql.findKey.get(clientId, key, now)),
    storeOrder({ clientId, bankReference, bodyText, digest, key, payment, answerText, now }) {
      const { reference } = payment;
      const cause = 'accepted via push (default: SUCCESS)';
      const [acceptedStatus, acceptedCause] = HISTORY_ROW ? [null, null] : ['SUCCESS', cause];
      const inserted = sql.insertOrder.run(clientId, reference, bankReference, 'SUCCESS', payment.initiated_at,
        Date.parse(payment.initiated_at), payment.total_amount, payment.currency, bodyText, now, now, acceptedStatus, acceptedCause).changes === 1;
      if (!inserted) return false;
      if (HISTORY_ROW) sql.insertHistory.run(clientId, reference, 'SUCCESS', cause, now);
      sql.insertEvent.run(now, 'order.created', clientId, createdEvent(clientId, reference, bankReference));
      sql.recordKey.run(clientId, key, digest, reference, 200, Buffer.from(answerText), now, now + IDEMPOTENCY_RETENTION_MS);
      return true;
    },
    findPolled: (clientId, reference) => sql.findOrder.get(clientId, reference),
    journal: ADD.has('journal-batch') ? batchedJournal(db, writeEntry) : (entry) => group.run(() => writeEntry(entry)),
  });
}

module.exports = { leanRowsStore };
