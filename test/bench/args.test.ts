// bench/lib/args.js: the bench scripts' `--name=value` options, and what a profiling tool looks at.
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { loadTarget, option } = require('../../bench/lib/args');

describe('bench/lib/args.js', () => {
  const argv = process.argv;
  const bankRoot = process.env.BANK_ROOT;
  afterEach(() => {
    process.argv = argv;
    if (bankRoot === undefined) delete process.env.BANK_ROOT;
    else process.env.BANK_ROOT = bankRoot;
  });

  it('reads the text after --name=, an = in the value included, and the fallback as text when absent', () => {
    process.argv = ['node', 'script', 'create', '--requests=40000', '--env=A=1', '--requests-extra=9'];
    expect(option('requests', 20_000)).toBe('40000');
    expect(option('env', '')).toBe('A=1');
    expect(option('connections', 20)).toBe('20');
  });

  it('names what a profiling tool looks at: create by default, the Bank of this checkout, c=20', () => {
    delete process.env.BANK_ROOT;
    process.argv = ['node', 'script'];
    expect(loadTarget(30_000)).toEqual({ flow: 'create', server: 'bank', requests: 30_000, connections: 20, bankRoot: path.resolve(__dirname, '../..') });
    process.env.BANK_ROOT = 'other-build';
    process.argv = ['node', 'script', 'status', '--server=limit', '--requests=500', '--connections=5'];
    expect(loadTarget(30_000)).toEqual({ flow: 'status', server: 'limit', requests: 500, connections: 5, bankRoot: path.resolve('other-build') });
  });
});
