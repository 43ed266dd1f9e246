#!/usr/bin/env node
// A/B of two outbound pipelines' CPU time an order, side by side: both senders run at once on the server core,
// each pulling its own fake Connector's orders and calling it back (the fake Connectors run here, on the last
// core), so whatever slows this machine down slows both alike. bench/outbound.js runs one after the other, which
// here cannot show a change under ~20 %: the same build moved from 688 to 761 µs an order within ten minutes.
//   node bench/outbound-ab.js unit|batch <A> <B> [--rounds=4] [--orders=20000] [--transport=mtls|http]
// A and B are `bank` (this checkout's dist/), `bank:<dir>` (another build: its dist/) or `limit` (the outbound
// limit, lib/outbound-limit.js), each with `?ENV=value&…` for its own environment. OUTBOUND_CONFIG applies to both.
// Prints B's CPU an order over A's, per round and the median.
'use strict';
const path = require('node:path');
const { median, pinSelf, splitSpec } = require('./lib/processes');
const { measureRun, prepareRun } = require('./outbound');
const { option } = require('./lib/args');

const USAGE = 'usage: node bench/outbound-ab.js unit|batch <A> <B> [--rounds=4] [--orders=20000] [--transport=mtls|http]';
const [MODE, ...SPECS] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

/** What startSender takes for a sender named on the command line. */
function senderOf(spec) {
  const { name, env } = splitSpec(spec);
  if (name === 'limit') return { limit: true, env };
  if (name === 'bank') return { env };
  if (name.startsWith('bank:')) return { root: path.resolve(name.slice('bank:'.length)), env };
  throw new Error(`unknown sender "${spec}": bank, bank:<dir> or limit, with ?ENV=value&…`);
}

async function main() {
  const transport = option('transport', 'mtls');
  if (!['unit', 'batch'].includes(MODE) || SPECS.length !== 2 || !['mtls', 'http'].includes(transport)) {
    console.error(USAGE);
    process.exit(2);
  }
  const senders = SPECS.map(senderOf);
  const rounds = Number(option('rounds', 4));
  const orders = Number(option('orders', 20_000));
  pinSelf();
  const ratios = [];
  const cpu = [[], []];
  for (let round = 1; round <= rounds; round += 1) {
    const prepared = [];
    for (const sender of senders) prepared.push(await prepareRun(MODE, orders, transport, sender));
    const [a, b] = await Promise.all(prepared.map(measureRun));
    const ratio = b.cpuUsPerOrder / a.cpuUsPerOrder;
    cpu[0].push(a.cpuUsPerOrder);
    cpu[1].push(b.cpuUsPerOrder);
    ratios.push(ratio);
    console.log(`round ${round}: A ${a.cpuUsPerOrder} µs an order (${a.ordersPerS}/s), B ${b.cpuUsPerOrder} µs (${b.ordersPerS}/s), B ÷ A ${ratio.toFixed(3)}`);
  }
  console.log(`A ${SPECS[0]}: median ${Math.round(median(cpu[0]))} µs an order; B ${SPECS[1]}: median ${Math.round(median(cpu[1]))} µs`);
  console.log(`B ÷ A: ${ratios.map((ratio) => ratio.toFixed(3)).join(' ')}; median ${median(ratios).toFixed(3)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
