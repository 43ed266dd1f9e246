#!/usr/bin/env node
// Prints the configuration table of docs/configuration.md from SETTINGS in src/bank/config.ts (through the build
// in dist/), or, with --check, fails when the "Environment variables" section of docs/configuration.md lacks a row
// for a setting (or has it with another default or meaning) or lists a variable SETTINGS no longer has.
//   npm run build && node docs/config-table.js            # print the table
//   npm run build && node docs/config-table.js --check    # compare with docs/configuration.md
// npm test runs the same comparison on the TypeScript source: test/docs/configuration-table.test.ts.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { PAGE, SECTION, formatTable, compare } = require('./config-table-lib');

const root = path.resolve(__dirname, '..');
const built = path.join(root, 'dist', 'bank', 'config.js');
if (!fs.existsSync(built)) {
  console.error(`${path.relative(root, built)} does not exist: run npm run build first`);
  process.exit(2);
}
const { SETTINGS } = require(built);

if (!process.argv.includes('--check')) {
  console.log(formatTable(SETTINGS));
  process.exit(0);
}

const result = compare(SETTINGS, fs.readFileSync(path.join(root, PAGE), 'utf8'));
if (!result.found) console.error(`${PAGE} has no "## ${SECTION}" section`);
for (const row of result.missing) console.error(`${PAGE} lacks (or has a different) row: ${row}`);
for (const name of result.stale) console.error(`${PAGE} documents ${name}, which SETTINGS does not have`);
if (!result.found || result.missing.length + result.stale.length > 0) process.exit(1);
console.log(`${PAGE} documents all ${result.rows.length} settings`);
