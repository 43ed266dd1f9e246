// Every relative link in the project's Markdown pages must lead somewhere: the file must exist, and an anchor
// must name a heading of the target page, slugged the way GitHub does it. Links to http(s) and mailto, and
// anything inside fenced code blocks or inline code, are not checked.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

function pages(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...docs, 'bench/README.md', 'src/connector/README.md'];
}

/** The lines outside fenced code blocks (``` or ~~~, possibly indented, as in list items); fenced lines become ''. */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null) {
      if (marker) {
        fence = marker[1];
        return '';
      }
      return line;
    }
    if (marker && marker[1][0] === fence[0] && marker[1].length >= fence.length && line.trim() === marker[1]) fence = null;
    return '';
  });
}

function withoutInlineCode(line: string): string {
  return line.replace(/(`+)[\s\S]*?\1/g, (code) => ' '.repeat(code.length));
}

/** GitHub's heading slug: lower case, punctuation removed (hyphens, underscores and spaces kept), spaces to hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image keeps its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '')
    .replace(/\*/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page: its headings' slugs (the n-th repeat of a slug gets -n) and explicit HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const html of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(html[1]);
  }
  return anchors;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

/** Inline links and images `[text](target)` and reference definitions `[label]: target`. */
function linksOf(page: string, markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((raw, index) => {
    const line = withoutInlineCode(raw);
    const found = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]),
      ...[...line.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((match) => match[1]),
    ];
    for (const target of found) links.push({ page, line: index + 1, target });
  });
  return links;
}

const EXTERNAL = /^(https?:|mailto:)/i;

function problemsOf(link: Link): string | null {
  if (EXTERNAL.test(link.target)) return null;
  const where = `${link.page}:${link.line}: (${link.target})`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return `${where}: an unexpected scheme`;
  const hash = link.target.indexOf('#');
  const filePart = hash < 0 ? link.target : link.target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(link.target.slice(hash + 1));
  const file = filePart === '' ? path.join(ROOT, link.page) : path.resolve(ROOT, path.dirname(link.page), decodeURIComponent(filePart));
  if (!file.startsWith(ROOT + path.sep) && file !== ROOT) return `${where}: leaves the repository`;
  if (!fs.existsSync(file)) return `${where}: ${path.relative(ROOT, file)} does not exist`;
  if (anchor === null) return null;
  if (!file.endsWith('.md')) return `${where}: an anchor into a file that is not Markdown`;
  if (!anchorsOf(fs.readFileSync(file, 'utf8')).has(anchor)) return `${where}: ${path.relative(ROOT, file)} has no heading #${anchor}`;
  return null;
}

describe('relative links in the Markdown pages', () => {
  it.each(pages())('%s: every link resolves, anchors included', (page) => {
    const markdown = fs.readFileSync(path.join(ROOT, page), 'utf8');
    const links = linksOf(page, markdown);
    const problems = links.map(problemsOf).filter((problem): problem is string => problem !== null);
    expect(problems).toEqual([]);
  });
});

describe('the link checker itself', () => {
  it('slugs headings like GitHub', () => {
    expect(slug('3. How a Connector verifies the Bank\'s signature')).toBe('3-how-a-connector-verifies-the-banks-signature');
    expect(slug('See it work: `npm run demo`')).toBe('see-it-work-npm-run-demo');
    expect(slug('Inspection: `/sandbox`')).toBe('inspection-sandbox');
    expect(slug('A missing `X-Client-Id` is 400 `header_missing`')).toBe('a-missing-x-client-id-is-400-header_missing');
    expect(slug('Performance (preliminary)')).toBe('performance-preliminary');
  });

  it('numbers repeated headings and ignores headings in code blocks', () => {
    const anchors = anchorsOf('# A\n\n## Notes\n\n```bash\n# Notes\n```\n\n## Notes\n\n### Notes\n');
    expect([...anchors]).toEqual(['a', 'notes', 'notes-1', 'notes-2']);
  });

  it('finds links outside code only', () => {
    const markdown = 'See [a](a.md#x) and `[b](b.md)`.\n\n```\n[c](c.md)\n```\n\n[d]: d.md\n![e](e.png "title")\n';
    expect(linksOf('p.md', markdown).map((link) => link.target)).toEqual(['a.md#x', 'd.md', 'e.png']);
  });

  it('reports a missing file and a missing anchor', () => {
    expect(problemsOf({ page: 'README.md', line: 1, target: 'docs/no-such-page.md' })).toMatch(/does not exist/);
    expect(problemsOf({ page: 'README.md', line: 1, target: '#no-such-heading-anywhere' })).toMatch(/has no heading/);
    expect(problemsOf({ page: 'README.md', line: 1, target: 'https://example.com/#whatever' })).toBeNull();
  });
});
