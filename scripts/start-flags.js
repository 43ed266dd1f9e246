// The node flags the Bank runs under. They are written once, in package.json's "start" script, where a newcomer
// sees them; every other launcher of the built Bank (the build's code-cache warm-up, the bench, the tests' child
// Banks) reads them from there, and a test holds the Dockerfile's CMD to them. Why they must agree: V8 takes a code
// cache only under the flags it was made with (docs/architecture.md, "Fast start").
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const START = /^node((?: --[\w-]+(?:=\S+)?)*) dist\/bank\/main\.js$/;

/** The flags between `node` and `dist/bank/main.js` in `root`'s package.json "start" (another build's, for the bench). */
function bankNodeFlags(root = path.resolve(__dirname, '..')) {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const match = START.exec(scripts.start);
  if (!match) throw new Error(`package.json "start" is not "node [--flag ...] dist/bank/main.js": ${scripts.start}`);
  return match[1].split(' ').filter(Boolean);
}

/** node's arguments for the built Bank in `root` as npm start runs it, with `extraFlags` (a profiler, a trace) too. */
function bankArgs(root, extraFlags = []) {
  return [...bankNodeFlags(root), ...extraFlags, path.join(root, 'dist', 'bank', 'main.js')];
}

module.exports = { bankNodeFlags, bankArgs };
