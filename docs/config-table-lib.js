// The configuration table of docs/configuration.md, built from SETTINGS (src/bank/config.ts), and the comparison
// of that table with the page. Shared by docs/config-table.js (the CLI, on the build in dist/) and by
// test/docs/configuration-table.test.ts (on the TypeScript source, inside npm test), so both format rows alike.
'use strict';

/** The page and the section of it that holds the table. */
const PAGE = 'docs/configuration.md';
const SECTION = 'Environment variables';

function formatDefault(value) {
  if (value === null || value === undefined) return '(unset)';
  if (Array.isArray(value)) return value.length === 0 ? '(empty)' : `\`${value.join(',')}\``;
  return `\`${String(value)}\``;
}

/** One Markdown table row per setting: `| \`ENV\` | default | doc |`. */
function formatRow(setting) {
  return `| \`${setting.env}\` | ${formatDefault(setting.default)} | ${String(setting.doc).replace(/\|/g, '\\|')} |`;
}

function formatTable(settings) {
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...settings.map(formatRow)].join('\n');
}

/** The text of the `## <heading>` section of a Markdown page, up to the next `## ` heading ('' when absent). */
function sectionOf(markdown, heading = SECTION) {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`);
  if (start < 0) return '';
  const end = lines.findIndex((line, index) => index > start && /^## /.test(line));
  return lines.slice(start, end < 0 ? lines.length : end).join('\n');
}

/**
 * Compares SETTINGS with the page. `missing`: rows the section lacks or has in another form (a new setting, or a
 * changed default or doc); `stale`: variables the section lists that SETTINGS no longer has.
 */
function compare(settings, markdown, heading = SECTION) {
  const section = sectionOf(markdown, heading);
  const sectionLines = new Set(section.split('\n').map((line) => line.trimEnd()));
  const rows = settings.map(formatRow);
  const missing = rows.filter((row) => !sectionLines.has(row));
  const documented = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]);
  const known = new Set(settings.map((setting) => setting.env));
  const stale = documented.filter((name) => !known.has(name));
  return { found: section !== '', rows, missing, stale };
}

module.exports = { PAGE, SECTION, formatDefault, formatRow, formatTable, sectionOf, compare };
