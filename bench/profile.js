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
const { LIMIT_SERVERS, pinSelf, freePort, startBank, startLimitServer, waitForAnswer, stop, tempDir } = require('./lib/processes');
const { fetchToken } = require('./lib/signing');
const { firePool, signedRequests } = require('./lib/signed-load');
const { top, printCosts } = require('./profile-top');

const ROOT = path.resolve(__dirname, '..');
const BANK_ROOT = process.env.BANK_ROOT ? path.resolve(process.env.BANK_ROOT) : ROOT;
const option = (name, fallback) => (process.argv.find((arg) => arg.startsWith(`--${name}=`)) ?? `--${name}=${fallback}`).split('=')[1];
const FLOW = process.argv[2] === 'status' ? 'status' : 'create';
const SERVER = option('server', 'bank');
const REQUESTS = Number(option('requests', 20_000));
const CONNECTIONS = Number(option('connections', 20));

function launchProfiled(port, dataDir, profileDir) {
  const profiling = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  // From the modules, not the bundle: the profile's frames then name each file (profile-top.js classes them by it).
  if (SERVER === 'bank') return startBank(BANK_ROOT, port, dataDir, { FAST_START: 'off' }, profiling);
  return startLimitServer(port, dataDir, LIMIT_SERVERS[SERVER] ?? LIMIT_SERVERS.limit, profiling);
}

async function main() {
  pinSelf();
  const profileDir = path.join(__dirname, 'results', 'profiles', `${FLOW}-${SERVER}-${Date.now()}`);
  fs.mkdirSync(profileDir, { recursive: true });
  const port = await freePort();
  const child = launchProfiled(port, tempDir('bench-profile-'), profileDir);
  const base = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${base}/readyz`, performance.now(), { wantStatus: 200 });
  // The limit servers ignore the token; the Bank's own is used only when it is the server.
  const token = SERVER === 'bank' ? await fetchToken(base) : 'x'.repeat(400);
  const { request, seeded } = await signedRequests(base, token, FLOW);
  const pool = Array.from({ length: REQUESTS }, (_, index) => request(index));
  const result = await firePool(base, pool, CONNECTIONS);
  await stop(child);
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  console.log(`${FLOW} on ${SERVER}, c=${CONNECTIONS}: ${Math.round(result.requests.total / result.duration)}/s under the profiler, non-2xx ${result.non2xx}`);
  for (const by of ['function', 'file']) {
    const { totalMs, rows } = top(path.join(profileDir, file), { limit: by === 'function' ? 30 : 20, by });
    console.log(`\nself time by ${by} (${totalMs.toFixed(0)} ms sampled), ${path.relative(ROOT, path.join(profileDir, file))}`);
    for (const row of rows) console.log(`${row.pct.toFixed(1).padStart(5)} %  ${row.key}`);
  }
  console.log('');
  printCosts(path.join(profileDir, file), REQUESTS + seeded + (SERVER === 'bank' ? 1 : 0));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
