// Outbound pipeline: orders/s from the pull to a delivered callback, for unit and batch modes, over plain HTTP and
// over keep-alive mutual TLS (the dev PKI: the fake Connector serves its client certificate and asks for the
// Bank's). The Bank runs in a process of its own (bench/lib/outbound-bank.js, pinned to core 0 like the server
// under test in `npm run bench`); the fake Connector runs here, on the last core, and answers 200 without
// verifying signatures, so the figure is the Bank's.
//   node bench/outbound.js [orders] [--transport=http,mtls] [--modes=unit,batch] [--servers=limit,bank]
//   Each mode runs first on the outbound limit (bench/lib/outbound-limit.js: only the HTTP, TLS, signing and JSON
//   the pipeline cannot avoid), then on the Bank, whose orders/s is also given as a ratio to the limit's.
//   OUTBOUND_PROFILE=<dir>: the Bank runs under node --cpu-prof, its profile written there.
//   OUTBOUND_CONFIG='{"journal":"off"}': more Bank settings (config.ts names), to see what one of them costs.
//   OUTBOUND_NODE_FLAGS='--trace-gc': more node flags for the sender (node refuses some of them in NODE_OPTIONS).
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');
const { CORES, cpuMicros, pinSelf, tempDir } = require('./lib/processes');
const { bankNodeFlags } = require('../scripts/start-flags');

const ROOT = path.resolve(__dirname, '..');

function connectorOrders(count, metadataOf = () => undefined) {
  const orders = [];
  for (let index = 0; index < count; index += 1) {
    orders.push({
      reference: `OUT-${index}`,
      initiated_at: new Date(Date.parse('2026-11-01T00:00:00Z') + index * 1000).toISOString().replace('.000Z', 'Z'),
      reason: 'bench', type: 'CREDIT_TRANSFER',
      debtor: { name: 'Debtor', iban: 'DE89370400440532013000' },
      creditors: [{ name: 'Creditor', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount: '10.00', reason: 'bench' }],
      total_amount: '10.00', currency: 'EUR',
      ...(metadataOf(index) ? { metadata: metadataOf(index) } : {}),
    });
  }
  return orders;
}

/**
 * A fake Connector: pages of the pre-built orders (inclusive offset), and a counter of finals. With `tls`
 * ({ key, cert, ca }) it serves HTTPS and accepts only clients with a certificate from that CA (mutual TLS).
 */
function fakeConnector(orders, tls = null) {
  const finals = new Set();
  let callbacks = 0;
  const byTime = orders.map((order) => ({ order, ms: Date.parse(order.initiated_at), json: JSON.stringify(order) }));
  const handler = (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url, 'http://fake');
      if (url.pathname === '/payment-orders') {
        const offset = Date.parse(url.searchParams.get('offset'));
        const limit = Number(url.searchParams.get('limit'));
        let first = byTime.findIndex((entry) => entry.ms >= offset);
        if (first < 0) first = byTime.length;
        const page = byTime.slice(first, first + limit);
        if (page.length === 0) return res.writeHead(204).end();
        return res.writeHead(200, { 'content-type': 'application/json' }).end(`{"offset":"${url.searchParams.get('offset')}","limit":${limit},"size":${page.length},"total_elements":${byTime.length - first},"content":[${page.map((entry) => entry.json).join(',')}]}`);
      }
      callbacks += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const item of body.orders ?? [body]) if (item.status !== 'PENDING') finals.add(item.reference);
      res.writeHead(200).end('{}');
    });
  };
  const server = tls ? https.createServer({ ...tls, requestCert: true, rejectUnauthorized: true }, handler) : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  return { server, finals, callbacks: () => callbacks };
}

/** A dev PKI (CA, the Bank's client certificate, the demo Connector's certificate, which also serves HTTPS). */
async function devPki() {
  const { ensureDevPki } = require('../dist/bank/security/pki');
  const dir = tempDir('bench-pki-');
  const { files } = await ensureDevPki({ dir, bankClientId: 'sandbox-bank', clientIds: ['demo-connector'], serverNames: [] });
  return { files, dir };
}

/**
 * The process that pulls and calls back: the Bank's (bench/lib/outbound-bank.js, the build in `root`) or, `limit`,
 * the outbound limit's (bench/lib/outbound-limit.js), with `env` added to this process's environment; pinned to
 * core 0 when there are two cores; resolves once it is ready.
 */
function startSender(settings, { limit = false, root = ROOT, env = {} } = {}) {
  const script = path.join(__dirname, 'lib', limit ? 'outbound-limit.js' : 'outbound-bank.js');
  const profile = process.env.OUTBOUND_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.OUTBOUND_PROFILE}`] : [];
  const extra = (process.env.OUTBOUND_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const node = [process.execPath, ...bankNodeFlags(root), ...profile, ...extra, script, JSON.stringify({ ...settings, root })];
  const [command, ...args] = CORES >= 2 ? ['taskset', '-c', '0', ...node] : node;
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (message) => (message === 'ready' ? resolve(child) : reject(new Error(String(message)))));
    child.once('exit', (code) => reject(new Error(`the outbound Bank exited with ${code}`)));
  });
}

/**
 * A fake Connector with `count` orders and a sender ready to pull them: `sender` is { limit, root, env } as
 * startSender takes.
 */
async function prepareRun(mode, count, transport, sender = {}) {
  const orders = connectorOrders(count);
  const generated = transport === 'mtls' ? await devPki() : null;
  const pki = generated?.files ?? null;
  const fake = fakeConnector(orders, pki && { key: fs.readFileSync(pki.clientKey('demo-connector')), cert: fs.readFileSync(pki.clientCert('demo-connector')), ca: fs.readFileSync(pki.caCert) });
  await new Promise((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  const scheme = pki ? 'https://localhost' : 'http://127.0.0.1';
  const config = {
    dataDir: tempDir('bench-outbound-'), clientsFile: path.join(ROOT, 'fixtures/clients.json'), sandboxMode: 'relaxed', pollCron: 'off',
    connectorUrl: `${scheme}:${fake.server.address().port}`, callbackMode: mode, pollLimit: 1000, batchSize: 500,
    batchWindowMs: 0, dispatchConcurrency: 64, reportPending: false, logLevel: 'error',
    ...(process.env.OUTBOUND_CONFIG ? JSON.parse(process.env.OUTBOUND_CONFIG) : {}),
  };
  const tls = pki && { ca: pki.caCert, cert: pki.bankClientCert, key: pki.bankClientKey };
  const child = await startSender({ config, tls }, sender);
  // Removed right after the run, not only at exit: a run of 100,000 orders leaves ~100 MB of SQLite behind.
  const dirs = [config.dataDir, ...(generated ? [generated.dir] : [])];
  return { mode, count, transport, fake, child, dirs, limit: Boolean(sender.limit) };
}

/** Tells a prepared sender to go; resolves once the fake Connector has every final, with the sender's figures. */
async function measureRun({ mode, count, transport, fake, child, dirs, limit }) {
  const started = performance.now();
  const cpuBefore = cpuMicros(child.pid);
  let exitCode = null;
  child.once('exit', (code) => (exitCode = code));
  child.send('go');
  while (fake.finals.size < count) {
    if (exitCode !== null) throw new Error(`the outbound ${limit ? 'limit' : 'Bank'} exited with ${exitCode} after ${fake.finals.size} of ${count} finals`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuMicros(child.pid);
  // Less noisy than orders/s on a shared machine: what each order cost the process, whatever else ran meanwhile.
  const cpuUsPerOrder = cpuBefore === null || cpuAfter === null ? null : Math.round((cpuAfter - cpuBefore) / count);
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  fake.server.close();
  fake.server.closeAllConnections?.();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  return { mode, transport, server: limit ? 'limit' : 'bank', orders: count, seconds, ordersPerS: Math.round(count / seconds), callbacks: fake.callbacks(), cpuUsPerOrder };
}

async function runMode(mode, count, transport, limit = false) {
  return measureRun(await prepareRun(mode, count, transport, { limit }));
}

function resultLine(result) {
  const cpu = result.cpuUsPerOrder === null ? '' : `, CPU ${result.cpuUsPerOrder} µs an order`;
  const ratio = result.ratio === undefined ? '' : `, ${result.ratio.toFixed(2)}x the limit`;
  return `outbound ${result.mode} over ${result.transport}, ${result.server}: ${result.orders} orders in ${result.seconds.toFixed(2)} s = ${result.ordersPerS}/s (${result.callbacks} callbacks${cpu})${ratio}`;
}

/**
 * Each mode over each transport: the outbound limit, then the Bank, in the same run (`servers` can leave one out).
 * The Bank's result carries its ratio to the limit's orders/s.
 */
async function outboundPipeline(count, { transports = ['http', 'mtls'], modes = ['unit', 'batch'], servers = ['limit', 'bank'] } = {}) {
  const results = [];
  for (const transport of transports) {
    for (const mode of modes) {
      const limit = servers.includes('limit') ? await runMode(mode, count, transport, true) : null;
      if (limit) {
        console.log(resultLine(limit));
        results.push(limit);
      }
      if (!servers.includes('bank')) continue;
      const bank = await runMode(mode, count, transport);
      if (limit) bank.ratio = bank.ordersPerS / limit.ordersPerS;
      console.log(resultLine(bank));
      results.push(bank);
    }
  }
  return results;
}

module.exports = { outboundPipeline, connectorOrders, fakeConnector, prepareRun, measureRun };

if (require.main === module) {
  const list = (name, fallback) => (process.argv.find((arg) => arg.startsWith(`--${name}=`)) ?? `--${name}=${fallback}`).split('=')[1].split(',');
  const count = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 100_000);
  pinSelf();
  outboundPipeline(count, { transports: list('transport', 'http,mtls'), modes: list('modes', 'unit,batch'), servers: list('servers', 'limit,bank') }).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
