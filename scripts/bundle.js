#!/usr/bin/env node
// Last step of `npm run build`: the Bank in one file, and V8's code cache for it (src/wire/fast-start.ts).
//  1. esbuild bundles dist/bank/server.js and what it requires into dist/bank/server.bundle.js (better-sqlite3's
//     native addon stays outside, loaded by path). Only whitespace and comments are minified (see below).
//  2. A warm-up run starts the Bank from that bundle on a throwaway data dir (fresh, so the dev PKI's code is
//     compiled too), waits for /readyz, stops it; on exit it writes dist/bank/server.bundle.cache.
// Either step failing removes what it made, so the Bank starts module by module as before, and says so; the build
// goes on.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { spawn } = require('node:child_process');
const { isAscii } = require('node:buffer');

// The file names and the cache writer's variable are the launcher's own (just compiled by tsc).
const { BUNDLE_WRAPPER, bundleFiles, WRITE_CODE_CACHE_ENV } = require('../dist/wire/fast-start');
const { sqliteAddonPath } = require('../dist/wire/sqlite');
const { bankArgs } = require('./start-flags');
const { deferredExportsPlugin } = require('./deferred-exports');

const root = path.resolve(__dirname, '..');
const program = path.join(root, 'dist', 'bank', 'server.js');
const { bundle, cache, inputs } = bundleFiles(program);
const WARM_UP_TIMEOUT_MS = 60_000;
/** Packages the bundle leaves out: `require` finds them in node_modules, beside dist/ (the Docker image too). */
const BUNDLE_EXTERNALS = ['axios', 'iconv-lite', 'mime-db', 'ajv', 'ajv-formats', 'bindings'];
// better-sqlite3's JavaScript is bundled when the store opens its native addon by path (wire/sqlite.ts): from
// node_modules it was compiled without the code cache at every start (~2 ms). `bindings`, its way of finding the
// addon otherwise, stays outside: it looks for the package beside the file that calls it, not beside a bundle.
if (sqliteAddonPath() === null) BUNDLE_EXTERNALS.push('better-sqlite3');

function warn(message) {
  process.stderr.write(`bundle: ${message}; the Bank will start from dist/'s modules instead (slower, same behaviour)\n`);
}

/** Bundles, and lists our own modules in it (dist/...), which the launcher checks the bundle is not older than. */
async function bundleProgram() {
  const esbuild = require('esbuild');
  const { metafile } = await esbuild.build({
    metafile: true,
    absWorkingDir: root,
    entryPoints: [program],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    // These load from node_modules when required, which costs a start less than
    // carrying them in the bundle, whose whole text is read at every start and kept: axios (and form-data with it) is
    // required only by a call that needs it, never at start, and so are ajv's compiler and ajv-formats (a control-plane
    // body schema is compiled on its first use; the build's precompiled validators load their few helpers from
    // node_modules anyway); iconv-lite is required at start (by raw-body) but loads a small part of its 500 KB there,
    // and mime-db (by mime-types) is one JSON file, parsed as JSON instead of compiled as code. Measured (issue 15,
    // bench/README.md): the bundle 2.4 -> 1.2 MB, idle RSS -2.7 MB (axios, iconv-lite, mime-db), a start ~3 ms
    // sooner (ajv).
    external: BUNDLE_EXTERNALS,
    // The launcher compiles the file's text as is: it must already be the CommonJS function (fast-start.ts).
    banner: { js: BUNDLE_WRAPPER.head },
    footer: { js: BUNDLE_WRAPPER.tail },
    // wire/schemas.ts requires the precompiled validators by a computed path, at run time, on purpose.
    logOverride: { 'unsupported-require-call': 'silent' },
    logLevel: 'error',
    // Whitespace and comments out, names kept (stack traces still name our functions; FAST_START=off gives file
    // and line). Comments are where non-ASCII characters survive esbuild's escaping, and one such character makes V8
    // keep the whole 3 MB source as UTF-16: 76 MB idle RSS instead of 68 (measured).
    minifyWhitespace: true,
    // Three packages' exports that a start never uses load on first use instead (scripts/deferred-exports.js).
    plugins: [deferredExportsPlugin((message) => process.stderr.write(`bundle: ${message}\n`))],
  });
  const ours = Object.keys(metafile.inputs).filter((input) => input.startsWith('dist/'));
  fs.writeFileSync(inputs, `${ours.map((input) => path.relative(path.dirname(bundle), path.join(root, input))).join('\n')}\n`);
}

function readyzAnswers(port) {
  return new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/readyz' }, (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    }).on('error', () => resolve(false));
  });
}

/** Starts the Bank from the bundle with the cache writer on, waits for /readyz, stops it; resolves on its exit code. */
function warmUp() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-bank-warm-up-'));
  // Under npm start's node flags: V8 refuses a code cache made under other flags.
  const child = spawn(process.execPath, bankArgs(root), {
    cwd: root,
    // Only the defaults and these: the developer's own settings (a CLIENTS_FILE, NODE_OPTIONS...) are not the build's.
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HTTPS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', FAST_START: 'on', [WRITE_CODE_CACHE_ENV]: cache },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk) => {
    output += chunk;
  };
  child.stderr.on('data', collect);
  const deadline = setTimeout(() => child.kill('SIGKILL'), WARM_UP_TIMEOUT_MS);
  let asked = false;
  child.stdout.on('data', async (chunk) => {
    collect(chunk);
    const listening = /"http":"http:\/\/localhost:(\d+)"/.exec(output);
    if (!listening || asked) return;
    asked = true;
    const port = Number(listening[1]);
    while (!(await readyzAnswers(port))) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGTERM');
  });
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(deadline);
      fs.rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, output });
    });
  });
}

async function main() {
  fs.rmSync(cache, { force: true });
  try {
    await bundleProgram();
  } catch (error) {
    fs.rmSync(bundle, { force: true });
    fs.rmSync(inputs, { force: true });
    warn(`no bundle (${error.message.split('\n')[0]})`);
    return;
  }
  if (!isAscii(fs.readFileSync(bundle))) {
    // The launcher reads the bundle as latin1, without decoding (fast-start.ts); V8 would also keep a non-ASCII
    // text as UTF-16 (about 8 MB more RSS).
    for (const file of [bundle, inputs]) fs.rmSync(file, { force: true });
    warn('the bundle has non-ASCII characters (from a comment esbuild kept?), so it is removed');
    return;
  }
  const { code, output } = await warmUp();
  if (code !== 0 || !fs.existsSync(cache)) {
    // A bundle that cannot start and stop cleanly must not be what `npm start` runs.
    for (const file of [bundle, cache, inputs]) fs.rmSync(file, { force: true });
    warn(`the warm-up run from the bundle ended with ${code}, so the bundle is removed\n${output.slice(-2000)}`);
  }
}

main().catch((error) => {
  // Whatever failed, a bundle not proven by a clean warm-up start is not left for `npm start` to run.
  for (const file of [bundle, cache, inputs]) fs.rmSync(file, { force: true });
  warn(error.message);
  process.exitCode = 0;
});
