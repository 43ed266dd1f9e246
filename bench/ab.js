#!/usr/bin/env node
// A/B of two servers' CPU time a request, measured side by side (lib/side-by-side.js): both run at once on the
// server core and take the same signed load at the same time, so that whatever slows this machine down slows both
// alike. Use it to decide whether a change helps: one server measured after the other cannot show a change under
// ~20 % here.
//   node bench/ab.js create|status <A> <B> [--rounds=5] [--requests=10000] [--connections=10] [--warm-up=3000] [--alone] [--neighbour]
// A and B are `bank`, `bank:<dir>` (another build: its dist/), `limit`, `limit-http` or `required` (the limit
// servers), each with optional environment after `?`: `bank?JOURNAL=off`, `bank:/tmp/other?FAST_START=off`. The
// Bank starts as `npm start` starts it (its package.json's flags). Prints B's CPU a request over A's, per round
// and the median, with the part of it on the main thread. `--alone` runs each round's two servers one after the
// other, each alone on the server core as in `npm run bench`, and prints their throughput ratio as well: a check
// on what sharing the core does to the side-by-side figure, far noisier from round to round. `--neighbour` runs
// lib/cache-neighbour.js on the server core throughout: a slow phase of this machine, on demand.
'use strict';
const path = require('node:path');
const { pinSelf, start, stop } = require('./lib/processes');
const { parseServer, sideBySide } = require('./lib/side-by-side');
const { option: textOption } = require('./lib/args');

const USAGE = 'usage: node bench/ab.js create|status <A> <B> [--rounds=5] [--requests=10000] [--connections=10] [--warm-up=3000] [--alone] [--neighbour]';

const option = (name, fallback) => Number(textOption(name, fallback));
const [FLOW, ...SPECS] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

async function main() {
  if (!['create', 'status'].includes(FLOW) || SPECS.length !== 2) {
    console.error(USAGE);
    process.exit(2);
  }
  SPECS.forEach(parseServer); // refuses an unknown server before anything starts
  pinSelf();
  const alone = process.argv.includes('--alone');
  const rate = (rpsA, rpsB, rpsRatio) => (alone ? `; alone A ${Math.round(rpsA)}/s, B ${Math.round(rpsB)}/s, B ÷ A ${rpsRatio.toFixed(3)}` : '');
  const neighbour = process.argv.includes('--neighbour') ? start(process.execPath, [path.join(__dirname, 'lib', 'cache-neighbour.js')]) : null;
  const result = await sideBySide(FLOW, SPECS[0], SPECS[1], {
    rounds: option('rounds', 5),
    requests: option('requests', 10_000),
    connections: option('connections', 10),
    warmUp: option('warm-up', 3_000),
    alone,
    onRound: ({ round, a, b, mainA, mainB, ratio, rpsA, rpsB, rpsRatio }) =>
      console.log(`round ${round}: A ${a.toFixed(1)} µs (main thread ${mainA.toFixed(1)}), B ${b.toFixed(1)} µs (main thread ${mainB.toFixed(1)}) a ${FLOW}, B ÷ A ${ratio.toFixed(3)}${rate(rpsA, rpsB, rpsRatio)}`),
  }).finally(() => neighbour && stop(neighbour));
  // A large gap between all threads and the main thread is V8's background work: recompiling, concurrent marking.
  console.log(`A ${SPECS[0]}: median ${result.medianA.toFixed(1)} µs a ${FLOW}, main thread ${result.medianMainA.toFixed(1)}`);
  console.log(`B ${SPECS[1]}: median ${result.medianB.toFixed(1)} µs a ${FLOW}, main thread ${result.medianMainB.toFixed(1)}`);
  console.log(`B ÷ A: ${result.ratios.map((ratio) => ratio.toFixed(3)).join(' ')}; median ${result.medianRatio.toFixed(3)}`);
  if (alone) console.log(`B ÷ A throughput: ${result.rpsRatios.map((ratio) => ratio.toFixed(3)).join(' ')}; median ${result.medianRpsRatio.toFixed(3)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
