// What the garbage collector does per signed request: the Bank under `node --trace-gc-nvp`, loaded like the bench
// (pre-signed requests, c=20, keep-alive), and V8's own figures summed over the measured requests. A request's
// objects should die young: bytes promoted per request well under a kilobyte, and no mark-compact during the load.
// usage: npm run build && node bench/gc.js [create|status] [requests]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { bankArgs, bankEnv, pinSelf, start, tempDir } = require('./lib/processes');
const { underSignedLoad } = require('./lib/signed-load');

const ROOT = process.env.BANK_ROOT || path.join(__dirname, '..');
const WARM_UP = 3000;
const CONNECTIONS = 20;

/** Sums V8's name=value trace lines: scavenges and mark-compacts, bytes allocated and promoted, pauses. */
function summarise(lines, requests) {
  const sum = { scavenges: 0, markCompacts: 0, allocated: 0, promoted: 0, scavengeMs: 0, markCompactMs: 0 };
  for (const line of lines) {
    const field = (name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    if (/ gc=s /.test(line)) {
      sum.scavenges += 1;
      sum.allocated += field('allocated');
      sum.promoted += field('promoted');
      sum.scavengeMs += field('pause');
    } else if (/ gc=(mc|ms|mmc) /.test(line)) {
      sum.markCompacts += 1;
      sum.markCompactMs += field('pause');
    }
  }
  return {
    requests,
    scavenges: sum.scavenges,
    markCompacts: sum.markCompacts,
    allocatedPerRequestB: Math.round(sum.allocated / requests),
    promotedPerRequestB: Math.round(sum.promoted / requests),
    scavengeUsPerRequest: Number(((sum.scavengeMs * 1000) / requests).toFixed(1)),
    markCompactPauseUsPerRequest: Number(((sum.markCompactMs * 1000) / requests).toFixed(1)),
  };
}

async function main() {
  const flow = process.argv[2] === 'status' ? 'status' : 'create';
  const requests = Number(process.argv[3] ?? 20_000);
  pinSelf();
  const trace = path.join(tempDir('bench-gc-'), 'trace.txt');
  const dataDir = tempDir('bench-gc-data-');
  const traceLines = () => fs.readFileSync(trace, 'utf8').split('\n');
  let measuredFrom = 0;
  let lines = [];
  const { result } = await underSignedLoad({
    server: 'bank', flow, requests, connections: CONNECTIONS, warmUp: WARM_UP,
    afterWarmUp: () => {
      measuredFrom = traceLines().length - 1;
    },
    // Read before the stop, so that nothing the shutdown does is counted.
    afterLoad: () => {
      lines = traceLines().slice(measuredFrom);
    },
    // The trace goes to stdout, which the bench's start() discards: a shell sends it to a file instead.
    start: (port) => start('/bin/sh', ['-c', `exec "${process.execPath}" ${bankArgs(ROOT, ['--trace-gc-nvp']).map((arg) => `"${arg}"`).join(' ')} > "${trace}"`], { cwd: ROOT, env: bankEnv(port, dataDir) }),
  });
  const failed = result.non2xx + result.errors;
  console.log(JSON.stringify({ flow, ...summarise(lines, requests), non2xx: result.non2xx, errors: result.errors }));
  if (failed > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
