#!/usr/bin/env node
// The `sandbox-bank` command (package.json "bin"; docs/cli.md). In a checkout it first builds dist/ when src/ is
// newer (scripts/build-if-needed.js, as npm start does); in an installed image, with no src/ or no compiler,
// it runs the CLI built there. SANDBOX_BANK_SKIP_BUILD=1 runs dist/ as it is (a CI job that built it already).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const inCheckout = fs.existsSync(path.join(root, 'src')) && fs.existsSync(path.join(root, 'node_modules', 'typescript'));
if (inCheckout && process.env.SANDBOX_BANK_SKIP_BUILD !== '1') require('../scripts/build-if-needed.js');

require('../dist/cli/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    // Ends once what was written has been flushed, even with keep-alive sockets still open.
    process.stdout.write('', () => process.exit(code));
  });
