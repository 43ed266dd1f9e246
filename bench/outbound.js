// Outbound pipeline: orders/s from the pull to a delivered callback, against an in-process fake Connector,
// for unit and batch modes. The fake answers 200 without verifying signatures, so the figure is the Bank's.
'use strict';
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { createBank } = require('../dist/bank/bank');
const { DEFAULTS } = require('../dist/bank/config');
const { createLogger } = require('../dist/wire/logger');

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

/** A fake Connector: pages of the pre-built orders (inclusive offset), and a counter of finals. */
function fakeConnector(orders) {
  const finals = new Set();
  let callbacks = 0;
  const byTime = orders.map((order) => ({ order, ms: Date.parse(order.initiated_at), json: JSON.stringify(order) }));
  const server = http.createServer((req, res) => {
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
  });
  return { server, finals, callbacks: () => callbacks };
}

async function runMode(mode, count) {
  const orders = connectorOrders(count);
  const fake = fakeConnector(orders);
  await new Promise((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-outbound-'));
  const config = {
    ...DEFAULTS, dataDir, clientsFile: path.join(ROOT, 'fixtures/clients.json'), sandboxMode: 'relaxed', pollCron: 'off',
    connectorUrl: `http://127.0.0.1:${fake.server.address().port}`, callbackMode: mode, pollLimit: 1000, batchSize: 500,
    batchWindowMs: 0, dispatchConcurrency: 64, reportPending: false, logLevel: 'error',
  };
  const bank = await createBank(config, { logger: createLogger('error', true) });
  bank.outbound.start();
  const started = performance.now();
  await bank.outbound.poller.runCycle();
  while (fake.finals.size < count) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  await bank.outbound.stop(1000);
  bank.close();
  fake.server.close();
  return { mode, orders: count, seconds, ordersPerS: Math.round(count / seconds), callbacks: fake.callbacks() };
}

async function outboundPipeline(count) {
  const results = [];
  for (const mode of ['unit', 'batch']) {
    const result = await runMode(mode, count);
    console.log(`outbound ${mode}: ${result.orders} orders in ${result.seconds.toFixed(2)} s = ${result.ordersPerS}/s (${result.callbacks} callbacks)`);
    results.push(result);
  }
  return results;
}

module.exports = { outboundPipeline, connectorOrders, fakeConnector };
if (require.main === module) outboundPipeline(Number(process.argv[2] ?? 100_000)).catch((error) => { console.error(error); process.exit(1); });
