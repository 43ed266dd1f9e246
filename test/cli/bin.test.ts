// The real `sandbox-bank` bin as child processes: --help, a usage error, `start` running the Bank until SIGTERM
// (exit 0), and `events` tailing it until SIGINT (exit 0).
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { sampleOrder, tempDir } from '../helpers/bank';
import { ROOT, runBin, runCli, spawnBin } from './helpers';

const ADMIN = 'admin-token-of-the-bin-test';
const DEMO_CREDENTIALS = path.join(ROOT, 'fixtures/demo-connector/credentials.json');

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Resolves with the first stdout line that `matches`; rejects when the child exits first. */
function lineOf(child: ChildProcess, matches: (line: string) => boolean, what: string): Promise<string> {
  const seen: string[] = [];
  return new Promise((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      seen.push(line);
      if (matches(line)) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before ${what}:\n${seen.join('\n')}`)));
  });
}

it('--help and a usage error', async () => {
  const help = await runBin(['--help']);
  expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('Usage: sandbox-bank <command> [options]')]);
  const usage = await runBin(['orders', 'list', '--status', 'DONE']);
  expect([usage.code, usage.stderr]).toEqual([3, expect.stringContaining('--status must be one of PENDING, SUCCESS, FAILED')]);
});

it('start runs the Bank until SIGTERM (exit 0); events tails it until SIGINT (exit 0)', async () => {
  const bank = spawnBin(['start', '--port', '0', '--https-port', '0', '--data-dir', tempDir(), '--admin-token', ADMIN, '--mode', 'relaxed', '--log-level', 'info']);
  const bankExit = exited(bank);
  try {
    const listening = await lineOf(bank, (line) => line.includes('"sandbox bank listening"'), 'listening');
    const url = (JSON.parse(listening) as { http: string }).http;
    const env = { SANDBOX_BANK_URL: url, ADMIN_TOKEN: ADMIN };

    const listed = await runBin(['clients', 'list'], env);
    expect([listed.code, listed.stdout]).toEqual([0, expect.stringMatching(/^CLIENT +SOURCE +AUTH +CONNECTOR\ndemo-connector /)]);

    const order = sampleOrder();
    expect((await runCli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(order), '--credentials', DEMO_CREDENTIALS], env)).code).toBe(0);
    const events = spawnBin(['events', '--client', 'demo-connector', '--last-event-id', '0'], env);
    const eventsExit = exited(events);
    const line = await lineOf(events, (text) => text.includes('order.created'), 'the order.created event');
    expect(line).toContain(`reference=${order.reference as string}`);
    events.kill('SIGINT');
    expect(await eventsExit).toBe(0);
  } finally {
    bank.kill('SIGTERM');
  }
  expect(await bankExit).toBe(0);
});
