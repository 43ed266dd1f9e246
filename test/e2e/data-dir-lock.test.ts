// `npm start` twice on one DATA_DIR (a second terminal, a CI script that starts the Bank again): the second process
// exits 1 naming the first, which keeps serving; a SIGKILLed Bank leaves no stale lock behind.
import { spawn } from 'node:child_process';
import { kill, startChildBank } from '../helpers/child-bank';
import { ROOT, tempDir } from '../helpers/bank';

const { bankArgs } = require('../../scripts/start-flags') as { bankArgs(root: string): string[] };

function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, bankArgs(ROOT), { cwd: ROOT, env: { ...process.env, PORT: '0', HTTPS_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, stdout })));
}

describe('one Bank a DATA_DIR, as processes', () => {
  it('refuses a second Bank while the first runs, and starts again on the same directory after a SIGKILL', async () => {
    const dataDir = tempDir();
    const first = await startChildBank({ DATA_DIR: dataDir });
    try {
      const second = await runToExit({ DATA_DIR: dataDir });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`sandbox-bank: failed to start: DATA_DIR ${dataDir} is in use by a Bank (pid ${first.process.pid} on `);
      // Refused before the dev PKI or the store: nothing was announced or written.
      expect(second.stdout).not.toContain('dev PKI ready');
      expect((await fetch(`${first.httpUrl}/readyz`)).status).toBe(200);
    } finally {
      await kill(first);
    }
    const third = await startChildBank({ DATA_DIR: dataDir });
    expect((await fetch(`${third.httpUrl}/readyz`)).status).toBe(200);
    await kill(third, 'SIGTERM');
  }, 60_000);
});
