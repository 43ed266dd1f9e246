// The Bank of bench/outbound.js, in a process of its own (pinned like the server under test in `npm run bench`):
// made from the JSON settings in argv[2], its outgoing side started; it pulls and calls back when told `go`.
// `root` in the settings: the build whose dist/ is the Bank (bench/outbound-ab.js compares two).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const { config, tls, root = path.join(__dirname, '..', '..') } = JSON.parse(process.argv[2]);
  const { createBank } = require(path.join(root, 'dist/bank/bank'));
  const { DEFAULTS } = require(path.join(root, 'dist/bank/config'));
  const { createLogger } = require(path.join(root, 'dist/wire/logger'));
  const connectorTls = tls ? { ca: fs.readFileSync(tls.ca), cert: fs.readFileSync(tls.cert), key: fs.readFileSync(tls.key) } : undefined;
  const bank = await createBank({ ...DEFAULTS, ...config }, { logger: createLogger('error', true), connectorTls });
  bank.outbound.start();
  process.on('message', async (message) => {
    if (message === 'go') await bank.outbound.poller.runCycle();
    if (message === 'stop') {
      await bank.outbound.stop(1000);
      bank.close();
      process.exit(0);
    }
  });
  process.send('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
