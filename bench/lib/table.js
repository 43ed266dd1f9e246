// The bench's plain-text tables: a title, a header, a rule, one line a row, each column as wide as its widest cell.
'use strict';

function row(cells, widths) {
  return cells.map((cell, index) => String(cell).padEnd(widths[index])).join(' | ');
}

function printTable(title, header, rows) {
  const widths = header.map((cell, index) => Math.max(String(cell).length, ...rows.map((r) => String(r[index]).length)));
  console.log(`\n${title}\n${row(header, widths)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
  for (const r of rows) console.log(row(r, widths));
}

module.exports = { printTable };
