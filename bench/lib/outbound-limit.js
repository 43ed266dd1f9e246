// The outbound limit: only what the pipeline from a pull to a delivered callback cannot avoid, as the yardstick
// bench/outbound.js divides the Bank by (the outbound counterpart of bench/limit-server.js). It runs where the
// Bank would (its own process, pinned the same way), against the same fake Connector, and when told `go`:
//   pull     GET the Connector's pages of 1,000 orders (signed: one SHA-256 and one ES256 sign a page), JSON.parse
//   unit     per order: its status object as JSON, one SHA-256 (Content-Digest), one ES256 sign with a cached
//            KeyObject over the profile's signature base, one POST over the keep-alive agent, the answer read
//   batch    the same per batch of `batchSize` orders
// with `concurrency` requests in flight, as many sockets as the Bank's dispatcher uses. No SQLite, no token, no
// journal, no retry bookkeeping: the Bank's whole cost above this is its own or its storage's.
// argv[2] is the JSON { config, tls } that bench/lib/outbound-bank.js takes; it reads connectorUrl, callbackMode,
// pollLimit, batchSize and dispatchConcurrency from config.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const tls = require('node:tls');

const CALLBACK_HEADERS = ['x-client-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'];
const PULL_HEADERS = ['x-client-id', 'x-timestamp', 'x-nonce'];
const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const PROTECTED = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'limit', typ: 'JOSE' })).toString('base64url');

/** The profile's signature base (section 1) and its detached ES256 JWS: one SHA-256, one sign. */
function signedHeaders(method, target, names, values, body) {
  const headers = { 'x-client-id': 'sandbox-bank', 'x-timestamp': new Date().toISOString().slice(0, 19) + 'Z', 'x-nonce': crypto.randomUUID(), ...values };
  const digest = `sha-256=:${crypto.createHash('sha256').update(body).digest('base64')}:`;
  let base = `@method: ${method}\n@target-uri: ${target}`;
  for (const name of names) base += `\n${name}: ${headers[name]}`;
  base += `\ncontent-digest: ${digest}`;
  const input = `${PROTECTED}.${Buffer.from(base).toString('base64url')}`;
  const signature = crypto.sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  if (body.length > 0) headers['content-digest'] = digest;
  headers['x-signature'] = `${PROTECTED}..${signature}`;
  return headers;
}

function client(config, material) {
  const url = new URL(config.connectorUrl);
  const secure = url.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: config.dispatchConcurrency };
  const agent = secure ? new https.Agent({ ...agentOptions, secureContext: tls.createSecureContext(material) }) : new http.Agent(agentOptions);
  const transport = secure ? https : http;
  return (method, target, headers, body) => new Promise((resolve, reject) => {
    const req = transport.request({ protocol: url.protocol, hostname: url.hostname, port: url.port, path: target, method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function pullAll(send, limit, onPage) {
  let offset = '1970-01-01T00:00:00Z';
  for (;;) {
    const target = `/payment-orders?offset=${encodeURIComponent(offset)}&limit=${limit}`;
    const answer = await send('GET', target, signedHeaders('GET', target, PULL_HEADERS, {}, ''), '');
    if (answer.status === 204) return;
    const page = JSON.parse(answer.body);
    await onPage(page.content);
    if (page.content.length < limit) return;
    offset = new Date(Date.parse(page.content[page.content.length - 1].initiated_at) + 1).toISOString();
  }
}

function statusOf(order, index) {
  return { reference: order.reference, bank_reference: `SBX${String(index).padStart(13, '0')}`, status: 'SUCCESS', processed_at: new Date().toISOString() };
}

/** Sends each body with `concurrency` in flight; fails on the first answer that is not 2xx. */
async function deliver(send, bodies, concurrency) {
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const { target, key, json } = bodies[next++];
      const body = Buffer.from(json);
      const answer = await send('POST', target, { ...signedHeaders('POST', target, CALLBACK_HEADERS, { 'x-idempotency-key': key }, body), 'content-type': 'application/json' }, body);
      if (answer.status < 200 || answer.status > 299) throw new Error(`callback answered ${answer.status}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker));
}

async function run(config, material) {
  const send = client(config, material);
  let index = 0;
  await pullAll(send, config.pollLimit, async (orders) => {
    const statuses = orders.map((order) => statusOf(order, index++));
    const bodies = config.callbackMode === 'batch'
      ? chunks(statuses, config.batchSize).map((batch) => ({ target: '/callbacks/orders/status/batch', key: crypto.randomUUID(), json: JSON.stringify({ batch_id: crypto.randomUUID(), sent_at: new Date().toISOString(), orders: batch }) }))
      : statuses.map((status) => ({ target: '/callbacks/orders/status', key: `${status.bank_reference}:${status.status}`, json: JSON.stringify(status) }));
    await deliver(send, bodies, config.dispatchConcurrency);
  });
}

function chunks(items, size) {
  const out = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

function main() {
  const { config, tls: files } = JSON.parse(process.argv[2]);
  const material = files ? { ca: fs.readFileSync(files.ca), cert: fs.readFileSync(files.cert), key: fs.readFileSync(files.key) } : {};
  process.on('message', (message) => {
    if (message === 'go') run(config, material).catch((error) => {
      console.error(error);
      process.exit(1);
    });
    if (message === 'stop') process.exit(0);
  });
  process.send('ready');
}

main();
