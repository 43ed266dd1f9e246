// How soon GET /sandbox/orders/{client}/{reference}/wait answers after the status change (control-plane.md
// section 6: a bench figure, not a test assertion). In process, on a real socket; forced outcomes change the
// status. Run after `npm run build`:  node bench/wait-latency.js 200
'use strict';
const http = require('node:http');
const path = require('node:path');
const { createBank } = require('../dist/bank/bank');
const { DEFAULTS } = require('../dist/bank/config');
const { createLogger } = require('../dist/wire/logger');
const { connectorOrders } = require('./outbound');
const { tempDir } = require('./lib/processes');

const ROOT = path.resolve(__dirname, '..');

async function waitLatency(count) {
  const config = {
    ...DEFAULTS, dataDir: tempDir('bench-wait-'), clientsFile: path.join(ROOT, 'fixtures/clients.json'),
    sandboxMode: 'relaxed', pollCron: 'off', logLevel: 'error',
  };
  const bank = await createBank(config, { logger: createLogger('error', true) });
  const server = http.createServer(bank.app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}/sandbox`;
  const orders = connectorOrders(count, () => ({ sandbox_scenario: 'NO_CALLBACK' }));
  bank.pulledOrders.storePage('demo-connector', orders, '2026-01-01T00:00:00Z');
  const latencies = [];
  for (const order of orders) {
    const waiting = fetch(`${base}/orders/demo-connector/${order.reference}/wait?status=final&timeout_s=10`).then(() => performance.now());
    await new Promise((resolve) => setTimeout(resolve, 2));
    const changedAt = performance.now();
    bank.book.forceOutcome('demo-connector', order.reference, { status: 'SUCCESS' });
    latencies.push((await waiting) - changedAt);
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
  console.log(`wait: answered ${at(0.5)} ms (p50), ${at(0.99)} ms (p99), ${latencies[latencies.length - 1].toFixed(2)} ms (max) after the status change, over ${count} orders`);
  server.close();
  bank.close();
}

if (require.main === module) waitLatency(Number(process.argv[2] ?? 200)).catch((error) => { console.error(error); process.exit(1); });
module.exports = { waitLatency };
