// bench/allocations.js: the preload samples allocations only after SIGUSR2 (the driver's warm-up is left out),
// keeps the samples of objects already collected (a request's objects die young), and writes the profile on exit;
// the driver sums each function's own bytes over the call tree.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { sums } = require('../../bench/allocations');

interface Frame { functionName: string; url: string; lineNumber: number }
interface HeapNode { callFrame: Frame; selfSize: number; children: HeapNode[] }

const run = promisify(execFile);
const SAMPLER = path.resolve(__dirname, '../../bench/lib/allocation-sampler.js');

function node(functionName: string, selfSize: number, children: HeapNode[] = []): HeapNode {
  return { callFrame: { functionName, url: '', lineNumber: 0 }, selfSize, children };
}

// ~17 MB of short-lived objects (1,024 alive at most, ~90 KB) in one named function before the signal and in
// another after it; a timer keeps the process up until the signal has come (signal handles do not).
const CHILD = `
const sink = [];
function beforeSignal() { for (let i = 0; i < 200000; i += 1) sink[i & 1023] = { i, s: 'x' + i }; }
function afterSignal() { for (let i = 0; i < 200000; i += 1) sink[i & 1023] = { i, s: 'x' + i }; }
beforeSignal();
const wait = setTimeout(() => { throw new Error('no signal'); }, 10000);
process.on('SIGUSR2', () => setImmediate(() => { afterSignal(); clearTimeout(wait); }));
process.kill(process.pid, 'SIGUSR2');
`;

function bytesBy(profile: { head: HeapNode }): Map<string, number> {
  return new Map((sums(profile, (frame: Frame) => frame.functionName) as { rows: [string, number][] }).rows);
}

describe('bench/allocations.js', () => {
  it('sums the bytes each function allocated itself, wherever it appears in the tree', () => {
    const tree = { head: node('(root)', 0, [node('a', 100, [node('b', 30), node('a', 5)]), node('b', 7)]) };
    const { all, rows } = sums(tree, (frame: Frame) => frame.functionName);
    expect(all).toBe(142);
    expect(rows).toEqual([['a', 105], ['b', 37], ['(root)', 0]]);
  });

  it('samples from the signal on, collected objects included, and writes the profile on exit', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'allocations-test-')), 'out.heapprofile');
    await run(process.execPath, ['--require', SAMPLER, '-e', CHILD], { env: { ...process.env, ALLOCATION_PROFILE_FILE: file } });
    const bytes = bytesBy(JSON.parse(fs.readFileSync(file, 'utf8')));
    // Far more than the ~90 KB that stay alive: the samples of collected objects are kept.
    expect(bytes.get('afterSignal') ?? 0).toBeGreaterThan(5_000_000);
    expect(bytes.get('beforeSignal') ?? 0).toBe(0);
  });

  it('writes nothing when the signal never came', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'allocations-test-')), 'out.heapprofile');
    await run(process.execPath, ['--require', SAMPLER, '-e', 'new Array(1000).fill(0)'], { env: { ...process.env, ALLOCATION_PROFILE_FILE: file } });
    expect(fs.existsSync(file)).toBe(false);
  });
});
