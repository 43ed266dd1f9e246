#!/usr/bin/env node
// A full conformance run against the reference Connector (issue 4/7: under 60 s), with the wall time of each group.
// In-process Bank and Connector on real ports, the Connector's reverse poller on a short schedule; the client.*
// window is the run's default unless given: `node bench/conformance.js [window_s]`. Needs `npm run build`.
'use strict';
const http = require('node:http');
const path = require('node:path');
const { tempDir } = require('./lib/processes');

const dist = path.resolve(__dirname, '..', 'dist');
const { createBank } = require(`${dist}/bank/bank.js`);
const { loadConfig } = require(`${dist}/bank/config.js`);
const { loadConnectorConfig } = require(`${dist}/connector/config.js`);
const { startReferenceConnector, connectorLogger } = require(`${dist}/connector/connector.js`);
const { createLogger } = require(`${dist}/wire/logger.js`);

const root = path.resolve(__dirname, '..');
const windowS = process.argv[2] ? Number(process.argv[2]) : undefined;

function listen(handler) {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function main() {
  const tmp = tempDir('bench-conformance-');
  let app = null;
  const bankServer = await listen((req, res) => (app ? app(req, res) : res.writeHead(503).end()));
  const bankUrl = `http://127.0.0.1:${bankServer.address().port}`;
  const connector = await startReferenceConnector(
    loadConnectorConfig({
      CONNECTOR_PORT: '0', CONNECTOR_HOST: '127.0.0.1', CONNECTOR_DATA_DIR: path.join(tmp, 'connector'),
      CREDENTIALS_FILE: path.join(root, 'fixtures/demo-connector/credentials.json'),
      ORDERS_FIXTURE: path.join(root, 'fixtures/conformance-connector-orders.json'),
      BANK_URL: bankUrl, POLL_INITIAL_MS: '500', POLL_MAX_MS: '8000', CREATE_RETRY_INITIAL_MS: '200',
    }),
    { logger: connectorLogger('error', true) },
  );
  const config = loadConfig({}, {
    dataDir: path.join(tmp, 'bank'), sandboxMode: 'relaxed', connectorUrl: connector.url, connectorToken: 'demo-pull-token',
    pollCron: 'off', clientsFile: path.join(root, 'fixtures/clients.json'), port: 0, httpsPort: 0,
  });
  const bank = await createBank(config, { logger: createLogger('error', true) });
  app = bank.app;

  const started = performance.now();
  const run = bank.conformance.start({ client_id: 'demo-connector', ...(windowS ? { window_s: windowS } : {}) });
  await Promise.all(run.clientOrders.map(({ order }) => connector.bankClient.createOrder(order)));
  const done = await bank.conformance.finished(run.id);
  const totalS = (performance.now() - started) / 1000;

  const groups = {};
  for (const result of done.results) {
    const group = (groups[result.group] ??= { cases: 0, passed: 0, firstStart: Infinity, lastEnd: 0 });
    const start = Date.parse(result.startedAt);
    group.cases += 1;
    if (result.verdict === 'PASSED') group.passed += 1;
    group.firstStart = Math.min(group.firstStart, start);
    group.lastEnd = Math.max(group.lastEnd, start + result.durationMs);
  }
  const runStart = Date.parse(done.startedAt);
  console.log(`conformance run ${done.id}: ${done.state}, ${done.results.length} cases, window ${done.windowS} s, ${totalS.toFixed(2)} s in all`);
  console.log('group      cases  passed  starts at  wall time');
  for (const [name, group] of Object.entries(groups)) {
    console.log(`${name.padEnd(10)} ${String(group.cases).padStart(5)}  ${String(group.passed).padStart(6)}  ${((group.firstStart - runStart) / 1000).toFixed(2).padStart(7)} s  ${((group.lastEnd - group.firstStart) / 1000).toFixed(2).padStart(7)} s`);
  }
  await connector.close();
  await bank.outbound.stop(500);
  bank.close();
  bankServer.closeAllConnections();
  bankServer.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
