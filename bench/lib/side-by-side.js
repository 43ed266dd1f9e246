// Two servers' CPU a request, measured side by side: both run at once on the server core and take the same signed
// load at the same time, so that whatever slows the machine down slows both alike. One server measured after the
// other moves by ±20 % between runs a minute apart on a shared machine; the ratio of two measured together stays
// within a few per cent from round to round (bench/README.md, session 13). Used by ab.js and `npm run bench`.
// `alone` runs the same rounds one server after the other instead, each alone on the server core as in `npm run
// bench`'s throughput runs: that reads throughput as well as CPU, and shows what sharing the core costs each side
// (caches, switches), at the price of far more noise from round to round.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { LIMIT_SERVERS, cpuMicros, mainThreadCpuMicros, freePort, startBank, startLimitServer, waitForAnswer, stop, median, tempDir, splitSpec } = require('./processes');
const { fetchToken } = require('./signing');
const { firePool, signedRequests } = require('./signed-load');

const ROOT = path.resolve(__dirname, '../..');

/** `bank`, `bank:<dir>` (another build: its dist/), `limit`, `limit-http`, `required` or `lean`, with `?ENV=value&…`. */
function parseServer(spec) {
  const { name, env } = splitSpec(spec);
  const [kind, dir] = name.split(/:(.*)/s);
  if (kind === 'bank') return { spec, kind, root: path.resolve(dir || ROOT), env };
  if (LIMIT_SERVERS[kind]) return { spec, kind, env: { ...LIMIT_SERVERS[kind], ...env } };
  throw new Error(`unknown server "${spec}": bank, bank:<dir>, limit, limit-http, required or lean`);
}

async function launch(server, flow) {
  const port = await freePort();
  const dataDir = tempDir('bench-side-');
  const child = server.kind === 'bank' ? startBank(server.root, port, dataDir, server.env) : startLimitServer(port, dataDir, server.env);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(`${base}/readyz`, performance.now(), { wantStatus: 200 });
    // The limit servers ignore the token; a Bank's own is used when it is the server.
    const token = server.kind === 'bank' ? await fetchToken(base) : 'x'.repeat(400);
    const { request } = await signedRequests(base, token, flow);
    return { child, base, dataDir, request };
  } catch (error) {
    // Started in a process group of its own: it would outlive this script, holding the server core.
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${server.spec} did not start: ${error.message}\n${child.stderrText}`);
  }
}

/**
 * Servers started together (`together`: both at once; else one at a time, each stopped before the next starts): a
 * warm-up, then the measured load; answers each one's CPU µs a request (all threads, main thread) and requests a
 * second to its last answer.
 */
async function round(flow, servers, { requests, connections, warmUp, together = true }) {
  if (!together) {
    const measured = [];
    for (const server of servers) measured.push(...(await round(flow, [server], { requests, connections, warmUp })));
    return measured;
  }
  const running = [];
  try {
    for (const server of servers) running.push(await launch(server, flow));
    // Every request is signed before the warm-up: signing the measured pool after it left both servers idle for a
    // second or two between warm-up and load, a pause that no steady load has.
    const warmUps = running.map((one) => Array.from({ length: warmUp }, (_, index) => one.request(index)));
    const pools = running.map((one) => Array.from({ length: requests }, (_, index) => one.request(warmUp + index)));
    await Promise.all(running.map((one, index) => firePool(one.base, warmUps[index], connections)));
    const cpu = () => running.map((one) => ({ all: cpuMicros(one.child.pid), main: mainThreadCpuMicros(one.child.pid) }));
    const before = cpu();
    const results = await Promise.all(running.map((one, index) => firePool(one.base, pools[index], connections)));
    const after = cpu();
    return running.map((one, index) => {
      const refused = results[index].non2xx + results[index].errors;
      if (refused > 0) throw new Error(`${servers[index].spec}: ${refused} requests refused or failed`);
      return { all: (after[index].all - before[index].all) / requests, main: (after[index].main - before[index].main) / requests, rps: requests / results[index].seconds };
    });
  } finally {
    for (const one of running) {
      await stop(one.child);
      fs.rmSync(one.dataDir, { recursive: true, force: true });
    }
  }
}

/**
 * `rounds` rounds of A and B side by side (`alone`: one after the other), each starting both afresh (which one
 * starts first alternates). Answers the CPU µs a request of each per round (microsA, microsB: all threads; mainA,
 * mainB: the main thread), B ÷ A per round, and the medians; with `alone`, also B's throughput over A's per round
 * (rpsRatios: meaningless side by side, where both share the core) and its median.
 */
async function sideBySide(flow, specA, specB, { rounds = 5, requests = 10_000, connections = 10, warmUp = 3_000, alone = false, onRound = () => undefined } = {}) {
  const [a, b] = [specA, specB].map(parseServer);
  const measured = { a: [], b: [] };
  const ratios = [];
  const rpsRatios = [];
  const options = { requests, connections, warmUp, together: !alone };
  for (let index = 0; index < rounds; index += 1) {
    const [first, second] = index % 2 === 0 ? await round(flow, [a, b], options) : (await round(flow, [b, a], options)).reverse();
    measured.a.push(first);
    measured.b.push(second);
    const ratio = second.all / first.all;
    const rpsRatio = second.rps / first.rps;
    ratios.push(ratio);
    rpsRatios.push(rpsRatio);
    onRound({ round: index + 1, a: first.all, b: second.all, mainA: first.main, mainB: second.main, ratio, rpsA: first.rps, rpsB: second.rps, rpsRatio });
  }
  const all = (side) => measured[side].map((one) => one.all);
  const main = (side) => measured[side].map((one) => one.main);
  return {
    microsA: all('a'), microsB: all('b'), mainA: main('a'), mainB: main('b'), ratios,
    medianA: median(all('a')), medianB: median(all('b')), medianMainA: median(main('a')), medianMainB: median(main('b')), medianRatio: median(ratios),
    ...(alone ? { rpsRatios, medianRpsRatio: median(rpsRatios) } : {}),
  };
}

module.exports = { parseServer, sideBySide };
