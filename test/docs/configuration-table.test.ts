// docs/configuration.md must document every setting of SETTINGS (src/bank/config.ts) exactly as
// `node docs/config-table.js` prints it, and nothing SETTINGS no longer has. The row format and the comparison
// are shared with that script (docs/config-table-lib.js); here they run on the TypeScript source, so no build.
import fs from 'node:fs';
import path from 'node:path';
import { SETTINGS } from '../../src/bank/config';

interface Setting {
  env: string;
  default: unknown;
  doc: string;
}
interface Comparison {
  found: boolean;
  rows: string[];
  missing: string[];
  stale: string[];
}
interface ConfigTableLib {
  PAGE: string;
  SECTION: string;
  formatRow(setting: Setting): string;
  compare(settings: readonly Setting[], markdown: string): Comparison;
}

const lib = require('../../docs/config-table-lib.js') as ConfigTableLib;

const ROOT = path.resolve(__dirname, '..', '..');
const page = fs.readFileSync(path.join(ROOT, lib.PAGE), 'utf8');
const settings: readonly Setting[] = SETTINGS;

describe(`${lib.PAGE}, section "${lib.SECTION}"`, () => {
  const result = lib.compare(settings, page);

  it('exists', () => {
    expect(result.found).toBe(true);
  });

  it('has the row of every setting, as `node docs/config-table.js` prints it', () => {
    expect(result.missing).toEqual([]);
    expect(result.rows).toHaveLength(SETTINGS.length);
  });

  it('documents no variable that SETTINGS does not have', () => {
    expect(result.stale).toEqual([]);
  });
});

describe('the comparison itself', () => {
  const base: Setting = { env: 'SOME_SETTING', default: 5, doc: 'A setting | with a pipe.' };
  const doc = (...rows: string[]) => `# Page\n\n## ${lib.SECTION}\n\n| Variable | Default | Meaning |\n|---|---|---|\n${rows.join('\n')}\n\n## Next\n\n| \`OUTSIDE\` | x | y |\n`;

  it('formats defaults and escapes pipes', () => {
    expect(lib.formatRow(base)).toBe('| `SOME_SETTING` | `5` | A setting \\| with a pipe. |');
    expect(lib.formatRow({ ...base, default: null })).toContain('| (unset) |');
    expect(lib.formatRow({ ...base, default: [] })).toContain('| (empty) |');
    expect(lib.formatRow({ ...base, default: [5, 30] })).toContain('| `5,30` |');
  });

  it('passes a page that matches, ignoring tables outside the section', () => {
    expect(lib.compare([base], doc(lib.formatRow(base)))).toMatchObject({ found: true, missing: [], stale: [] });
  });

  it('reports a setting the page lacks, or documents with another default', () => {
    expect(lib.compare([base], doc()).missing).toEqual([lib.formatRow(base)]);
    expect(lib.compare([base], doc(lib.formatRow({ ...base, default: 6 }))).missing).toEqual([lib.formatRow(base)]);
  });

  it('reports a variable the page lists that SETTINGS does not have', () => {
    const gone = lib.formatRow({ ...base, env: 'GONE_SETTING' });
    expect(lib.compare([base], doc(lib.formatRow(base), gone)).stale).toEqual(['GONE_SETTING']);
  });

  it('reports a page without the section', () => {
    expect(lib.compare([base], '# Page\n').found).toBe(false);
  });
});
