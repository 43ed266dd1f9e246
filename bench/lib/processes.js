// Starting, timing, measuring and stopping the servers under test.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { bankArgs } = require('../../scripts/start-flags');

const CORES = os.cpus().length;
/** /proc/<pid>/stat counts CPU time in USER_HZ ticks, 100 a second on every Linux ABI. */
const CLOCK_TICKS_PER_S = 100;

/** The Bank as every bench runs it: no pull cron, quiet logs, relaxed mode, status rate limits out of the way. */
function bankEnv(port, dataDir) {
  return {
    PORT: String(port), HTTPS_PORT: '0', DATA_DIR: dataDir, POLL_CRON: 'off', LOG_LEVEL: 'warn', SANDBOX_MODE: 'relaxed',
    STATUS_RATE_PER_S: '1000000', STATUS_RATE_BURST: '1000000',
  };
}

/** Server on core 0, load generator (this process) on the last core, when there are at least 2. */
function pinSelf() {
  if (CORES < 2) return false;
  execFileSync('taskset', ['-cp', String(CORES - 1), String(process.pid)], { stdio: 'ignore' });
  return true;
}

function serverCommand(command, args) {
  return CORES >= 2 ? { command: 'taskset', args: ['-c', '0', command, ...args] } : { command, args };
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function start(command, args, options = {}) {
  const pinned = serverCommand(command, args);
  const child = spawn(pinned.command, pinned.args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  child.stderrText = '';
  child.stderr.on('data', (chunk) => {
    if (child.stderrText.length < 20000) child.stderrText += chunk.toString();
  });
  child.exitPromise = new Promise((resolve) => child.once('exit', resolve));
  return child;
}

/** Milliseconds from `startedAt` until the URL answers (any status, or `wantStatus`). */
function waitForAnswer(url, startedAt, { wantStatus = null, timeoutMs = 120_000, method = 'GET' } = {}) {
  return new Promise((resolve, reject) => {
    const deadline = startedAt + timeoutMs;
    const attempt = () => {
      const req = http.request(url, { method, agent: false }, (res) => {
        res.resume();
        if (wantStatus === null || res.statusCode === wantStatus) resolve(performance.now() - startedAt);
        else retry();
      });
      req.on('error', retry);
      req.end();
    };
    const retry = () => (performance.now() > deadline ? reject(new Error(`${url} did not answer in time`)) : setTimeout(attempt, 2));
    attempt();
  });
}

function children(pid) {
  const result = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) result.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return result;
}

/** Resident memory of a process and all its descendants (a wrapper script plus java, say), in MB. */
function treeRssMb(pid) {
  let kb = 0;
  const stack = [pid];
  while (stack.length) {
    const current = stack.pop();
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${current}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      continue;
    }
    stack.push(...children(current));
  }
  return kb / 1024;
}

/** The CPU time (user + system) a /proc stat file counts so far, in µs; null where /proc cannot tell. */
function ticksAsMicros(statFile) {
  try {
    const stat = fs.readFileSync(statFile, 'utf8');
    const [utime, stime] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 13).map(Number);
    return ((utime + stime) * 1e6) / CLOCK_TICKS_PER_S;
  } catch {
    return null;
  }
}

/** CPU µs (user + system) of a process, all its threads. */
function cpuMicros(pid) {
  return ticksAsMicros(`/proc/${pid}/stat`);
}

/**
 * CPU µs of a process's main thread (its thread id is the pid): the JavaScript. The rest of cpuMicros is V8's
 * background threads (TurboFan compiling, concurrent marking) and libuv's pool.
 */
function mainThreadCpuMicros(pid) {
  return ticksAsMicros(`/proc/${pid}/task/${pid}/stat`);
}

const ROOT = path.resolve(__dirname, '../..');
const LIMIT_SERVER = path.join(ROOT, 'bench', 'limit-server.js');

/** The limit servers by the names the bench scripts take (`--server=`, ab.js), as LIMIT_* environment. */
const LIMIT_SERVERS = {
  limit: { LIMIT_FRAMEWORK: 'express', LIMIT_STORE: 'one-insert' },
  'limit-http': { LIMIT_FRAMEWORK: 'http', LIMIT_STORE: 'one-insert' },
  required: { LIMIT_FRAMEWORK: 'express', LIMIT_STORE: 'required' },
  lean: { LIMIT_FRAMEWORK: 'express', LIMIT_STORE: 'lean' },
};

/** The built Bank in `root` as npm start runs it, with the bench's environment and `env`; `nodeFlags` (a profiler) too. */
function startBank(root, port, dataDir, env = {}, nodeFlags = []) {
  return start(process.execPath, bankArgs(root, nodeFlags), { cwd: root, env: { ...bankEnv(port, dataDir), ...env } });
}

/** bench/limit-server.js with its LIMIT_* environment `env`; `nodeFlags` (a profiler) before the script. */
function startLimitServer(port, dataDir, env, nodeFlags = []) {
  return start(process.execPath, [...nodeFlags, LIMIT_SERVER], { cwd: ROOT, env: { PORT: String(port), DATA_DIR: dataDir, ...env } });
}

/**
 * The server a profiling tool looks at (`server`: bank, or a LIMIT_SERVERS name), with `env` and `nodeFlags` (a
 * profiler or a preload). The Bank runs from its modules, not the bundle, so that profiles name each file.
 */
function startServerUnderTest(server, bankRoot, port, dataDir, env = {}, nodeFlags = []) {
  if (server === 'bank') return startBank(bankRoot, port, dataDir, { FAST_START: 'off', ...env }, nodeFlags);
  return startLimitServer(port, dataDir, { ...(LIMIT_SERVERS[server] ?? LIMIT_SERVERS.limit), ...env }, nodeFlags);
}

async function stop(child) {
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 5000);
  await child.exitPromise;
  clearTimeout(timer);
}

/** A server or sender named on a bench command line, `name?ENV=value&…`: its name and its own environment. */
function splitSpec(spec) {
  const [name, query = ''] = spec.split('?');
  return { name, env: Object.fromEntries(new URLSearchParams(query)) };
}

const tempDirs = [];

/** A fresh directory under the OS temp dir, removed when this process exits (its servers are stopped by then). */
function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (tempDirs.length === 0) process.once('exit', () => tempDirs.forEach((one) => fs.rmSync(one, { recursive: true, force: true })));
  tempDirs.push(dir);
  return dir;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = {
  CORES, LIMIT_SERVERS, bankArgs, bankEnv, pinSelf, freePort, start, startBank, startLimitServer, startServerUnderTest, waitForAnswer, treeRssMb, cpuMicros, mainThreadCpuMicros,
  stop, median, sleep, tempDir, splitSpec,
};
