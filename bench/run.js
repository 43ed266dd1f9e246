#!/usr/bin/env node
// npm run bench: the Bank side by side with the limit server (bench/limit-server.js: only what a signed create
// cannot avoid, on express 5 like the Bank and on bare node:http), a bare express hello-world, WireMock, Prism and
// json-server, measured in the same run on the same machine. Create and status throughput are reported as a ratio
// to the express limit server, whose runs are interleaved with the Bank's (same load generator, connections and
// request count), and to the required-rows server (the limit server writing the rows the specs require). The same
// ratios are then read as CPU time a request with the servers side by side (lib/side-by-side.js), which this
// machine's changes of speed move far less than throughput. Never part of npm test.
//   node bench/run.js [--quick] [--only=startup,create,status,cpu,outbound,soak,journal,clock]
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { CORES, pinSelf, freePort, start, startBank, startLimitServer, waitForAnswer, treeRssMb, stop, median, sleep, tempDir } = require('./lib/processes');
const { fetchToken, signedCreate, signedStatus } = require('./lib/signing');
const { firePool, timedLoad } = require('./lib/signed-load');
const { goalsOf, printGoals, BANK_CREATE, LIMIT, REQUIRED_ROWS, JOURNAL_OFF } = require('./lib/goals');
const { printTable } = require('./lib/table');

const ROOT = path.resolve(__dirname, '..');
/** The Bank measured: this checkout's dist/, or BANK_ROOT's (another build, for a before/after comparison). */
const BANK_ROOT = process.env.BANK_ROOT ? path.resolve(process.env.BANK_ROOT) : ROOT;
const PEER_BIN = path.join(__dirname, 'peers', 'node_modules', '.bin');
const QUICK = process.argv.includes('--quick');
const ONLY = (process.argv.find((arg) => arg.startsWith('--only=')) ?? '--only=startup,create,status,cpu,outbound,soak,journal,clock').slice(7).split(',');
const REPEATS = QUICK ? 3 : 5;
const RUNS = QUICK ? 1 : 3;
const CREATE_REQUESTS = QUICK ? 20_000 : 60_000;

/** The processes compared for startup, RSS and the static-stub throughput. */
function targets() {
  const peers = fs.existsSync(PEER_BIN);
  const list = [
    { name: 'sandbox-bank (fresh data dir)', kind: 'bank', fresh: true },
    { name: 'sandbox-bank (existing data dir)', kind: 'bank', fresh: false },
    // bankEnv turns the pull schedule off; a start that pulls a Connector arms node-cron at start-up (relaxed, as the bench
    // runs: a default strict start no longer pulls the http:// demo Connector, so it arms nothing; session 40).
    { name: 'sandbox-bank (existing data dir, pull schedule on as by default)', kind: 'bank', fresh: false, settings: { POLL_CRON: '*/10 * * * * *' } },
    { name: 'express hello-world', command: process.execPath, args: [path.join(__dirname, 'hello-express.js')], env: (port) => ({ PORT: String(port) }), stub: { method: 'GET', path: '/' } },
  ];
  if (!peers) return list;
  return list.concat([
    { name: 'WireMock 3 (one static stub)', command: path.join(PEER_BIN, 'wiremock'), args: (port) => ['--port', String(port), '--root-dir', path.join(__dirname, 'stubs/wiremock'), '--disable-banner', '--no-request-journal'], stub: { method: 'POST', path: '/payment-orders', body: '{}' } },
    { name: 'Prism 5 (one static stub)', command: path.join(PEER_BIN, 'prism'), args: (port) => ['mock', path.join(__dirname, 'stubs/openapi.yaml'), '-p', String(port), '--errors', 'false'], stub: { method: 'POST', path: '/payment-orders', body: '{}', headers: { 'content-type': 'application/json' } } },
    { name: 'json-server 0.17 (one static stub)', command: path.join(PEER_BIN, 'json-server'), args: (port) => { const db = path.join(tempDir('bench-json-'), 'db.json'); fs.copyFileSync(path.join(__dirname, 'stubs/db.json'), db); return ['--port', String(port), '--quiet', db]; }, stub: { method: 'GET', path: '/payment-orders/1' } },
  ]);
}

/** The yardsticks: the same signed requests, only the unavoidable work (bench/limit-server.js). */
const LIMIT_SERVERS = [
  { name: LIMIT, kind: 'limit', framework: 'express' },
  { name: 'limit server (bare node:http)', kind: 'limit', framework: 'http' },
  // The yardstick of the runs before 2026-11-26: express as shipped, its per-request properties added after the
  // prototype swap (src/wire/stable-shapes.ts says why that is slow). Kept to compare with those runs.
  { name: 'limit server (express 5 as shipped, no stable shapes)', kind: 'limit', framework: 'express-as-shipped' },
  // Not a yardstick of the issue's: what the express limit server costs once it also writes the rows the specs
  // require (bench/lib/required-rows.js). The Bank over it is what the Bank's own JavaScript costs.
  { name: REQUIRED_ROWS, kind: 'limit', framework: 'express', store: 'required' },
];
const REQUIRED = LIMIT_SERVERS.findIndex((target) => target.name === REQUIRED_ROWS);

async function launch(target, port, dataDir, extraEnv = {}) {
  const startedAt = performance.now();
  if (target.kind === 'limit') {
    const child = startLimitServer(port, dataDir, { LIMIT_FRAMEWORK: target.framework, LIMIT_STORE: target.store ?? 'one-insert' });
    const ms = await waitForAnswer(`http://127.0.0.1:${port}/readyz`, startedAt, { wantStatus: 200 });
    return { child, ms };
  }
  if (target.kind === 'bank') {
    const child = startBank(BANK_ROOT, port, dataDir, { ...target.settings, ...extraEnv });
    const ms = await waitForAnswer(`http://127.0.0.1:${port}/readyz`, startedAt, { wantStatus: 200 });
    return { child, ms };
  }
  const args = typeof target.args === 'function' ? target.args(port) : target.args;
  const child = start(target.command, args, { cwd: __dirname, env: target.env ? target.env(port) : {} });
  const ms = await waitForAnswer(`http://127.0.0.1:${port}${target.stub.path}`, startedAt, { method: target.stub.method });
  return { child, ms };
}

async function measureStartup(target) {
  const existingDir = tempDir('bench-bank-');
  if (target.kind === 'bank' && !target.fresh) {
    const { child } = await launch(target, await freePort(), existingDir);
    await stop(child);
  }
  const times = [];
  const rss = [];
  for (let run = 0; run < REPEATS; run += 1) {
    const port = await freePort();
    const { child, ms } = await launch(target, port, target.fresh ? tempDir('bench-bank-') : existingDir);
    times.push(ms);
    await sleep(1000);
    rss.push(treeRssMb(child.pid));
    await stop(child);
  }
  return { startupMs: median(times), idleRssMb: median(rss) };
}

/** One autocannon run (lib/signed-load.js's timedLoad: with `amount`, timed to the last answer), as the tables show it. */
async function load(url, options) {
  return figures(await timedLoad({ url, ...options }));
}

/** What the tables show of a timed autocannon run. */
function figures(result) {
  return {
    rps: Math.round(result.requests.total / result.seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
}

function bestOf(results) {
  const byRps = [...results].sort((a, b) => a.rps - b.rps);
  return byRps[Math.floor(byRps.length / 2)];
}

/** The Bank's last access token: the limit servers get the same Authorization header (and ignore it). */
let bankToken = null;

/** Seconds after the load at which RSS is read again: the Bank's idle collection has run by then (~11 s: 5 quiet seconds, then 5 more; docs/architecture.md, Memory). */
const RSS_SETTLE_S = QUICK ? 15 : 30;

/**
 * One run of signed creates from a pre-signed pool, each distinct and valid, against a freshly started server.
 * With `rss`, the server's RSS is read right after the load and again once it has been idle RSS_SETTLE_S. Its data
 * dir goes once it stops, as ab.js's do: 130 MB after the Bank's 60,000 creates, 37 MB after the limit server's,
 * which the kernel would otherwise write back to disk during the runs that follow (and ~2 GB by the end of a run).
 */
async function createRun(target, connections, extraEnv = {}, { rss = false } = {}) {
  const port = await freePort();
  const dataDir = tempDir('bench-create-');
  const { child } = await launch(target, port, dataDir, extraEnv);
  const base = `http://127.0.0.1:${port}`;
  if (target.kind === 'bank') bankToken = await fetchToken(base);
  const pool = Array.from({ length: CREATE_REQUESTS }, () => signedCreate(bankToken));
  await firePool(base, pool.slice(0, 2000), connections); // warm-up
  const result = figures(await firePool(base, pool.slice(2000), connections));
  if (rss) {
    result.rssAfterLoadMb = treeRssMb(child.pid);
    await sleep(RSS_SETTLE_S * 1000);
    result.rssSettledMb = treeRssMb(child.pid);
  }
  await stop(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}

async function createThroughput(connections, extraEnv = {}) {
  const runs = [];
  for (let run = 0; run < RUNS; run += 1) runs.push(await createRun({ kind: 'bank' }, connections, extraEnv));
  return bestOf(runs);
}

/** The Bank and each limit server in turn, RUNS times: the same load, and the machine's load shared alike. */
async function interleaved(targets, runOnce) {
  const runs = targets.map(() => []);
  for (let run = 0; run < RUNS; run += 1) {
    for (const [index, target] of targets.entries()) runs[index].push(await runOnce(target, run));
  }
  return runs.map(bestOf);
}

async function stubThroughput(target, connections) {
  const runs = [];
  for (let run = 0; run < RUNS; run += 1) {
    const port = await freePort();
    const { child } = await launch(target, port);
    const url = `http://127.0.0.1:${port}${target.stub.path}`;
    const options = { connections, method: target.stub.method, body: target.stub.body, headers: target.stub.headers };
    await load(url, { ...options, duration: 2 });
    runs.push(await load(url, { ...options, duration: QUICK ? 5 : 10 }));
    await stop(child);
  }
  return bestOf(runs);
}

/** A started server with 500 orders to poll. */
async function statusServer(target) {
  const port = await freePort();
  const { child } = await launch(target, port, tempDir('bench-status-'));
  const base = `http://127.0.0.1:${port}`;
  if (target.kind === 'bank') bankToken = await fetchToken(base);
  const references = [];
  for (let index = 0; index < 500; index += 1) {
    const create = signedCreate(bankToken);
    const answer = await fetch(`${base}${create.path}`, { method: 'POST', headers: create.headers, body: create.body });
    if (answer.status !== 200) throw new Error(`${target.name ?? 'sandbox-bank'}: create answered ${answer.status}`);
    references.push(create.reference);
  }
  return { child, base, references };
}

/** Signed GET status (reverse polling) of the Bank and each limit server, their runs interleaved. */
async function statusThroughput(connections) {
  const targets = [{ kind: 'bank' }, ...LIMIT_SERVERS];
  const servers = [];
  for (const target of targets) servers.push(await statusServer(target));
  const results = await interleaved(targets, async (target) => {
    const server = servers[targets.indexOf(target)];
    const pool = Array.from({ length: CREATE_REQUESTS }, (_, index) => signedStatus(bankToken, server.references[index % server.references.length]));
    let next = 0;
    return load(server.base, { connections, amount: CREATE_REQUESTS, requests: [{ setupRequest: (req) => ({ ...req, ...pool[next++] }) }] });
  });
  for (const server of servers) await stop(server.child);
  return results;
}

/** bank / limit, two decimals. */
const ratio = (bank, limit) => Math.round((bank.rps / limit.rps) * 100) / 100;

/** The commit of the Bank measured, so that a run's figures can be laid beside the code (`+ changes` when src/ differs). */
function bankCommit() {
  try {
    const git = (...args) => execFileSync('git', ['-C', BANK_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const changed = git('status', '--porcelain', '--', 'src') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${changed ? ' + changes to src/' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

async function main() {
  const pinned = pinSelf();
  const machine = { cpus: CORES, model: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.platform()} ${os.release()}`, memoryGb: Math.round(os.totalmem() / 2 ** 30), pinned: pinned ? 'server on core 0, load generator on the last core' : 'not pinned (1 core)' };
  console.log(`machine: ${machine.cpus} x ${machine.model}, Node ${machine.node}, ${machine.memoryGb} GB; ${machine.pinned}`);
  if (!fs.existsSync(PEER_BIN)) console.log('peers not installed: run `npm run bench:peers` for WireMock, Prism and json-server');
  const commit = bankCommit();
  console.log(`the Bank measured: ${path.relative(ROOT, BANK_ROOT) || '.'} at ${commit}`);
  const results = { date: new Date().toISOString(), commit, machine, quick: QUICK, startup: [], throughput: [], status: null, outbound: null, soak: null };

  if (ONLY.includes('startup')) {
    for (const target of targets()) {
      const measured = await measureStartup(target);
      results.startup.push({ name: target.name, ...measured });
      console.log(`startup ${target.name}: ${measured.startupMs.toFixed(0)} ms, idle RSS ${measured.idleRssMb.toFixed(1)} MB`);
    }
    printTable('Startup (launch to first 200 on /readyz; peers: first response) and idle RSS, median of ' + REPEATS,
      ['process', 'startup ms', 'idle RSS MB'], results.startup.map((r) => [r.name, r.startupMs.toFixed(0), r.idleRssMb.toFixed(1)]));
  }

  if (ONLY.includes('journal')) {
    // Issue 3/7: the journal may cost at most 15 % of signed-create throughput (same run, same load).
    const on = await createThroughput(20, { JOURNAL: 'on' });
    const off = await createThroughput(20, { JOURNAL: 'off' });
    const cost = 1 - on.rps / off.rps;
    results.journal = { on, off, cost };
    console.log(`journal: create c=20 ${on.rps}/s with the journal, ${off.rps}/s without: it costs ${(cost * 100).toFixed(1)} %`);
  }

  if (ONLY.includes('clock')) {
    results.clockAdvance = await require('./clock-advance').clockAdvance(QUICK ? 2000 : 10_000);
  }

  if (ONLY.includes('create')) {
    for (const connections of [20, 100]) {
      // The last run at c=20 also reads RSS after the load (it waits RSS_SETTLE_S more).
      const flowTargets = [{ kind: 'bank' }, ...LIMIT_SERVERS];
      const rssOf = new Map();
      const [bank, ...limits] = await interleaved(flowTargets, async (target, run) => {
        const result = await createRun(target, connections, {}, { rss: connections === 20 && run === RUNS - 1 });
        if (result.rssAfterLoadMb !== undefined) rssOf.set(target, { afterLoad: result.rssAfterLoadMb, settled: result.rssSettledMb });
        return result;
      });
      if (connections === 20) results.rssAfterLoad = { bank: rssOf.get(flowTargets[0]) ?? null, limit: rssOf.get(flowTargets[1]) ?? null, settleS: RSS_SETTLE_S };
      const limit = limits[0];
      results.throughput.push({ name: BANK_CREATE, connections, ...bank, ratio: ratio(bank, limit), ratioToRequiredRows: ratio(bank, limits[REQUIRED]) });
      for (const [index, measured] of limits.entries()) results.throughput.push({ name: LIMIT_SERVERS[index].name, connections, ...measured, ratio: ratio(measured, limit) });
      console.log(`create c=${connections}: ${bank.rps}/s p50 ${bank.p50} ms p99 ${bank.p99} ms non-2xx ${bank.non2xx}; limit server ${limit.rps}/s: ${ratio(bank, limit)}x; required rows ${limits[REQUIRED].rps}/s: ${ratio(bank, limits[REQUIRED])}x`);
      for (const target of targets().filter((t) => t.stub)) {
        const measured = await stubThroughput(target, connections);
        results.throughput.push({ name: target.name, connections, ...measured, ratio: ratio(measured, limit) });
        console.log(`${target.name} c=${connections}: ${measured.rps}/s p50 ${measured.p50} ms p99 ${measured.p99} ms`);
      }
    }
    printTable(`Throughput (median of ${RUNS} runs; x limit: req/s over the express limit server's at the same connections, same run)`,
      ['server', 'connections', 'req/s', 'x limit', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
      results.throughput.map((r) => [r.name, r.connections, r.rps, r.ratio.toFixed(2), r.p50, r.p99, r.non2xx, r.errors]));
    const rss = results.rssAfterLoad;
    if (rss?.bank) {
      printTable(`RSS after ${CREATE_REQUESTS} signed creates at c=20 (right after the load, and ${rss.settleS} s later)`, ['server', 'after load MB', 'settled MB'],
        [['sandbox-bank', rss.bank.afterLoad.toFixed(1), rss.bank.settled.toFixed(1)], [LIMIT_SERVERS[0].name, rss.limit.afterLoad.toFixed(1), rss.limit.settled.toFixed(1)]]);
    }
  }

  if (ONLY.includes('status')) {
    const [bank, ...limits] = await statusThroughput(20);
    results.status = { ...bank, ratio: ratio(bank, limits[0]), ratioToRequiredRows: ratio(bank, limits[REQUIRED]), limits: limits.map((measured, index) => ({ name: LIMIT_SERVERS[index].name, ...measured, ratio: ratio(measured, limits[0]) })) };
    printTable(`Reverse polling (signed GET status, Bearer, relaxed mode over HTTP), c=20, median of ${RUNS} interleaved runs`,
      ['server', 'req/s', 'x limit', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
      [['sandbox-bank (express 5): signed status', bank.rps, results.status.ratio.toFixed(2), bank.p50, bank.p99, bank.non2xx, bank.errors],
        ...results.status.limits.map((r) => [r.name, r.rps, r.ratio.toFixed(2), r.p50, r.p99, r.non2xx, r.errors])]);
    console.log(`status: the Bank is ${results.status.ratioToRequiredRows}x the required-rows server`);
  }

  if (ONLY.includes('cpu')) {
    results.cpuSideBySide = await cpuSideBySide();
    printTable(`CPU a request, side by side (both servers at once on the server core, same load; median of ${SIDE_BY_SIDE.rounds} rounds of ${SIDE_BY_SIDE.requests})`,
      ['flow', 'A', 'B', 'A µs', 'B µs', 'B ÷ A', 'B at x A (A ÷ B, read as throughput)'],
      results.cpuSideBySide.map((r) => [r.flow, r.a, r.b, r.medianA.toFixed(1), r.medianB.toFixed(1), r.medianRatio.toFixed(3), (1 / r.medianRatio).toFixed(2)]));
  }

  if (ONLY.includes('outbound')) {
    const { outboundPipeline } = require('./outbound');
    results.outbound = await outboundPipeline(QUICK ? 20_000 : 100_000);
    printTable('Outbound pipeline: pull -> settle -> delivered callback (the Bank pinned to core 0, the fake Connector on the last core, keep-alive)', ['mode', 'transport', 'server', 'orders', 'seconds', 'orders/s', 'x limit', 'callbacks', 'CPU µs/order'],
      results.outbound.map((r) => [r.mode, r.transport, r.server, r.orders, r.seconds.toFixed(2), r.ordersPerS, r.ratio === undefined ? '-' : r.ratio.toFixed(2), r.callbacks, r.cpuUsPerOrder ?? '-']));
  }

  if (ONLY.includes('soak')) {
    const { soak } = require('./soak');
    results.soak = await soak(QUICK ? 100_000 : 1_000_000);
    printTable('Soak: RSS sampled every 10 s over mixed requests, compared from the sample at a tenth of them', ['requests', 'seconds', 'from requests', 'RSS then MB', 'RSS last MB', 'slope MB/min', 'change %'],
      [[results.soak.requests, results.soak.seconds.toFixed(0), results.soak.fromRequests, results.soak.firstMb.toFixed(1), results.soak.lastMb.toFixed(1), results.soak.slopeMbPerMin.toFixed(2), results.soak.changePct.toFixed(1)]]);
  }

  results.goals = goalsOf(results);
  printGoals(results.goals);

  const file = freshResultsFile(`${results.date.slice(0, 10)}${QUICK ? '-quick' : ''}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(results, null, 2) + '\n');
  console.log(`\nwrote ${path.relative(ROOT, file)}`);
}

const SIDE_BY_SIDE = { rounds: QUICK ? 1 : 3, requests: QUICK ? 5_000 : 10_000 };

/**
 * The Bank over the limit server, the Bank over the required rows, the required rows over the limit server, the
 * Bank with its journal off over the limit server (the journal is on by default; this is what it weighs against the
 * 0.8x goals), and the same rows in the leanest schema over the limit server (what storing them costs at the least,
 * bench/lib/lean-rows.js), by CPU a request measured side by side, for create and status. A ÷ B reads like the
 * throughput ratios above.
 */
async function cpuSideBySide() {
  const { sideBySide } = require('./lib/side-by-side');
  const bank = BANK_ROOT === ROOT ? 'bank' : `bank:${BANK_ROOT}`;
  const rows = [];
  for (const flow of ['create', 'status']) {
    for (const [a, b] of [['limit', bank], ['required', bank], ['limit', 'required'], ['limit', `${bank}?${JOURNAL_OFF}`], ['limit', 'lean']]) {
      const measured = await sideBySide(flow, a, b, SIDE_BY_SIDE);
      rows.push({ flow, a, b, ...measured });
      console.log(`${flow}, side by side: ${b} ${measured.medianB.toFixed(1)} µs, ${a} ${measured.medianA.toFixed(1)} µs a request: ${b} at ${(1 / measured.medianRatio).toFixed(2)}x ${a} (rounds: ${measured.ratios.map((ratio) => (1 / ratio).toFixed(2)).join(' ')})`);
    }
  }
  return rows;
}

/** results/<day>.json, or <day>-b.json, -c.json, ... when that day already has a run: a run never overwrites another. */
function freshResultsFile(day) {
  const name = (suffix) => path.join(__dirname, 'results', `${day}${suffix}.json`);
  if (!fs.existsSync(name(''))) return name('');
  for (let code = 'b'.charCodeAt(0); code <= 'z'.charCodeAt(0); code += 1) {
    const candidate = name(`-${String.fromCharCode(code)}`);
    if (!fs.existsSync(candidate)) return candidate;
  }
  return name(`-${Date.now()}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
