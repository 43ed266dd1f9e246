#!/usr/bin/env node
// What allocates a request's memory: the Bank (or a limit server) under the bench's signed load (pinned like `npm
// run bench`, c=20, keep-alive), V8's sampling heap profiler on after a warm-up, dead objects included, then the
// bytes allocated per request by function and by file, largest first. bench/gc.js gives the total and what the
// collector does with it; this says where it comes from.
//   node bench/allocations.js [create|status] [--server=bank|limit|required|lean] [--requests=20000] [--connections=20] [--top=30]
// BANK_ROOT samples another build of the Bank (its dist/), for a before/after comparison.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pinSelf, startServerUnderTest, tempDir } = require('./lib/processes');
const { underSignedLoad } = require('./lib/signed-load');
const { frameKey, ownerOf } = require('./profile-top');
const { loadTarget, option } = require('./lib/args');

const { flow: FLOW, server: SERVER, requests: REQUESTS, connections: CONNECTIONS, bankRoot: BANK_ROOT } = loadTarget(20_000);
const TOP = Number(option('top', 30));
const WARM_UP = 3000;
const SAMPLER = ['--require', path.join(__dirname, 'lib', 'allocation-sampler.js')];

/** Self bytes summed by `keyOf(frame)` over the profile's call tree. */
function sums(profile, keyOf) {
  const totals = new Map();
  let all = 0;
  const visit = (node) => {
    const key = keyOf(node.callFrame);
    totals.set(key, (totals.get(key) ?? 0) + node.selfSize);
    all += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return { all, rows: [...totals].sort((a, b) => b[1] - a[1]) };
}

function print(title, { all, rows }, requests) {
  console.log(`\n${title}`);
  for (const [key, bytes] of rows.slice(0, TOP)) {
    console.log(`${String(Math.round(bytes / requests)).padStart(7)} B  ${((bytes / all) * 100).toFixed(1).padStart(5)} %  ${key}`);
  }
}

async function main() {
  pinSelf();
  const dir = tempDir('bench-allocations-');
  const file = path.join(dir, 'allocations.heapprofile');
  const { result } = await underSignedLoad({
    server: SERVER, flow: FLOW, requests: REQUESTS, connections: CONNECTIONS, warmUp: WARM_UP,
    afterWarmUp: (child) => process.kill(child.pid, 'SIGUSR2'),
    start: (port) => startServerUnderTest(SERVER, BANK_ROOT, port, tempDir('bench-allocations-data-'), { ALLOCATION_PROFILE_FILE: file }, SAMPLER),
  });
  if (!fs.existsSync(file)) throw new Error(`${SERVER} wrote no allocation profile (is ${SAMPLER[1]} loaded?)`);
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byFunction = sums(profile, frameKey);
  console.log(`${FLOW} on ${SERVER}, c=${CONNECTIONS}: ${REQUESTS} requests sampled after ${WARM_UP} of warm-up, non-2xx ${result.non2xx}`);
  console.log(`allocated: ${Math.round(byFunction.all / REQUESTS)} B a request (sampled; bench/gc.js counts V8's own total)`);
  print('allocated a request, by function', byFunction, REQUESTS);
  print('allocated a request, by file', sums(profile, (frame) => ownerOf(frame.url)), REQUESTS);
  console.log(`\nprofile: ${file} (open it in Chrome DevTools, Memory tab, to see the call tree)`);
  if (result.non2xx + result.errors > 0) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { sums };
