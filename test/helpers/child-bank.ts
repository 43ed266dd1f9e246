// Runs the built Bank (dist/bank/main.js) as a child process, for crash and end-to-end tests.
import { ChildProcess, spawn } from 'node:child_process';
import readline from 'node:readline';
import { ROOT } from './bank';
import type { FakeConnector } from './fake-connector';

// The Bank as npm start runs it, node flags included (package.json), so that it takes the build's code cache.
const { bankArgs } = require('../../scripts/start-flags') as { bankArgs(root: string): string[] };

export interface ChildBank {
  process: ChildProcess;
  httpUrl: string;
  logs: string[];
  exited: Promise<number | null>;
}

export async function startChildBank(env: Record<string, string>, startupTimeoutMs = 15_000): Promise<ChildBank> {
  const child = spawn(process.execPath, bankArgs(ROOT), {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HTTPS_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = readline.createInterface({ input: child.stdout! });
  child.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  const httpUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bank did not start:\n${logs.join('\n')}`)), startupTimeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`bank exited with ${code} during startup:\n${logs.join('\n')}`));
    });
    lines.on('line', (line) => {
      logs.push(line);
      if (line.includes('"sandbox bank listening"')) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { http: string }).http);
      }
    });
  });
  return { process: child, httpUrl, logs, exited };
}

export async function kill(bank: ChildBank, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
  bank.process.kill(signal);
  return bank.exited;
}

/** A child Bank calling `fake` back (CONNECTOR_URL), with the fake told the Bank's JWKS so it verifies callbacks. */
export async function startChildBankFor(fake: FakeConnector, env: Record<string, string>): Promise<ChildBank> {
  const started = await startChildBank({ ...env, CONNECTOR_URL: fake.url });
  fake.setJwks((await (await fetch(`${started.httpUrl}/.well-known/jwks.json`)).json()) as Parameters<FakeConnector['setJwks']>[0]);
  return started;
}
