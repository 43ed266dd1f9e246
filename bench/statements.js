#!/usr/bin/env node
// Where a request's SQLite time goes, statement by statement: the Bank under the bench's own load (pinned like
// `npm run bench`, autocannon with pre-signed requests), every better-sqlite3 statement timed by a preload
// (lib/statement-timer.js), then each statement's calls and µs per call and per request, largest first.
//   node bench/statements.js [create|status] [--requests=30000] [--connections=20] [--top=20]
// The timer's own cost (~0.4 µs a statement, measured on `SELECT ?`) is in the figures: compare runs with each other.
// BANK_ROOT times another build of the Bank (its dist/), for a before/after comparison.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { pinSelf, startBank, tempDir } = require('./lib/processes');
const { underSignedLoad } = require('./lib/signed-load');
const { loadTarget, option } = require('./lib/args');

// Always the Bank: the limit servers' statements are not the question.
const { flow: FLOW, requests: REQUESTS, connections: CONNECTIONS, bankRoot: BANK_ROOT } = loadTarget(30_000);
const TOP = Number(option('top', 20));

/** One line a statement: total, calls, per call, per request. */
function table(rows, requests) {
  const total = rows.reduce((sum, row) => sum + row.us, 0);
  const lines = rows.slice(0, TOP).map((row) => {
    const perRequest = (row.us / requests).toFixed(2).padStart(7);
    const perCall = (row.us / row.calls).toFixed(2).padStart(8);
    return `${perRequest} µs  ${String(row.calls).padStart(8)} × ${perCall} µs  ${row.sql.slice(0, 100)}`;
  });
  return [`per request   calls      per call  statement (${rows.length} in all)`, ...lines, `${(total / requests).toFixed(2).padStart(7)} µs  in all`].join('\n');
}

async function main() {
  pinSelf();
  const dataDir = tempDir('bench-statements-');
  const timesFile = path.join(dataDir, 'statement-times.json');
  const preload = ['--require', path.join(__dirname, 'lib', 'statement-timer.js')];
  const { result, before } = await underSignedLoad({
    server: 'bank', flow: FLOW, requests: REQUESTS, connections: CONNECTIONS,
    start: (port) => startBank(BANK_ROOT, port, path.join(dataDir, 'data'), { STATEMENT_TIMES_FILE: timesFile }, preload),
  });
  console.log(`${FLOW} on the Bank, c=${CONNECTIONS}: ${Math.round(result.requests.total / result.seconds)}/s with the timer, non-2xx ${result.non2xx}`);
  // Start-up, the token and the seeded orders are in the totals; at 30,000 requests they are under 1 %.
  console.log(table(JSON.parse(fs.readFileSync(timesFile, 'utf8')), REQUESTS + before));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
