// `npm run connector` runs dist/connector/main.js: it starts from the environment, logs JSON lines,
// stops with exit code 0 on SIGTERM, and refuses bad configuration with exit code 2 naming the variable.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, tempDir } from '../helpers/bank';

const MAIN = path.join(ROOT, 'dist/connector/main.js');

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  readline.createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  return { child, lines, exited, stderr: () => stderr };
}

describe('npm run connector (dist/connector/main.js)', () => {
  it('starts, serves /healthz and /state, and stops with 0 on SIGTERM', async () => {
    const started = run({ CONNECTOR_PORT: '0', CONNECTOR_HOST: '127.0.0.1', CONNECTOR_DATA_DIR: tempDir('reference-connector-main-'), BANK_URL: 'http://127.0.0.1:9' });
    const deadline = Date.now() + 15_000;
    let listening: { url: string; service: string; fixture_orders: number } | undefined;
    while (!listening && Date.now() < deadline) {
      const line = started.lines.find((candidate) => candidate.includes('"reference connector listening"'));
      if (line) listening = JSON.parse(line);
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(listening).toMatchObject({ service: 'reference-connector', fixture_orders: 12 });
    const health = await fetch(`${listening!.url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const state = (await (await fetch(`${listening!.url}/state`)).json()) as { orders: { status: string }[] };
    expect(state.orders).toHaveLength(12);
    expect(state.orders.every((order) => order.status === 'READY')).toBe(true);
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(started.lines.some((line) => line.includes('"stopped"'))).toBe(true);
  });

  it('exits with 2 and names the variable on bad configuration', async () => {
    const failed = run({ CONNECTOR_PORT: 'ninety', POLL_MAX_MS: '-1' });
    expect(await failed.exited).toBe(2);
    expect(failed.stderr()).toMatch(/CONNECTOR_PORT/);
    expect(failed.stderr()).toMatch(/POLL_MAX_MS/);
  });
});
