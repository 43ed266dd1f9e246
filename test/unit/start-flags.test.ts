// The node flags the Bank runs under are written once, in package.json's "start"; scripts/start-flags.js reads them
// for the build's code-cache warm-up, the bench and the tests' child Banks, and the Dockerfile's CMD must say the same
// (V8 refuses a code cache made under other flags, docs/architecture.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const { bankNodeFlags, bankArgs } = require('../../scripts/start-flags') as {
  bankNodeFlags(root?: string): string[];
  bankArgs(root: string, extra?: string[]): string[];
};

function packageStart(root: string, start: string): string {
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ scripts: { start } }));
  return root;
}

describe("the Bank's node flags", () => {
  it("are npm start's: a new space of at most 8 MB a semi-space, one V8 worker thread, gc for the idle collection, no allocation-site pretenuring (issue 15)", () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    const flags = ['--max-semi-space-size=8', '--v8-pool-size=1', '--expose-gc', '--no-allocation-site-pretenuring'];
    expect(scripts.start).toBe(`node ${flags.join(' ')} dist/bank/main.js`);
    expect(bankNodeFlags()).toEqual(flags);
    expect(bankNodeFlags(ROOT)).toEqual(flags);
  });

  it("are the Dockerfile's CMD too", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
    expect(cmd).not.toBeNull();
    expect(JSON.parse((cmd as RegExpExecArray)[1])).toEqual(['node', ...bankNodeFlags(), 'dist/bank/main.js']);
  });

  it('are read from another build as that build wrote them: none, several, or a start of another shape refused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-flags-'));
    try {
      expect(bankNodeFlags(packageStart(dir, 'node dist/bank/main.js'))).toEqual([]);
      expect(bankNodeFlags(packageStart(dir, 'node --max-semi-space-size=4 --stack-size=2000 dist/bank/main.js'))).toEqual([
        '--max-semi-space-size=4',
        '--stack-size=2000',
      ]);
      expect(() => bankNodeFlags(packageStart(dir, 'tsx src/bank/main.ts'))).toThrow(/is not "node \[--flag \.\.\.\] dist\/bank\/main\.js"/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('come first in every launcher\'s arguments, before the bench\'s own flags and the script', () => {
    expect(bankArgs(ROOT, ['--cpu-prof'])).toEqual([...bankNodeFlags(), '--cpu-prof', path.join(ROOT, 'dist/bank/main.js')]);
  });
});
