// The whole project, tests and bench tools included, type-checks in strict mode. jest compiles each test file on its
// own (isolatedModules: ts-jest only transpiles), so a type error in a test runs green there and would be found only
// by `npm run typecheck`, which CI does not run by itself; this puts that check in `npm test`.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

describe('the project', () => {
  it('type-checks with tsconfig.json (src, test, bench, scripts)', () => {
    const tsc = require.resolve('typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.json'), '--noEmit'], { cwd: ROOT, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
