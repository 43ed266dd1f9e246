// Issue 13 (5/7), logs of the real Bank (dist/bank/main.js): under a pseudo-terminal (`script` from util-linux)
// one readable, coloured line per event; into a pipe, JSON lines; LOG_FORMAT forces either.
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, tempDir } from '../helpers/bank';

const ESC = String.fromCharCode(27);
const PRETTY_INFO = new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z ${ESC}\\[32minfo${ESC}\\[39m  `);
const PRETTY_PLAIN = /^\d\d:\d\d:\d\d\.\d{3}Z info {2}/;
const MAIN = path.join(ROOT, 'dist/bank/main.js');

interface RunningBank {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves with the first line that contains `text` (waiting for it if need be). */
  lineWith(text: string, timeoutMs?: number): Promise<string>;
}

function bankEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { LOG_FORMAT: _format, NO_COLOR: _noColor, ...inherited } = process.env;
  return { ...inherited, PORT: '0', HTTPS_PORT: '0', DATA_DIR: tempDir(), SANDBOX_MODE: 'relaxed', POLL_CRON: 'off', LOG_LEVEL: 'info', ...extra };
}

/** The Bank with standard output on a pseudo-terminal (`tty`), or on a pipe. */
function runBank(tty: boolean, extra: Record<string, string> = {}): RunningBank {
  const env = bankEnv(extra);
  const child = tty
    ? spawn('script', ['-qfec', `exec '${process.execPath}' '${MAIN}'`, '/dev/null'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: { text: string; resolve: (line: string) => void }[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  readline.createInterface({ input: child.stdout! }).on('line', (raw) => {
    const line = raw.replace(/\r$/, '');
    lines.push(line);
    for (const waiter of waiters.filter((candidate) => line.includes(candidate.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const lineWith = (text: string, timeoutMs = 20_000) => {
    const seen = lines.find((line) => line.includes(text));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line with "${text}" in:\n${lines.join('\n')}\n${stderr.join('')}`)), timeoutMs);
      waiters.push({ text, resolve: (line) => (clearTimeout(timer), resolve(line)) });
    });
  };
  return { child, lines, exited, lineWith };
}

/** The http:// URL of the listening line, pretty (`http=…`) or JSON. */
function httpUrlOf(line: string): string {
  const match = /http=(http:\/\/localhost:\d+)/.exec(line) ?? /"http":"(http:\/\/localhost:\d+)"/.exec(line);
  if (!match) throw new Error(`no http URL in ${line}`);
  return match[1];
}

async function stop(bank: RunningBank): Promise<void> {
  bank.child.kill('SIGTERM');
  await bank.exited;
}

describe('the Bank on a terminal', () => {
  it('writes one readable line per event: time, coloured level, message, key=value; never JSON', async () => {
    const bank = runBank(true);
    try {
      const listening = await bank.lineWith('sandbox bank listening');
      expect(listening).toMatch(PRETTY_INFO);
      expect(listening).toMatch(/ sandbox bank listening http=http:\/\/localhost:\d+ https=https:\/\/localhost:\d+ data_dir=\S+ mode=relaxed /);
      const health = await fetch(`${httpUrlOf(listening)}/healthz`);
      expect(health.status).toBe(200);
      const access = await bank.lineWith('path=/healthz');
      expect(access).toMatch(PRETTY_INFO);
      expect(access).toMatch(/ request method=GET path=\/healthz status=200 ms=[\d.]+ request_id=\S+$/);
      expect(bank.lines.filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
    } finally {
      await stop(bank);
    }
  });

  it('LOG_FORMAT=json keeps JSON lines on a terminal', async () => {
    const bank = runBank(true, { LOG_FORMAT: 'json' });
    try {
      const listening = await bank.lineWith('sandbox bank listening');
      expect(JSON.parse(listening)).toMatchObject({ level: 'info', message: 'sandbox bank listening', service: 'sandbox-bank' });
    } finally {
      await stop(bank);
    }
  });
});

describe('the Bank into a pipe', () => {
  it('writes JSON lines only, from the first line to the last', async () => {
    const bank = runBank(false);
    const listening = await bank.lineWith('sandbox bank listening');
    const health = await fetch(`${httpUrlOf(listening)}/healthz`);
    expect(health.status).toBe(200);
    await bank.lineWith('"path":"/healthz"');
    await stop(bank);
    expect(bank.lines.length).toBeGreaterThan(3);
    for (const line of bank.lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(JSON.parse(bank.lines[bank.lines.length - 1])).toMatchObject({ message: 'stopped' });
  });

  it('LOG_FORMAT=pretty is readable there too, without colour codes', async () => {
    const bank = runBank(false, { LOG_FORMAT: 'pretty' });
    try {
      const listening = await bank.lineWith('sandbox bank listening');
      expect(listening).toMatch(PRETTY_PLAIN);
      expect(bank.lines.join('\n')).not.toContain(ESC);
    } finally {
      await stop(bank);
    }
  });
});
