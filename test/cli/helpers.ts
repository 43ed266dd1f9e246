// Helpers of the CLI tests: the CLI's main() with captured output (in-process), the real bin as a child process,
// and temp files. They load nothing of the Bank (listening-bank.ts does).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';

export const ROOT = path.resolve(__dirname, '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** main() in this process, with its output captured; `env` stands for the process environment. */
export async function runCli(argv: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env,
    onInterrupt: () => () => undefined,
  });
  return { code, stdout, stderr };
}

export const BIN = path.join(ROOT, 'bin/sandbox-bank.js');

/** The real bin as a child process (dist/ was built by the global setup, so it skips the build check). */
export function spawnBin(argv: string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, [BIN, ...argv], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SANDBOX_BANK_SKIP_BUILD: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runBin(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const child = spawnBin(argv, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** A URL where nothing listens (a port just released). */
export async function deadUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Writes `content` (JSON unless a string) into a new temp file; answers its path. */
export function tempFile(name: string, content: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-bank-cli-')), name);
  fs.writeFileSync(file, typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content));
  return file;
}
