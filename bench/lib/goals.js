// Issue 15's goals read off one run's results (what bench/run.js writes to bench/results/): each goal with its
// line, the figure measured, the ratio where the goal is one, and whether the run met it. `npm run bench` prints
// them last; `node bench/goals.js <results.json>` prints them for any earlier run. The throughput ratios decide, as
// the issue words them; the CPU ratios side by side (steadier on a shared machine) are shown beside them.
'use strict';
const { printTable } = require('./table');

// The names bench/run.js gives its rows: the results of earlier runs are read by them too.
const BANK_CREATE = 'sandbox-bank (express 5): signed, validated, stored create';
const LIMIT = 'limit server (express 5, as the Bank)';
const REQUIRED_ROWS = 'required rows (the express limit server + the rows the specs require)';

const mb = (value) => `${value.toFixed(1)} MB`;
const ms = (value) => `${value.toFixed(0)} ms`;
const group = (value) => Math.round(value).toLocaleString('en-US');
const times = (value) => `${value.toFixed(2)}x`;

/** A row of the table: `ratio` null where the goal sets none; `met` true or false. */
function goal(name, line, measured, ratio, met) {
  return { goal: name, line, measured, ratio, met };
}

/** The environment bench/run.js's cpu section starts the Bank with to measure it without its journal. */
const JOURNAL_OFF = 'JOURNAL=off';

/**
 * B at x A by CPU side by side (A ÷ B, read as throughput) from the `cpu` section, null when it did not run. B is
 * `bank` (the Bank as it starts by default, or `bank:<dir>` for another build), `bank-journal-off` (the same with
 * JOURNAL=off), `required` (the required rows) or `lean` (the same rows in the leanest schema); A is the limit
 * server, or the required rows (the section measures the Bank over them too).
 */
function cpuRatio(results, flow, b, a = 'limit') {
  const matches = (spec) => {
    const [server, env = ''] = spec.split('?');
    if (b === 'required' || b === 'lean') return server === b && env === '';
    return server.startsWith('bank') && (b === 'bank-journal-off' ? env.split('&').includes(JOURNAL_OFF) : env === '');
  };
  const row = (results.cpuSideBySide ?? []).find((r) => r.flow === flow && r.a === a && matches(r.b));
  return row ? 1 / row.medianRatio : null;
}

/**
 * `0.62x (CPU 0.61x; journal off 0.78x; the specs' rows alone 0.73x, in the leanest schema 0.88x)`: throughput, then
 * the ratios by CPU side by side when the cpu section ran.
 */
function ratioText(throughputText, cpu, journalOff, required, lean) {
  const cpuParts = [];
  if (cpu !== null) cpuParts.push(`CPU ${times(cpu)}`);
  if (journalOff !== null) cpuParts.push(`journal off ${times(journalOff)}`);
  if (required !== null) cpuParts.push(`the specs' rows alone ${times(required)}${lean === null ? '' : `, in the leanest schema ${times(lean)}`}`);
  else if (lean !== null) cpuParts.push(`the specs' rows in the leanest schema ${times(lean)}`);
  return cpuParts.length === 0 ? throughputText : `${throughputText} (${cpuParts.join('; ')})`;
}

const LIMIT_RATIO_LINE = 0.8;

/**
 * A goal of 0.8x the limit server for `flow`, decided by the Bank's throughput over the limit server's, unrounded:
 * the results' own `ratio` is rounded to two places, and 3,402 against 4,271/s (0.7965, session 28) is not 0.80.
 */
function limitRatioGoal(results, flow, name, line, bank, limit) {
  const measured = `${group(bank.rps)}/s (limit server ${group(limit.rps)}/s)`;
  const exact = bank.rps / limit.rps;
  const met = exact >= LIMIT_RATIO_LINE;
  // Three places where two would read as the other side of the line.
  const roundedMeets = Number(exact.toFixed(2)) >= LIMIT_RATIO_LINE;
  const throughputText = roundedMeets === met ? times(exact) : `${exact.toFixed(3)}x`;
  return goal(name, line, measured, ratioText(throughputText, ...['bank', 'bank-journal-off', 'required', 'lean'].map((b) => cpuRatio(results, flow, b))), met);
}

/** The Bank's and the express limit server's throughput rows for `flow` (creates at c=20), or null when not measured. */
function throughputRows(results, flow) {
  if (flow === 'status') {
    const limit = results.status?.limits?.find((r) => r.name === LIMIT);
    return limit ? { bank: results.status, limit } : null;
  }
  const rows = results.throughput ?? [];
  const bank = rows.find((r) => r.name === BANK_CREATE && r.connections === 20);
  const limit = rows.find((r) => r.name === LIMIT && r.connections === 20);
  return bank && limit ? { bank, limit } : null;
}

function createGoal(results) {
  const rows = throughputRows(results, 'create');
  return rows && limitRatioGoal(results, 'create', 'signed create, c=20, keep-alive', '>= 0.8x the limit server', rows.bank, rows.limit);
}

function statusGoal(results) {
  const rows = throughputRows(results, 'status');
  return rows && limitRatioGoal(results, 'status', 'status (signed GET), c=20', ">= 0.8x the limit server's GET", rows.bank, rows.limit);
}

function startupGoals(results) {
  const startup = results.startup ?? [];
  const fresh = startup.find((r) => r.name === 'sandbox-bank (fresh data dir)');
  const existing = startup.find((r) => r.name === 'sandbox-bank (existing data dir)');
  const hello = startup.find((r) => r.name === 'express hello-world');
  const floor = hello ? ` (express hello-world ${ms(hello.startupMs)})` : '';
  const rows = [];
  if (fresh) rows.push(goal('start to first /readyz 200, fresh data dir', '<= 350 ms', `${ms(fresh.startupMs)}${floor}`, null, fresh.startupMs <= 350));
  if (existing) rows.push(goal('start to first /readyz 200, existing data dir', '<= 250 ms', `${ms(existing.startupMs)}${floor}`, null, existing.startupMs <= 250));
  if (fresh) rows.push(goal('idle RSS after start, fresh data dir', '<= 70 MB', mb(fresh.idleRssMb), null, fresh.idleRssMb <= 70));
  return rows;
}

/**
 * The issue asks for "idle RSS ... <= 80 MB after the bench's load": the figure once the load has ended and the
 * Bank has idled (30 s). RSS right after the last answer, with the heap still sized for the load, is reported too.
 */
function memoryGoals(results) {
  const rss = results.rssAfterLoad;
  if (!rss?.bank) return [];
  const limit = (figure) => (rss.limit ? ` (limit server ${mb(rss.limit[figure])})` : '');
  return [
    goal(`idle RSS after the bench's load (${rss.settleS} s after it)`, '<= 80 MB', `${mb(rss.bank.settled)}${limit('settled')}`, null, rss.bank.settled <= 80),
    goal("RSS right after the bench's load, not idle yet", '<= 80 MB', `${mb(rss.bank.afterLoad)}${limit('afterLoad')}`, null, rss.bank.afterLoad <= 80),
  ];
}

function outboundGoals(results) {
  const rows = results.outbound ?? [];
  const goals = [];
  for (const [mode, name, line] of [['unit', 'unit callbacks over keep-alive mTLS', 3000], ['batch', 'batch pipeline over keep-alive mTLS', 20000]]) {
    const bank = rows.find((r) => r.mode === mode && r.transport === 'mtls' && r.server === 'bank');
    if (!bank) continue;
    const limit = rows.find((r) => r.mode === mode && r.transport === 'mtls' && r.server === 'limit');
    // The CPU an order beside the rate: it tells this machine's slow phases (both slower) from a slower Bank.
    const rate = (run) => `${group(run.ordersPerS)}/s${run.cpuUsPerOrder == null ? '' : `, ${run.cpuUsPerOrder} µs CPU an order`}`;
    const context = limit ? ` (outbound limit ${rate(limit)})` : '';
    goals.push(goal(name, `>= ${group(line)}/s`, `${rate(bank)}${context}`, null, bank.ordersPerS >= line));
  }
  return goals;
}

function soakGoal(results) {
  const soak = results.soak;
  if (!soak) return null;
  // bench/soak.js compares from the sample at 100k of 1M requests; runs before 2026-11-28 (session 24), from the
  // first steady sample, and they have no fromRequests.
  const fromText = soak.fromRequests === undefined ? 'first steady sample' : `${group(soak.fromRequests)} requests`;
  const changePct = soak.changePct;
  const sign = changePct >= 0 ? '+' : '';
  return goal(`soak RSS, journal on, ${fromText} to ${group(soak.requests)}`, 'within +-10 %', `${sign}${changePct.toFixed(1)} %`, null, Math.abs(changePct) <= 10);
}

/** Every goal the run has a figure for, in the issue's order. */
function goalsOf(results) {
  return [createGoal(results), statusGoal(results), ...startupGoals(results), ...memoryGoals(results), ...outboundGoals(results), soakGoal(results)]
    .filter((row) => row !== null);
}

const verdict = (row) => (row.met ? 'met' : 'missed');

/** The goals as a table: last in every `npm run bench`, and `node bench/goals.js` for an earlier run. */
function printGoals(goals) {
  if (goals.length === 0) return;
  printTable("Issue 15's goals in this run (x: the ratio the goal sets; throughput decides, CPU side by side is steadier)", ['goal', 'line', 'measured', 'x', 'verdict'],
    goals.map((g) => [g.goal, g.line, g.measured, g.ratio ?? '-', verdict(g)]));
}

module.exports = { goalsOf, printGoals, cpuRatio, throughputRows, BANK_CREATE, LIMIT, REQUIRED_ROWS, JOURNAL_OFF };
