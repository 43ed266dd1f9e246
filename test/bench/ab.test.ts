// bench/ab.js measures two servers side by side and prints B's CPU a request over A's (and each one's main thread). A
// short real run (the built Bank beside the required-rows server) checks that both take the load and that the ratio it
// prints is B over A; a server it does not know is refused before anything starts.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The pids of running bench/lib/cache-neighbour.js processes. */
function neighbours(): string[] {
  return fs.readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('cache-neighbour.js');
    } catch {
      return false;
    }
  });
}

const AB = path.resolve(__dirname, '../../bench/ab.js');

describe('bench/ab.js', () => {
  it('runs the Bank and the required-rows server side by side and prints B over A for each round', async () => {
    const { stdout } = await run(process.execPath, [AB, 'create', 'required', 'bank', '--rounds=2', '--requests=300', '--warm-up=100', '--connections=4'], { timeout: 120_000 });
    const rounds = [...stdout.matchAll(/^round (\d): A ([\d.]+) µs \(main thread ([\d.]+)\), B ([\d.]+) µs \(main thread ([\d.]+)\) a create, B ÷ A ([\d.]+)$/gm)];
    expect(rounds.map((round) => round[1])).toEqual(['1', '2']);
    for (const [, , a, mainA, b, mainB, ratio] of rounds) {
      expect(Number(a)).toBeGreaterThan(0);
      expect(Number(b)).toBeGreaterThan(0);
      // The main thread is part of the process: never more than all its threads.
      expect(Number(mainA)).toBeLessThanOrEqual(Number(a));
      expect(Number(mainB)).toBeLessThanOrEqual(Number(b));
      expect(Number(ratio)).toBeCloseTo(Number(b) / Number(a), 2);
    }
    expect(stdout).toMatch(/^A required: median [\d.]+ µs a create, main thread [\d.]+$/m);
    expect(stdout).toMatch(/^B bank: median [\d.]+ µs a create, main thread [\d.]+$/m);
    expect(stdout).toMatch(/^B ÷ A: [\d.]+ [\d.]+; median [\d.]+$/m);
  }, 150_000);

  it('with --alone runs them one after the other and prints their throughput over the same rounds', async () => {
    // With the noisy neighbour too: it must be gone once the A/B is over.
    const { stdout } = await run(process.execPath, [AB, 'create', 'required', 'bank', '--alone', '--neighbour', '--rounds=2', '--requests=300', '--warm-up=100', '--connections=4'], { timeout: 120_000 });
    expect(neighbours()).toEqual([]);
    const rounds = [...stdout.matchAll(/^round (\d): A [\d.]+ µs .* B ÷ A [\d.]+; alone A (\d+)\/s, B (\d+)\/s, B ÷ A ([\d.]+)$/gm)];
    expect(rounds.map((round) => round[1])).toEqual(['1', '2']);
    for (const [, , rpsA, rpsB, ratio] of rounds) {
      expect(Number(rpsA)).toBeGreaterThan(0);
      expect(Number(ratio)).toBeCloseTo(Number(rpsB) / Number(rpsA), 2);
    }
    const ratios = rounds.map((round) => Number(round[4]));
    const median = /^B ÷ A throughput: [\d.]+ [\d.]+; median ([\d.]+)$/m.exec(stdout);
    expect(Number(median?.[1])).toBeCloseTo((ratios[0] + ratios[1]) / 2, 2);
  }, 150_000);

  it('refuses a server it does not know, and a missing flow', async () => {
    await expect(run(process.execPath, [AB, 'create', 'required', 'wiremock'])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('unknown server "wiremock"') });
    await expect(run(process.execPath, [AB, 'required', 'bank'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage: node bench/ab.js') });
  });
});
