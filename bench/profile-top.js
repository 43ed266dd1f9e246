#!/usr/bin/env node
// The top frames of a V8 CPU profile (node --cpu-prof): self time per function, and self time summed per
// package or per file of ours, as bench/README.md lists them before and after an optimisation; or, --by=cost,
// the busy time per request by what spends it (SQLite, signature crypto, node, dependencies, our code, GC).
//   node bench/profile-top.js <file.cpuprofile> [--top=25] [--by=function|file|cost] [--requests=N]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** node_modules/<package> (scoped too), a path of ours relative to the repository, node's own, or (native). */
function ownerOf(url) {
  if (!url) return '(native or V8)';
  const file = url.replace(/^file:\/\//, '');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (inModules) return inModules[1];
  if (file.startsWith('node:') || !file.startsWith('/')) return `node:${file.replace(/^node:/, '')}`;
  const relative = path.relative(ROOT, file);
  // Another build of the Bank (BANK_ROOT): its own dist/.
  return relative.startsWith('..') && file.includes('/dist/') ? file.slice(file.lastIndexOf('/dist/') + 1) : relative;
}

/** A frame as the tables name it: function, owner and line. */
function frameKey(frame) {
  return `${frame.functionName || '(anonymous)'}  ${ownerOf(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  for (let index = 0; index < profile.samples.length; index += 1) {
    const id = profile.samples[index];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[index + 1] ?? 0));
  }
  return { byId, selfUs, totalUs: deltas.reduce((sum, delta) => sum + delta, 0) };
}

function top(file, { limit = 25, by = 'function' } = {}) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const { byId, selfUs, totalUs } = selfTimes(profile);
  const sums = new Map();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id).callFrame;
    const key = by === 'file' ? ownerOf(frame.url) : frameKey(frame);
    sums.set(key, (sums.get(key) ?? 0) + us);
  }
  const rows = [...sums].sort((a, b) => b[1] - a[1]).slice(0, limit);
  return { totalMs: totalUs / 1000, rows: rows.map(([key, us]) => ({ key, ms: us / 1000, pct: (us / totalUs) * 100 })) };
}

/**
 * What spends a sample's time: the first class that matches, in this order. Native calls are charged to the JavaScript frame that makes them, so SQLite is
 * every frame of better-sqlite3, of the Bank's store (thin statement wrappers, the group commit) and the limit
 * server's two statement functions.
 */
const COST_CLASSES = [
  ['SQLite', (frame, owner) => owner === 'better-sqlite3' || owner.startsWith('dist/bank/store/') || owner === 'dist/wire/sqlite.js' || (owner === 'bench/limit-server.js' && ['storeOrder', 'findOrder'].includes(frame.functionName))],
  ['signature crypto (ES256 sign/verify)', (frame, owner) => owner === 'node:internal/crypto/sig'],
  ['garbage collector', (frame) => frame.functionName === '(garbage collector)'],
  ['our JavaScript', (frame, owner) => owner.startsWith('dist/') || owner.startsWith('src/') || owner.startsWith('bench/')],
  ['express, router and other packages', (frame, owner) => !owner.startsWith('node:') && !owner.startsWith('(')],
  ['node and V8 (HTTP, TLS, streams, timers, hashing)', () => true],
];

/** The journal's share, across the classes: its own frames, and what runs under its application or store code. */
const JOURNAL_FILES = /^dist\/bank\/(application\/journal(-format)?|store\/journal|http\/journal)\.js$/;
// Not the HTTP capture as a caller: it calls the rest of the request (next, end) on the way.
const JOURNAL_CALLERS = /^dist\/bank\/(application\/journal|store\/journal)\.js$/;

/** Busy microseconds per request by cost class (idle left out), and the journal's part of them. */
function costs(file, requests) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const { byId, selfUs } = selfTimes(profile);
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inJournal = (id) => {
    if (JOURNAL_FILES.test(ownerOf(byId.get(id).callFrame.url))) return true;
    for (let current = parentOf.get(id); current !== undefined; current = parentOf.get(current)) {
      if (JOURNAL_CALLERS.test(ownerOf(byId.get(current).callFrame.url))) return true;
    }
    return false;
  };
  const sums = new Map(COST_CLASSES.map(([name]) => [name, 0]));
  let journalUs = 0;
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    const owner = ownerOf(frame.url);
    const [name] = COST_CLASSES.find(([, matches]) => matches(frame, owner));
    sums.set(name, sums.get(name) + us);
    busyUs += us;
    if (inJournal(id)) journalUs += us;
  }
  const perRequest = (us) => us / requests;
  return {
    busy: perRequest(busyUs),
    journal: perRequest(journalUs),
    rows: [...sums].map(([name, us]) => ({ name, us: perRequest(us), pct: (us / busyUs) * 100 })).sort((a, b) => b.us - a.us),
  };
}

function printCosts(file, requests) {
  const { busy, journal, rows } = costs(file, requests);
  console.log(`busy time per request (${requests} requests; start-up included), by what spends it`);
  for (const row of rows) console.log(`${row.us.toFixed(1).padStart(7)} µs  ${row.pct.toFixed(1).padStart(5)} %  ${row.name}`);
  console.log(`${busy.toFixed(1).padStart(7)} µs           busy`);
  console.log(`${journal.toFixed(1).padStart(7)} µs  ${((journal / busy) * 100).toFixed(1).padStart(5)} %  of it the journal (capture, masking, its rows), across the classes above`);
}

module.exports = { top, costs, printCosts, ownerOf, frameKey };

if (require.main === module) {
  const file = process.argv[2];
  const limit = Number((process.argv.find((arg) => arg.startsWith('--top=')) ?? '--top=25').slice(6));
  const by = (process.argv.find((arg) => arg.startsWith('--by=')) ?? '--by=function').slice(5);
  if (by === 'cost') {
    printCosts(file, Number((process.argv.find((arg) => arg.startsWith('--requests=')) ?? '--requests=1').slice(11)));
    process.exit(0);
  }
  const { totalMs, rows } = top(file, { limit, by });
  console.log(`${path.basename(file)}: ${totalMs.toFixed(0)} ms sampled; self time by ${by}`);
  for (const row of rows) console.log(`${row.pct.toFixed(1).padStart(5)} %  ${row.ms.toFixed(1).padStart(8)} ms  ${row.key}`);
}
