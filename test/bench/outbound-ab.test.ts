// bench/outbound-ab.js runs two outbound pipelines side by side and prints B's CPU an order over A's. A short real
// run (a Bank named by its build directory beside the outbound limit) checks that both deliver every order and that
// the ratio printed is B over A; a sender it does not know is refused before anything starts.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const AB = path.join(ROOT, 'bench/outbound-ab.js');

describe('bench/outbound-ab.js', () => {
  it('runs a Bank build and the outbound limit side by side and prints B over A for each round', async () => {
    const { stdout } = await run(process.execPath, [AB, 'unit', `bank:${ROOT}`, 'limit', '--rounds=2', '--orders=600', '--transport=http'], { timeout: 120_000 });
    const rounds = [...stdout.matchAll(/^round (\d): A (\d+) µs an order \((\d+)\/s\), B (\d+) µs \((\d+)\/s\), B ÷ A ([\d.]+)$/gm)];
    expect(rounds.map((round) => round[1])).toEqual(['1', '2']);
    for (const [, , a, , b, , ratio] of rounds) {
      expect(Number(a)).toBeGreaterThan(0);
      expect(Number(b)).toBeGreaterThan(0);
      expect(Number(ratio)).toBeCloseTo(Number(b) / Number(a), 2);
    }
    expect(stdout).toMatch(new RegExp(`^A bank:${ROOT.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: median \\d+ µs an order; B limit: median \\d+ µs$`, 'm'));
    expect(stdout).toMatch(/^B ÷ A: [\d.]+ [\d.]+; median [\d.]+$/m);
  }, 150_000);

  it('gives each sender the environment named after its ?', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbound-ab-env-'));
    const preload = path.join(dir, 'mark.js');
    const marks = path.join(dir, 'marks.txt');
    fs.writeFileSync(preload, "require('node:fs').appendFileSync(process.env.MARKS, `${process.env.SIDE}\\n`);\n");
    const env = (side: string): string => new URLSearchParams({ NODE_OPTIONS: `--require ${preload}`, MARKS: marks, SIDE: side }).toString();
    await run(process.execPath, [AB, 'unit', `bank?${env('A')}`, `limit?${env('B')}`, '--rounds=1', '--orders=200', '--transport=http'], { timeout: 120_000 });
    expect(fs.readFileSync(marks, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['A', 'B']);
  }, 150_000);

  it('refuses a sender it does not know, and a missing mode', async () => {
    await expect(run(process.execPath, [AB, 'unit', 'bank', 'wiremock'])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('unknown sender "wiremock"') });
    await expect(run(process.execPath, [AB, 'bank', 'limit'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage: node bench/outbound-ab.js') });
  });
});
