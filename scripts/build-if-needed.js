#!/usr/bin/env node
// Runs `tsc` only when dist/ is missing or older than any file under src/ (or its configuration), so `npm start` stays fast.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const output = path.join(root, 'dist', 'bank', 'main.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds dist/ when it is older than its sources; returns quietly when it is current or there are no sources. */
function buildIfNeeded() {
  const built = fs.existsSync(output) ? fs.statSync(output).mtimeMs : 0;
  // An installed build without its sources (the Docker image keeps dist/, not tsconfig.json or src/*.ts): nothing to
  // build from, so what is built is what runs (`npm run pki` and `npm start` work there too).
  if (!fs.existsSync(path.join(root, 'tsconfig.json'))) {
    if (built === 0) throw new Error('dist/ is missing and there are no sources to build it from (no tsconfig.json)');
    return;
  }
  // package.json too: its "start" holds the node flags the bundle's code cache is made under (scripts/start-flags.js).
  // The build's own scripts too: a changed bundler makes another bundle from the same dist/.
  const configs = ['tsconfig.json', 'package.json', 'scripts/compile-schemas.js', 'scripts/bundle.js', 'scripts/deferred-exports.js']
    .map((file) => fs.statSync(path.join(root, file)).mtimeMs);
  const sources = Math.max(newestMtime(path.join(root, 'src')), newestMtime(path.join(root, 'schemas')), ...configs);
  if (built >= sources) return;
  process.stderr.write('building dist/ (tsc, the schema validators, then the bundle)...\n');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  execFileSync(process.execPath, [path.join(root, 'scripts', 'compile-schemas.js')], { stdio: 'inherit', cwd: root });
  execFileSync(process.execPath, [path.join(root, 'scripts', 'bundle.js')], { stdio: 'inherit', cwd: root });
  // dist/bank/main.js is the freshness mark: touch it last, after the validators and the bundle.
  const now = new Date();
  fs.utimesSync(output, now, now);
}

// Run as a command (npm's prestart) or required by another script (scripts/pki.js, new-client.js): either way the
// build happens now, but only the command may end the process, or the requiring script would never run.
try {
  buildIfNeeded();
} catch (error) {
  if (require.main !== module) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
