// Shared by the interop tests. jose and oauth4webapi are ESM-only, which ts-jest cannot load, so the Connector
// side runs as scripts/*.mjs child processes: runScript passes its inputs through the environment and parses
// the one JSON object it prints. listen puts a handler (a Bank's app, a recording Connector) on a real socket.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Bank } from '../../src/bank/bank';
import type { BankConfig } from '../../src/bank/config';
import { demo, startBank } from '../helpers/bank';

/** Generous per-test timeout; never asserted on. */
export const INTEROP_TIMEOUT_MS = 30_000;

/** A library's refusal as the scripts report it (scripts/kit.mjs describeError). */
export interface LibraryError {
  name: string;
  code?: string;
  message: string;
  status?: number;
  error?: string;
  error_description?: string;
  challenges?: { scheme: string; parameters: Record<string, string> }[];
  content_type?: string | null;
  body?: unknown;
}

/** What kit.mjs attempt() prints for one case: the value, or the library's error. */
export type Outcome<T> = ({ ok: true } & T) | { ok: false; error: LibraryError };

/**
 * toMatchObject, but a failure also prints the whole result: the library's exact error message, or the Bank's
 * full problem body, which toMatchObject's diff would leave out.
 */
export function expectResult(result: unknown, expected: object): void {
  try {
    expect(result).toMatchObject(expected);
  } catch (error) {
    (error as Error).message += `\n\nWhole result:\n${JSON.stringify(result, null, 2)}`;
    throw error;
  }
}

/** Captured HTTP answer (scripts/kit.mjs capture). */
export interface Captured {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: Record<string, unknown> | null;
}

/** The demo Connector's settings as the scripts read them (kit.mjs connector()). */
export function connectorEnv(bankUrl: string): Record<string, string> {
  return { BANK_URL: bankUrl, CLIENT_ID: demo.client_id, CLIENT_SECRET: demo.client_secret, CLIENT_JWK: JSON.stringify(demo.private_jwk) };
}

export function runScript<T>(name: string, env: Record<string, string>, timeoutMs = INTEROP_TIMEOUT_MS - 5_000): Promise<T> {
  return runJsonChild<T>(name, process.execPath, [path.join(__dirname, 'scripts', name)], { env: { ...process.env, ...env } }, timeoutMs);
}

/** Runs a child that prints one JSON document, and resolves with it; rejects with its output when it fails. */
export function runJsonChild<T>(name: string, command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      if (code !== 0) return reject(new Error(`${name} exited with ${code ?? signal}${signal === 'SIGKILL' ? ` after ${timeoutMs} ms` : ''}:\n${err}${out}`));
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`${name} printed no JSON:\n${out}\n${err}`));
      }
    });
  });
}

export interface Listening {
  url: string;
  close(): Promise<void>;
}

export async function listen(handler: http.RequestListener): Promise<Listening> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ListeningBank extends Listening {
  bank: Bank;
}

/** An in-process Bank (test config, temp data dir) on a real plain-HTTP socket. */
export async function listenBank(overrides: Partial<BankConfig> = {}): Promise<ListeningBank> {
  const bank = await startBank(overrides);
  const server = await listen(bank.app);
  return {
    bank,
    url: server.url,
    close: async () => {
      await server.close();
      await bank.outbound.stop(1000);
      bank.close();
    },
  };
}
