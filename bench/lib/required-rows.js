// The rows the specs make every create and status poll write, and nothing else: the limit server with
// LIMIT_STORE=required stores through this instead of its one table. It uses the Bank's own store (dist/: the
// schema with its indexes, the repositories' statements, the group commit), so that the difference between the
// Bank and this server is the Bank's JavaScript (pipeline, validation, scenarios, the journal's capture and
// masking), not its SQLite. What each row is for:
//   nonce             profile section 2 (a nonce is refused when seen within the window; kept across a restart)
//   idempotency       profile section 6 (the key, the body's fingerprint and the stored answer, kept 24 h)
//   order             contract: the order and its status, with its acceptance, the first entry of the control
//                     plane's timeline of it (later changes are rows of their own; a create makes none)
//   event             control-plane.md (the live event stream, replayable from its id)
//   journal, its ref  control-plane.md section 4 (every exchange with its request and answer, by order),
//                     written in batches and pruned to the newest 10,000 as the Bank does (on unless
//                     LIMIT_JOURNAL=off)
// Every answer waits for the commit of its rows, as the Bank's do.
'use strict';
const path = require('node:path');

const DIST = path.resolve(__dirname, '../../dist/bank/store');
// The Bank's own defaults (src/bank/config.ts), so that these rows live as long as the Bank keeps them.
const { DEFAULTS } = require('../../dist/bank/config');
const IDEMPOTENCY_RETENTION_MS = DEFAULTS.idempotencyRetentionS * 1000;
const NONCE_WINDOW_MS = DEFAULTS.timestampWindowS * 1000;
const JOURNAL_MAX_ENTRIES = DEFAULTS.journalMaxEntries;
const JOURNAL_PRUNE_SLACK = 100;
const JOURNAL_FLUSH_AT = 1000;
const JOURNAL_FLUSH_DELAY_MS = 5;

function repository(file, name, db) {
  const Repository = require(path.join(DIST, file))[name];
  return new Repository(db);
}

/** The journal's rows in batches, as the Bank writes them (one transaction a batch, pruned by count). */
function journalWriter(repo) {
  let nextId = repo.lastId() + 1;
  let prunedUpTo = 0;
  let pending = [];
  let timer = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    const rows = pending;
    pending = [];
    const keepFrom = nextId - 1 - JOURNAL_MAX_ENTRIES;
    const pruneUpTo = keepFrom - prunedUpTo >= JOURNAL_PRUNE_SLACK ? keepFrom : null;
    repo.insertMany(rows, pruneUpTo);
    if (pruneUpTo !== null) prunedUpTo = pruneUpTo;
  };
  return (entry) => {
    pending.push({ ...entry, id: nextId++ });
    if (pending.length >= JOURNAL_FLUSH_AT) flush();
    else timer ??= setTimeout(flush, JOURNAL_FLUSH_DELAY_MS);
  };
}

/** The request and its answer as the journal keeps them (unmasked: masking is the Bank's own work). */
function journalEntry(req, clientId, requestBody, status, answerText, reference, startedAt) {
  const detail = {
    request: { headers: req.headers, body: requestBody, size: requestBody.length, truncated: false },
    response: { headers: { 'content-type': 'application/json', 'content-length': String(answerText.length) }, body: answerText, size: answerText.length, truncated: false },
    error: null,
  };
  const url = `http://${req.headers.host}${req.url}`;
  return {
    at: startedAt, direction: 'in', clientId, method: req.method, url, path: req.url.split('?')[0], status, code: null,
    latencyMs: Date.now() - startedAt, requestId: req.headers['x-request-id'] ?? null, detail: JSON.stringify(detail),
    references: reference === null ? [] : [{ clientId, reference }],
  };
}

function requiredRowsStore(dataDir) {
  const db = require(path.join(DIST, 'db')).openBankDatabase(dataDir);
  const group = repository('group-commit', 'GroupCommit', db);
  const nonces = repository('nonces', 'NonceRepository', db);
  const idempotency = repository('idempotency', 'IdempotencyRepository', db);
  const orders = repository('orders', 'OrderRepository', db);
  const events = repository('events', 'EventRepository', db);
  // Off: no entry is built either (it was built and dropped before 2026-11-27, session 15: ~50 of ~700 profiler-µs).
  const journal = process.env.LIMIT_JOURNAL === 'off' ? null : journalWriter(repository('journal', 'JournalRepository', db));

  /** The profile's nonce check, as the Bank runs it: one statement in the open group; false when spent. */
  const spendNonce = (clientId, nonce, now) => group.runStatement(() => nonces.spend(clientId, nonce, now, now + NONCE_WINDOW_MS));

  return signedFlows(group, {
    spendNonce,
    keyInUse: (clientId, key, now) => Boolean(idempotency.find(clientId, key, now)),
    storeOrder({ clientId, bankReference, bodyText, digest, key, payment, answerText, now }) {
      const change = { from: null, to: 'SUCCESS', reasonCode: null, reasonMessage: null, at: now };
      const order = {
        clientId, reference: payment.reference, bankReference, source: 'push', status: 'SUCCESS', reasonCode: null, reasonMessage: null,
        scenario: 'SUCCESS', scenarioSource: 'default', responseMode: 'sync', callbacks: 'normal', pollsToThrottle: 0, pollAnswer: 'status',
        settleAt: null, finalStatus: null, finalReasonCode: null, initiatedAt: payment.initiated_at, initiatedAtMs: Date.parse(payment.initiated_at),
        totalAmount: payment.total_amount, currency: payment.currency, payload: bodyText, createdAt: now, processedAt: now,
      };
      if (!orders.insertIfNew(order, change, 'accepted via push (default: SUCCESS)')) return false;
      events.insert(now, 'order.created', clientId, createdEvent(clientId, payment.reference, bankReference));
      idempotency.record(clientId, key, digest, now, IDEMPOTENCY_RETENTION_MS, order.reference, 200, Buffer.from(answerText));
      return true;
    },
    findPolled: (clientId, reference) => orders.findPolled(clientId, reference),
    journal,
  });
}

/** The order.created event's data, as the Bank writes it. */
function createdEvent(clientId, reference, bankReference) {
  return JSON.stringify({ client_id: clientId, reference, bank_reference: bankReference, status: 'SUCCESS', from: null, source: 'push' });
}

/**
 * A signed create and a status poll over one store of rows, so that the required and the lean rows differ in their
 * storing only. `rows`: spendNonce (false when spent), keyInUse, storeOrder (in the group's unit; false for a
 * duplicate reference), findPolled ({reference, bankReference, status, processedAt} or undefined), and journal
 * (takes an entry; null without a journal). Every answer waits for the commit of its rows, as the Bank's do.
 */
function signedFlows(group, rows) {
  /** Answers once the rows are committed (or 500 if the commit failed). */
  const afterCommit = (send) => {
    const committed = group.committed();
    if (committed === null) return send();
    committed.then(send, () => send(500));
  };

  return {
    /** Spends the nonce, checks the key and the reference, stores order, event and key, then answers. */
    create(req, clientId, bodyText, digest, payment, bankReference, send) {
      const now = Date.now();
      const headers = req.headers;
      if (!rows.spendNonce(clientId, headers['x-nonce'], now)) return send(401, { code: 'nonce_replayed' });
      const key = headers['x-idempotency-key'];
      if (rows.keyInUse(clientId, key, now)) return send(409, { code: 'idempotency_in_progress' });
      const value = { status: 'SUCCESS', reference: payment.reference, bank_reference: bankReference, timestamp: new Date(now).toISOString() };
      const answerText = JSON.stringify(value);
      const order = { clientId, bankReference, bodyText, digest, key, payment, answerText, now };
      if (!group.run(() => rows.storeOrder(order))) return send(409, { code: 'duplicate_reference' });
      rows.journal?.(journalEntry(req, clientId, bodyText, 200, answerText, payment.reference, now));
      afterCommit((failed) => send(failed ?? 200, failed ? { code: 'internal' } : value));
    },

    /** Spends the nonce and reads the order's status; the poll's journal entry. */
    status(req, clientId, reference, send) {
      const now = Date.now();
      if (!rows.spendNonce(clientId, req.headers['x-nonce'], now)) return send(401, { code: 'nonce_replayed' });
      const row = rows.findPolled(clientId, reference);
      const [status, value] = row
        ? [200, { reference: row.reference, bank_reference: row.bankReference, status: row.status, processed_at: new Date(row.processedAt).toISOString() }]
        : [404, { code: 'order_not_found' }];
      rows.journal?.(journalEntry(req, clientId, '', status, JSON.stringify(value), row ? reference : null, now));
      afterCommit((failed) => send(failed ?? status, failed ? { code: 'internal' } : value));
    },
  };
}

module.exports = { requiredRowsStore, signedFlows, createdEvent };
