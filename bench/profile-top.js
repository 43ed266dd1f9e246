#!/usr/bin/env node
// The top frames of a V8 CPU profile (node --cpu-prof): self time per function, and self time summed per
// package or per file of ours, as bench/README.md lists them before and after an optimisation.
//   node bench/profile-top.js <file.cpuprofile> [--top=25] [--by=function|file]
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
  return path.relative(ROOT, file);
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
    const owner = ownerOf(frame.url);
    const key = by === 'file' ? owner : `${frame.functionName || '(anonymous)'}  ${owner}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    sums.set(key, (sums.get(key) ?? 0) + us);
  }
  const rows = [...sums].sort((a, b) => b[1] - a[1]).slice(0, limit);
  return { totalMs: totalUs / 1000, rows: rows.map(([key, us]) => ({ key, ms: us / 1000, pct: (us / totalUs) * 100 })) };
}

module.exports = { top };

if (require.main === module) {
  const file = process.argv[2];
  const limit = Number((process.argv.find((arg) => arg.startsWith('--top=')) ?? '--top=25').slice(6));
  const by = (process.argv.find((arg) => arg.startsWith('--by=')) ?? '--by=function').slice(5);
  const { totalMs, rows } = top(file, { limit, by });
  console.log(`${path.basename(file)}: ${totalMs.toFixed(0)} ms sampled; self time by ${by}`);
  for (const row of rows) console.log(`${row.pct.toFixed(1).padStart(5)} %  ${row.ms.toFixed(1).padStart(8)} ms  ${row.key}`);
}
