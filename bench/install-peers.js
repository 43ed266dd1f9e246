#!/usr/bin/env node
// npm run bench:peers: installs the tools users would pick instead of this sandbox into bench/peers/
// (git-ignored, kept out of the main dependencies): WireMock (its npm package bundles the jar; needs Java 17),
// Prism 5.14 (5.15+ needs Node 24) and json-server.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, 'peers');
fs.mkdirSync(dir, { recursive: true });
const manifest = path.join(dir, 'package.json');
if (!fs.existsSync(manifest)) fs.writeFileSync(manifest, JSON.stringify({ name: 'bench-peers', private: true }, null, 2) + '\n');
const peers = ['wiremock@3.13.2', '@stoplight/prism-cli@5.14.2', 'json-server@0.17.4'];
console.log(`installing ${peers.join(', ')} into ${dir}`);
execFileSync('npm', ['install', '--no-audit', '--no-fund', ...peers], { cwd: dir, stdio: 'inherit' });
