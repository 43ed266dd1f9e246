#!/usr/bin/env node
// A/B of two servers' CPU time a request, measured side by side: both run at once on the server core and take the
// same signed load at the same time, so that whatever slows this machine down slows both alike. Throughput and CPU
// measured one server after the other move by ±20 % between runs a minute apart here; the ratio of two servers
// measured together stays within ~2 % from round to round (bench/README.md, session 13).
//   node bench/ab.js create|status <A> <B> [--rounds=5] [--requests=10000] [--connections=10] [--warm-up=3000]
// A and B are `bank`, `bank:<dir>` (another build: its dist/), `limit`, `limit-http` or `required` (the limit
// servers), each with optional environment after `?`: `bank?JOURNAL=off`, `bank:/tmp/other?FAST_START=off`. The
// Bank starts as `npm start` starts it (its package.json's flags). Each round starts both afresh, warms both, then
// measures both; the answer is B's CPU a request over A's, per round and its median.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { bankArgs, bankEnv, cpuMicros, pinSelf, freePort, start, waitForAnswer, stop, median } = require('./lib/processes');
const { fetchToken } = require('./lib/signing');
const { firePool, signedRequests } = require('./lib/signed-load');

const ROOT = path.resolve(__dirname, '..');
const LIMIT_KINDS = {
  limit: { LIMIT_FRAMEWORK: 'express', LIMIT_STORE: 'one-insert' },
  'limit-http': { LIMIT_FRAMEWORK: 'http', LIMIT_STORE: 'one-insert' },
  required: { LIMIT_FRAMEWORK: 'express', LIMIT_STORE: 'required' },
};

const option = (name, fallback) => Number((process.argv.find((arg) => arg.startsWith(`--${name}=`)) ?? `=${fallback}`).split('=')[1]);
const [FLOW, ...SPECS] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const ROUNDS = option('rounds', 5);
const REQUESTS = option('requests', 10_000);
const CONNECTIONS = option('connections', 10);
const WARM_UP = option('warm-up', 3_000);

/** `bank:/dir?A=1` → what to start and with which environment. */
function parseSpec(spec) {
  const [server, query = ''] = spec.split('?');
  const env = Object.fromEntries(new URLSearchParams(query));
  const [kind, dir] = server.split(/:(.*)/s);
  if (kind === 'bank') return { spec, kind, root: path.resolve(dir || ROOT), env };
  if (LIMIT_KINDS[kind]) return { spec, kind, env: { ...LIMIT_KINDS[kind], ...env } };
  throw new Error(`unknown server "${spec}": bank, bank:<dir>, limit, limit-http or required`);
}

async function launch(server) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ab-'));
  const child = server.kind === 'bank'
    ? start(process.execPath, bankArgs(server.root), { cwd: server.root, env: { ...bankEnv(port, dataDir), ...server.env } })
    : start(process.execPath, [path.join(__dirname, 'limit-server.js')], { cwd: ROOT, env: { PORT: String(port), DATA_DIR: dataDir, ...server.env } });
  const base = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${base}/readyz`, performance.now(), { wantStatus: 200 });
  // The limit servers ignore the token; a Bank's own is used when it is the server.
  const token = server.kind === 'bank' ? await fetchToken(base) : 'x'.repeat(400);
  const { request } = await signedRequests(base, token, FLOW);
  return { child, base, dataDir, request };
}

/** Both servers at once: warm-up, then the measured load; answers each one's CPU µs a request. */
async function round(servers) {
  const running = [];
  for (const server of servers) running.push(await launch(server));
  try {
    await Promise.all(running.map((one) => firePool(one.base, Array.from({ length: WARM_UP }, (_, index) => one.request(index)), CONNECTIONS)));
    const pools = running.map((one) => Array.from({ length: REQUESTS }, (_, index) => one.request(index)));
    const before = running.map((one) => cpuMicros(one.child.pid));
    const results = await Promise.all(running.map((one, index) => firePool(one.base, pools[index], CONNECTIONS)));
    const after = running.map((one) => cpuMicros(one.child.pid));
    return running.map((one, index) => {
      const refused = results[index].non2xx + results[index].errors;
      if (refused > 0) throw new Error(`${servers[index].spec}: ${refused} requests refused or failed`);
      return (after[index] - before[index]) / REQUESTS;
    });
  } finally {
    for (const one of running) {
      await stop(one.child);
      fs.rmSync(one.dataDir, { recursive: true, force: true });
    }
  }
}

async function main() {
  if (!['create', 'status'].includes(FLOW) || SPECS.length !== 2) {
    console.error('usage: node bench/ab.js create|status <A> <B> [--rounds=5] [--requests=10000] [--connections=10] [--warm-up=3000]');
    process.exit(2);
  }
  pinSelf();
  const [a, b] = SPECS.map(parseSpec);
  const micros = { a: [], b: [] };
  const ratios = [];
  for (let index = 0; index < ROUNDS; index += 1) {
    // Alternate which one starts first, so that neither always has the warmer start.
    const [first, second] = index % 2 === 0 ? await round([a, b]) : (await round([b, a])).reverse();
    micros.a.push(first);
    micros.b.push(second);
    ratios.push(second / first);
    console.log(`round ${index + 1}: A ${first.toFixed(1)} µs, B ${second.toFixed(1)} µs a ${FLOW}, B ÷ A ${(second / first).toFixed(3)}`);
  }
  console.log(`A ${a.spec}: median ${median(micros.a).toFixed(1)} µs a ${FLOW}`);
  console.log(`B ${b.spec}: median ${median(micros.b).toFixed(1)} µs a ${FLOW}`);
  console.log(`B ÷ A: ${ratios.map((ratio) => ratio.toFixed(3)).join(' ')}; median ${median(ratios).toFixed(3)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
