// The limit server: only what a signed create cannot avoid, as the yardstick `npm run bench` divides the Bank by.
//   POST /payment-orders                      read the raw body; parse the headers the signature covers; one
//                                             SHA-256 of the body (its Content-Digest); one ES256 verify of
//                                             X-Signature, with a cached KeyObject, over the signature base of
//                                             profile section 1 (the same base, so the same size, as the Bank's);
//                                             JSON.parse of the body (the reference is the order's key); one
//                                             prepared INSERT; one JSON answer
//   GET  /payment-orders/{reference}/status   the same verify (over an empty body), one prepared SELECT by primary
//                                             key, one JSON answer
//   GET  /readyz                              for the bench's start-up wait
// With express, the properties express and router add to every request are created before express swaps the
// prototypes, as the Bank does (src/wire/stable-shapes.ts), so that the yardstick has the same trick.
// SQLite through better-sqlite3 in WAL mode with synchronous=NORMAL, as the Bank opens it. No token, timestamp,
// nonce, rate limit, idempotency, schema or journal (by default; see LIMIT_STORE): the Bank's whole cost above this
// is its own.
//   LIMIT_FRAMEWORK=express (default; the Bank's framework, express 5, with stable shapes as the Bank) |
//     express-as-shipped (express 5 without them: the yardstick before 2026-11-26) | http (bare node:http)
//   LIMIT_STORE=one-insert (default: the one table above) | required (the rows the specs make a create and a poll
//     write, through the Bank's own store and group commit: bench/lib/required-rows.js; needs `npm run build`) |
//     lean (the same rows in the leanest schema that still does their checks: bench/lib/lean-rows.js)
//   PORT, DATA_DIR (the SQLite file goes there; default: a fresh temporary directory)
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const Database = require('better-sqlite3');

const ROOT = path.resolve(__dirname, '..');
const FRAMEWORK = process.env.LIMIT_FRAMEWORK ?? 'express';
const CREATE_HEADERS = ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'];
const STATUS_HEADERS = ['x-client-id', 'x-timestamp', 'x-nonce'];
const STATUS_PATH = /^\/payment-orders\/([^/]+)\/status$/;

/** The demo Connector's public key, imported once: the bench signs every request with its private half. */
function demoConnectorKey() {
  const credentials = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/demo-connector/credentials.json'), 'utf8'));
  const { d: _private, ...publicJwk } = credentials.private_jwk;
  return crypto.createPublicKey({ key: publicJwk, format: 'jwk' });
}

function openStore(dataDir) {
  const db = new Database(path.join(dataDir, 'limit.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS orders (
    client_id TEXT NOT NULL, reference TEXT NOT NULL, bank_reference TEXT NOT NULL, status TEXT NOT NULL,
    fingerprint TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (client_id, reference))`);
  return {
    insert: db.prepare('INSERT INTO orders (client_id, reference, bank_reference, status, fingerprint, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    find: db.prepare('SELECT reference, bank_reference, status, created_at FROM orders WHERE client_id = ? AND reference = ?'),
  };
}

const KEY = demoConnectorKey();
const DATA_DIR = process.env.DATA_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'bench-limit-'));
const STORES = {
  required: () => require('./lib/required-rows').requiredRowsStore(DATA_DIR),
  lean: () => require('./lib/lean-rows').leanRowsStore(DATA_DIR),
};
const ROWS = STORES[process.env.LIMIT_STORE]?.() ?? null;
const store = ROWS ? null : openStore(DATA_DIR);

// The two statements in functions of their own, so that a CPU profile (bench/profile.js, the cost summary of
// profile-top.js) can tell the limit server's SQLite time from its JavaScript.
function storeOrder(clientId, reference, bankReference, status, fingerprint, payload, createdAt) {
  store.insert.run(clientId, reference, bankReference, status, fingerprint, payload, createdAt);
}

function findOrder(clientId, reference) {
  return store.find.get(clientId, reference);
}

/** One SHA-256 (the digest line of the base) and one ES256 verify: true when X-Signature signs this request. */
function verified(method, target, headers, names, body) {
  const digest = crypto.createHash('sha256').update(body).digest('base64');
  let base = `@method: ${method}\n@target-uri: ${target}`;
  for (const name of names) base += `\n${name}: ${headers[name] ?? ''}`;
  base += `\ncontent-digest: sha-256=:${digest}:`;
  const jws = headers['x-signature'] ?? '';
  const dots = jws.indexOf('..');
  if (dots < 0) return null;
  const input = `${jws.slice(0, dots)}.${Buffer.from(base).toString('base64url')}`;
  const ok = crypto.verify('sha256', Buffer.from(input), { key: KEY, dsaEncoding: 'ieee-p1363' }, Buffer.from(jws.slice(dots + 2), 'base64url'));
  return ok ? digest : null;
}

function answer(res, status, value) {
  const bytes = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
  res.end(bytes);
}

function readBody(req, done) {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
}

function create(req, res, target) {
  readBody(req, (body) => {
    const headers = req.headers;
    const digest = verified('POST', target, headers, CREATE_HEADERS, body);
    if (digest === null) return answer(res, 401, { code: 'signature_invalid' });
    const text = body.toString('utf8');
    let payment;
    try {
      payment = JSON.parse(text);
    } catch {
      return answer(res, 400, { code: 'body_malformed' });
    }
    const reference = payment?.reference;
    const now = Date.now();
    const bankReference = `LIM${now.toString(16)}${crypto.randomBytes(8).toString('hex')}`;
    if (ROWS) return ROWS.create(req, headers['x-client-id'], text, digest, payment, bankReference, (status, value) => answer(res, status, value));
    try {
      storeOrder(headers['x-client-id'], String(reference), bankReference, 'PENDING', digest, text, now);
    } catch {
      return answer(res, 409, { code: 'duplicate_reference' });
    }
    answer(res, 200, { status: 'PENDING', reference, bank_reference: bankReference, timestamp: new Date(now).toISOString() });
  });
}

function status(req, res, target, rawReference) {
  const headers = req.headers;
  if (verified('GET', target, headers, STATUS_HEADERS, '') === null) return answer(res, 401, { code: 'signature_invalid' });
  if (ROWS) return ROWS.status(req, headers['x-client-id'], rawReference, (status, value) => answer(res, status, value));
  const row = findOrder(headers['x-client-id'], rawReference);
  if (!row) return answer(res, 404, { code: 'order_not_found' });
  answer(res, 200, { reference: row.reference, bank_reference: row.bank_reference, status: row.status, processed_at: new Date(row.created_at).toISOString() });
}

/**
 * What the Bank does too (src/wire/stable-shapes.ts): the properties express and router add to every request
 * and response are created before express swaps their prototypes, which V8 would otherwise add on its slow path.
 * The yardstick gets every trick the Bank uses that is not part of the Bank's own work.
 */
function withStableShapes(app) {
  let matchedRoute = null;
  try {
    matchedRoute = require('router/lib/symbols').matchedRoute ?? null;
  } catch {
    // another router: its symbol is added late, as before
  }
  const handle = app.handle;
  app.handle = function handleWithStableShapes(req, res, callback) {
    Object.assign(req, { next: undefined, baseUrl: '', originalUrl: req.url, _parsedUrl: undefined, params: undefined, route: undefined, body: undefined });
    req._eventsCount = req._eventsCount ?? 0;
    if (matchedRoute) req[matchedRoute] = undefined;
    req[Symbol.for('router.tracing.publishedErrors')] = undefined;
    res.locals = Object.create(null);
    res.statusCode = res.statusCode;
    res.statusMessage = res.statusMessage;
    return handle.call(this, req, res, callback);
  };
  return app;
}

function expressApp() {
  const express = require('express');
  const app = FRAMEWORK === 'express-as-shipped' ? express() : withStableShapes(express());
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/readyz', (_req, res) => res.json({ status: 'ready' }));
  app.post('/payment-orders', (req, res) => create(req, res, req.originalUrl));
  app.get('/payment-orders/:reference/status', (req, res) => status(req, res, req.originalUrl, STATUS_PATH.exec(req.path)[1]));
  return app;
}

function bareHandler(req, res) {
  if (req.method === 'POST' && req.url === '/payment-orders') return create(req, res, req.url);
  const match = req.method === 'GET' ? STATUS_PATH.exec(req.url) : null;
  if (match) return status(req, res, req.url, match[1]);
  if (req.url === '/readyz') return answer(res, 200, { status: 'ready' });
  answer(res, 404, { code: 'route_not_found' });
}

const server = http.createServer(FRAMEWORK === 'http' ? bareHandler : expressApp());
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 3000), '127.0.0.1');
// Exit through process.exit on SIGTERM, so that `node --cpu-prof` writes its profile (bench/profile.js).
process.on('SIGTERM', () => process.exit(0));
