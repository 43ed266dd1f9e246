// Architecture rules over the import graph of src/ (issue 1/7): the wire layer is shared by both sides and depends on
// neither; the Bank and the reference Connector are peers that never import each other; inside the Bank, SQL and
// transactions live in store/ and application/ only (http/ never opens a transaction); and the Bank's domain stays
// pure (no web framework, database, HTTP client, scheduler or logger).
// Every failure lists each offending file:line, so the message says what to move.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src');

// ---------------------------------------------------------------------------------------------------------------
// Reading the sources

/**
 * The source with comments blanked out (newlines kept, so indices keep their line numbers). Strings, template
 * literals and regular expression literals are kept as they are, so that a quote or a slash inside one does not
 * start a comment, and a comment that mentions `.transaction(` or an import does not count.
 */
function withoutComments(source: string): string {
  const out = source.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k += 1) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  /** Open template literals and `${` expressions inside them (with their own brace depth). */
  const stack: ({ kind: 'template' } | { kind: 'expr'; depth: number })[] = [];
  let lastCode = '';
  let lastWord = '';
  let i = 0;
  const n = source.length;
  const regexMayStart = () =>
    lastCode === '' || '(,=:[!&|?{};+-*%<>~^'.includes(lastCode) || ['return', 'typeof', 'case', 'in', 'of', 'void', 'delete', 'new', 'throw', 'yield', 'await'].includes(lastWord);
  while (i < n) {
    const top = stack[stack.length - 1];
    if (top?.kind === 'template') {
      const c = source[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        stack.pop();
        lastCode = '`';
        lastWord = '';
        i += 1;
      } else if (c === '$' && source[i + 1] === '{') {
        stack.push({ kind: 'expr', depth: 0 });
        lastCode = '{';
        lastWord = '';
        i += 2;
      } else i += 1;
      continue;
    }
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"') {
      let k = i + 1;
      while (k < n && source[k] !== c && source[k] !== '\n') k += source[k] === '\\' ? 2 : 1;
      i = k + 1;
      lastCode = c;
      lastWord = '';
    } else if (c === '`') {
      stack.push({ kind: 'template' });
      i += 1;
    } else if (c === '/' && regexMayStart()) {
      let k = i + 1;
      let inClass = false;
      while (k < n && source[k] !== '\n') {
        if (source[k] === '\\') k += 2;
        else if (source[k] === '[') (inClass = true), (k += 1);
        else if (source[k] === ']') (inClass = false), (k += 1);
        else if (source[k] === '/' && !inClass) break;
        else k += 1;
      }
      i = k + 1;
      lastCode = '/';
      lastWord = '';
    } else {
      if (c === '{' && top?.kind === 'expr') top.depth += 1;
      if (c === '}' && top?.kind === 'expr') {
        if (top.depth === 0) {
          stack.pop();
          i += 1;
          continue;
        }
        top.depth -= 1;
      }
      if (/[A-Za-z0-9_$]/.test(c)) {
        let k = i;
        while (k < n && /[A-Za-z0-9_$]/.test(source[k])) k += 1;
        lastWord = source.slice(i, k);
        lastCode = source[k - 1];
        i = k;
        continue;
      }
      if (!/\s/.test(c)) {
        lastCode = c;
        lastWord = '';
      }
      i += 1;
    }
  }
  return out.join('');
}

interface ImportRef {
  specifier: string;
  line: number;
  /** The statement as written (first line), for messages. */
  text: string;
}

function lineAt(source: string, index: number): number {
  let line = 1;
  for (let k = 0; k < index; k += 1) if (source.charCodeAt(k) === 10) line += 1;
  return line;
}

const IMPORT_FORMS: RegExp[] = [
  // import x from '…', import { a, b } from '…', import type { T } from '…', import * as m from '…' (at a line start)
  /^[ \t]*import\s+(?!\()(?:type\s+)?[^;'"`]*?\bfrom\s*(['"])([^'"\n]+)\1/gm,
  // import '…' (side effects only)
  /^[ \t]*import\s*(['"])([^'"\n]+)\1/gm,
  // export { a } from '…', export * from '…', export * as m from '…', export type { T } from '…'
  /^[ \t]*export\s+(?:type\s+)?(?:\*(?:\s+as\s+[A-Za-z_$][\w$]*)?|\{[^}]*\})\s*from\s*(['"])([^'"\n]+)\1/gm,
  // require('…'), anywhere
  /\brequire\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  // import('…'), dynamic or in a type position, anywhere
  /\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
];

/** Every module specifier a TypeScript source refers to, with the line it is on. */
function importsOf(source: string): ImportRef[] {
  const code = withoutComments(source);
  const lines = source.split('\n');
  const found = new Map<number, ImportRef>();
  for (const form of IMPORT_FORMS) {
    for (const match of code.matchAll(form)) {
      const at = (match.index ?? 0) + match[0].lastIndexOf(match[1] + match[2]);
      if (found.has(at)) continue;
      const line = lineAt(code, at);
      found.set(at, { specifier: match[2], line, text: lines[line - 1].trim() });
    }
  }
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, ref]) => ref);
}

function listTs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    return entry.isFile() && entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** `src/…` with forward slashes. */
function rel(file: string): string {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

/** Where a relative specifier lands (the file when it exists, else the path as written). */
function resolveRelative(fromFile: string, specifier: string): string {
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return rel(candidate);
  }
  return rel(base);
}

interface Edge {
  from: string;
  line: number;
  text: string;
  specifier: string;
  /** For a relative specifier, the repository path it resolves to; null for a package. */
  to: string | null;
}

interface SourceFile {
  path: string;
  source: string;
  code: string;
}

const FILES: SourceFile[] = listTs(SRC).map((file) => {
  const source = fs.readFileSync(file, 'utf8');
  return { path: rel(file), source, code: withoutComments(source) };
});

const EDGES: Edge[] = FILES.flatMap((file) =>
  importsOf(file.source).map((ref) => ({
    from: file.path,
    line: ref.line,
    text: ref.text,
    specifier: ref.specifier,
    to: ref.specifier.startsWith('.') ? resolveRelative(path.join(ROOT, file.path), ref.specifier) : null,
  })),
);

const under = (dir: string) => (file: string) => file === dir || file.startsWith(`${dir}/`);

function describeEdge(edge: Edge): string {
  return `${edge.from}:${edge.line}: ${edge.text}${edge.to ? `  (-> ${edge.to})` : ''}`;
}

/** Edges from files under one of `fromDirs` to files under one of `toDirs`. */
function crossings(fromDirs: string[], toDirs: string[]): string[] {
  return EDGES.filter((edge) => fromDirs.some((dir) => under(dir)(edge.from)) && edge.to !== null && toDirs.some((dir) => under(dir)(edge.to as string)))
    .map(describeEdge);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Matches of `pattern` in the comment-free code of `files`, each as file:line: the line. */
function occurrences(files: SourceFile[], pattern: RegExp): string[] {
  const hits: string[] = [];
  for (const file of files) {
    const lines = file.source.split('\n');
    for (const match of file.code.matchAll(pattern)) {
      const line = lineAt(file.code, match.index ?? 0);
      hits.push(`${file.path}:${line}: ${lines[line - 1].trim()}`);
    }
  }
  return hits;
}

// ---------------------------------------------------------------------------------------------------------------
// The reader itself (so that an empty graph cannot pass the rules below)

describe('import graph reader', () => {
  it('finds every import form on its line; comments do not count, and strings or regexes do not hide what follows', () => {
    const source = [
      "import fs from 'node:fs';", // 1
      'import { a,', // 2
      "  b } from './multi';", // 3
      "import type { T } from '../types';", // 4
      "import * as ns from './ns';", // 5
      "import './side-effect';", // 6
      "export { c } from './re-export';", // 7
      "export * from './star';", // 8
      "export type { U } from './types-only';", // 9
      "const x = require('./required');", // 10
      "const y = await import('./dynamic');", // 11
      "type Z = typeof import('./type-position');", // 12
      "// import { no } from './line-comment';", // 13
      "/* import { no } from './block-comment';", // 14
      "   const no = require('./block-comment-2'); */", // 15
      "const s = \"import { no } from './in-a-string'\";", // 16
      "const r = /'\\/\\/ not a comment/; const q = require('./after-regex');", // 17
      'const t = `${"}"} // not a comment`; const w = require(\'./after-template\');', // 18
      "const u = 'it\\'s // not a comment'; const v = require('./after-string');", // 19
      "  export { e } from './indented';", // 20
    ].join('\n');
    expect(importsOf(source).map((ref) => [ref.line, ref.specifier])).toEqual([
      [1, 'node:fs'],
      [3, './multi'],
      [4, '../types'],
      [5, './ns'],
      [6, './side-effect'],
      [7, './re-export'],
      [8, './star'],
      [9, './types-only'],
      [10, './required'],
      [11, './dynamic'],
      [12, './type-position'],
      [17, './after-regex'],
      [18, './after-template'],
      [19, './after-string'],
      [20, './indented'],
    ]);
  });

  it('reads the real tree: src/ has files under wire, bank and connector, and known edges are found', () => {
    for (const dir of ['src/wire', 'src/bank', 'src/connector', 'src/bank/domain']) {
      expect([dir, FILES.some((file) => under(dir)(file.path))]).toEqual([dir, true]);
    }
    const edge = (from: string, to: string) => EDGES.some((e) => e.from === from && e.to === to);
    expect(edge('src/bank/domain/scenarios.ts', 'src/wire/money.ts')).toBe(true);
    expect(edge('src/bank/domain/order-state.ts', 'src/wire/reason-codes.ts')).toBe(true);
    expect(EDGES.some((e) => e.from === 'src/wire/logger.ts' && e.to === null && packageName(e.specifier) === 'winston')).toBe(true);
    expect(EDGES.length).toBeGreaterThan(100);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The rules

describe('architecture', () => {
  it('(a) src/wire imports nothing from src/bank, src/connector or src/demo', () => {
    expect(crossings(['src/wire'], ['src/bank', 'src/connector', 'src/demo'])).toEqual([]);
  });

  it('(b) src/connector imports nothing from src/bank', () => {
    expect(crossings(['src/connector'], ['src/bank'])).toEqual([]);
  });

  it('(b) src/bank imports nothing from src/connector', () => {
    expect(crossings(['src/bank'], ['src/connector'])).toEqual([]);
  });

  it('(c) within src/bank, only store/ and application/ hold SQL or open transactions', () => {
    const outside = FILES.filter((file) => under('src/bank')(file.path) && !under('src/bank/store')(file.path) && !under('src/bank/application')(file.path));
    const SQL_KEYWORD = '(?:SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|WITH|VACUUM|ATTACH|DETACH)\\b';
    const pattern = new RegExp(`\\.(?:prepare|pragma|transaction)\\s*\\(|\\.exec\\s*\\(\\s*['"\`]\\s*${SQL_KEYWORD}`, 'gi');
    expect(occurrences(outside, pattern)).toEqual([]);
  });

  it('(c) no file under src/bank/http opens a transaction', () => {
    const http = FILES.filter((file) => under('src/bank/http')(file.path));
    // db.transaction(…), orderBook.inTransaction(…) (a call, not the better-sqlite3 flag), or BEGIN/SAVEPOINT in SQL.
    const pattern = /\.(?:transaction|inTransaction|withTransaction|runInTransaction)\s*(?:<[^>()]*>)?\s*\(|['"`]\s*(?:BEGIN|SAVEPOINT)\b/g;
    expect(occurrences(http, pattern)).toEqual([]);
  });

  it('(d) src/bank/domain imports no express, better-sqlite3, axios, node-cron or winston', () => {
    const forbidden = new Set(['express', 'better-sqlite3', 'axios', 'node-cron', 'winston']);
    const offending = EDGES.filter((edge) => under('src/bank/domain')(edge.from) && edge.to === null && forbidden.has(packageName(edge.specifier))).map(describeEdge);
    expect(offending).toEqual([]);
  });
});
