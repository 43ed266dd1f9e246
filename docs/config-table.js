#!/usr/bin/env node
// Prints the README's configuration table from SETTINGS in src/config.ts (through the build in dist/),
// or, with --check, fails when the Configuration section of README.md lacks a row for a setting or lists a variable SETTINGS no longer has.
//   npm run build && node docs/config-table.js            # print the table
//   npm run build && node docs/config-table.js --check    # compare with README.md
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const { SETTINGS } = require(path.join(root, 'dist', 'config.js'));

function formatDefault(value) {
  if (value === null) return '(unset)';
  if (Array.isArray(value)) return value.length === 0 ? '(empty)' : `\`${value.join(',')}\``;
  return `\`${String(value)}\``;
}

const rows = SETTINGS.map((setting) => `| \`${setting.env}\` | ${formatDefault(setting.default)} | ${setting.doc.replace(/\|/g, '\\|')} |`);
const table = ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');

if (!process.argv.includes('--check')) {
  console.log(table);
  process.exit(0);
}

const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const section = (/^## Configuration\n[\s\S]*?(?=^## )/m.exec(readme) ?? [''])[0];
const documented = new Set([...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]));
const missing = rows.filter((row) => !section.includes(row));
const stale = [...documented].filter((name) => !SETTINGS.some((setting) => setting.env === name));
for (const row of missing) console.error(`README.md lacks (or has a different) row: ${row}`);
for (const name of stale) console.error(`README.md documents ${name}, which SETTINGS does not have`);
if (missing.length + stale.length > 0) process.exit(1);
console.log(`README.md documents all ${rows.length} settings`);
