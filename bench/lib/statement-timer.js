// A --require preload for the Bank (bench/statements.js): times every better-sqlite3 statement it runs and, when
// the process exits, writes a JSON array of { sql, calls, us } to STATEMENT_TIMES_FILE, largest first. It patches
// the native Statement class, which the bundle and the modules share, so it sees every statement of every connection.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const Database = require(path.join(process.cwd(), 'node_modules', 'better-sqlite3'));

/** SQL text, with its whitespace folded, to { calls, ns }. */
const times = new Map();

function timed(original) {
  return function (...args) {
    const startedAt = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const sql = this.source.replace(/\s+/g, ' ').trim();
      const entry = times.get(sql) ?? times.set(sql, { calls: 0, ns: 0n }).get(sql);
      entry.calls += 1;
      entry.ns += process.hrtime.bigint() - startedAt;
    }
  };
}

function install() {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
  probe.close();
  for (const name of ['run', 'get', 'all']) statement[name] = timed(statement[name]);
}

function report() {
  return [...times].map(([sql, { calls, ns }]) => ({ sql, calls, us: Number(ns) / 1000 })).sort((a, b) => b.us - a.us);
}

if (process.env.STATEMENT_TIMES_FILE) {
  install();
  process.on('exit', () => fs.writeFileSync(process.env.STATEMENT_TIMES_FILE, JSON.stringify(report())));
}
