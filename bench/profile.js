#!/usr/bin/env node
// A CPU profile of a server under the bench's own load: `node --cpu-prof` on the Bank (or the limit server),
// pinned like `npm run bench`, autocannon with pre-signed requests at c=20, then the top frames by self time
// and the busy time per request by what spends it (profile-top.js --by=cost).
//   node bench/profile.js [create|status] [--server=bank|limit|limit-http|required] [--requests=20000] [--connections=20]
// The .cpuprofile is kept in bench/results/profiles/ (open it in Chrome DevTools for the call tree). BANK_ROOT
// profiles another build of the Bank (its dist/), for a before/after comparison.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pinSelf, startServerUnderTest, tempDir } = require('./lib/processes');
const { underSignedLoad } = require('./lib/signed-load');
const { top, printCosts } = require('./profile-top');
const { loadTarget } = require('./lib/args');

const ROOT = path.resolve(__dirname, '..');
const { flow: FLOW, server: SERVER, requests: REQUESTS, connections: CONNECTIONS, bankRoot: BANK_ROOT } = loadTarget(20_000);

async function main() {
  pinSelf();
  const profileDir = path.join(__dirname, 'results', 'profiles', `${FLOW}-${SERVER}-${Date.now()}`);
  fs.mkdirSync(profileDir, { recursive: true });
  // profile-top.js classes the frames by the file each names.
  const profiling = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const { result, before } = await underSignedLoad({
    server: SERVER, flow: FLOW, requests: REQUESTS, connections: CONNECTIONS,
    start: (port) => startServerUnderTest(SERVER, BANK_ROOT, port, tempDir('bench-profile-'), {}, profiling),
  });
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  console.log(`${FLOW} on ${SERVER}, c=${CONNECTIONS}: ${Math.round(result.requests.total / result.seconds)}/s under the profiler, non-2xx ${result.non2xx}`);
  for (const by of ['function', 'file']) {
    const { totalMs, rows } = top(path.join(profileDir, file), { limit: by === 'function' ? 30 : 20, by });
    console.log(`\nself time by ${by} (${totalMs.toFixed(0)} ms sampled), ${path.relative(ROOT, path.join(profileDir, file))}`);
    for (const row of rows) console.log(`${row.pct.toFixed(1).padStart(5)} %  ${row.key}`);
  }
  console.log('');
  printCosts(path.join(profileDir, file), REQUESTS + before);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
