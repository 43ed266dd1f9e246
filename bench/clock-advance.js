// Test clock advance (issue 3/7): how long one advance takes over N due items, each a PENDING settlement with a
// distinct due time and its unit callback delivered to an in-process fake Connector. Run after `npm run build`:
//   node bench/clock-advance.js 10000
'use strict';
const path = require('node:path');
const { createBank } = require('../dist/bank/bank');
const { DEFAULTS } = require('../dist/bank/config');
const { createLogger } = require('../dist/wire/logger');
const { connectorOrders, fakeConnector } = require('./outbound');
const { tempDir } = require('./lib/processes');

const ROOT = path.resolve(__dirname, '..');

async function clockAdvance(count) {
  // Orders pend 1..count seconds: count distinct due times, each with its settlement and its callback.
  const orders = connectorOrders(count, (index) => ({ sandbox_scenario: `PENDING:${index + 1}:SUCCESS` }));
  const fake = fakeConnector(orders);
  await new Promise((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  const config = {
    ...DEFAULTS, dataDir: tempDir('bench-clock-'), clientsFile: path.join(ROOT, 'fixtures/clients.json'),
    sandboxMode: 'relaxed', pollCron: 'off', connectorUrl: `http://127.0.0.1:${fake.server.address().port}`, callbackMode: 'unit',
    pollLimit: 1000, reportPending: false, dispatchConcurrency: 64, logLevel: 'error',
  };
  const bank = await createBank(config, { logger: createLogger('error', true) });
  const clientId = 'demo-connector';
  bank.clocks.attach(clientId, Date.parse('2026-11-22T10:00:00Z'));
  await bank.outbound.poller.runCycle();
  const started = performance.now();
  const report = await bank.testClocks.advance(clientId, Date.parse('2026-11-22T10:00:00Z') + (count + 1) * 1000);
  const seconds = (performance.now() - started) / 1000;
  const settled = report.fired.filter((item) => item.kind === 'settlement').length;
  bank.close();
  fake.server.close();
  const result = { items: count, settled, finals: fake.finals.size, seconds: Number(seconds.toFixed(3)) };
  console.log(`clock advance: ${settled} settlements and ${fake.finals.size} callbacks in ${seconds.toFixed(2)} s`);
  return result;
}

module.exports = { clockAdvance };
if (require.main === module) clockAdvance(Number(process.argv[2] ?? 10_000)).catch((error) => { console.error(error); process.exit(1); });
