// How the control-plane commands print: a list as aligned columns (one item a line) with the cursor of the next
// page, one resource as pretty JSON; --json always prints the Bank's answer as it came.
import type { Parsed } from './args';
import type { ApiAnswer } from './bank-api';
import { CliIo, jsonText } from './io';

export type Row = Record<string, unknown>;

export interface Column {
  title: string;
  value: (row: Row) => unknown;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.join(',');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Rows as columns padded to their widest cell; the last column is not padded. */
export function table(rows: readonly Row[], columns: readonly Column[]): string {
  const cells = [columns.map((column) => column.title), ...rows.map((row) => columns.map((column) => cell(column.value(row))))];
  const widths = columns.map((_column, index) => Math.max(...cells.map((line) => line[index].length)));
  return cells.map((line) => line.map((text, index) => (index === line.length - 1 ? text : text.padEnd(widths[index]))).join('  ').trimEnd()).join('\n') + '\n';
}

/** A `{data, next_cursor}` page: the table, or a line saying it is empty, then how to get the next page. */
export function printPage(io: CliIo, parsed: Parsed, answer: ApiAnswer, columns: readonly Column[], what: string): void {
  if (parsed.flag('json')) {
    io.stdout(jsonText(answer.json));
    return;
  }
  const page = answer.json as { data?: Row[]; next_cursor?: string | null };
  const rows = page.data ?? [];
  io.stdout(rows.length === 0 ? `no ${what}\n` : table(rows, columns));
  if (page.next_cursor) io.stdout(`more: --cursor ${page.next_cursor}\n`);
}

/** One resource: pretty JSON either way (it is already the most readable form). */
export function printJson(io: CliIo, answer: ApiAnswer): void {
  io.stdout(jsonText(answer.json));
}

export const column = (title: string, name: string): Column => ({ title, value: (row) => row[name] });

/** --limit and --cursor of a list, as query parameters. */
export function pageQuery(parsed: Parsed): Record<string, string | number | undefined> {
  return { limit: parsed.integer('limit', 1, 1000), cursor: parsed.string('cursor') };
}

export const PAGE_OPTIONS = {
  limit: { type: 'string' as const, value: 'n', help: 'items per page (default 50, at most 1000)' },
  cursor: { type: 'string' as const, value: 'cursor', help: 'the next_cursor of the previous page' },
};
