// Starts that must not happen, as processes: `npm start` twice on one DATA_DIR (a second terminal, a CI script that
// starts the Bank again) exits 1 naming the first, which keeps serving, and a SIGKILLed Bank leaves no stale lock
// behind; a start refused its port exits 1 before it opens the store, so an older build still running on that
// store keeps its schema.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/bank/store/migrations';
import { databasePath, migrate } from '../../src/wire/sqlite';
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

describe('a start refused its port', () => {
  it('exits 1 naming PORT and leaves the store as an older build migrated it', async () => {
    const dataDir = tempDir();
    const older = new Database(databasePath(dataDir));
    migrate(older, MIGRATIONS.filter((migration) => migration.version <= 14));
    older.close();
    const holder = http.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '0.0.0.0', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const refused = await runToExit({ DATA_DIR: dataDir, PORT: String(port) });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`sandbox-bank: failed to start: PORT ${port} on 0.0.0.0 is already in use by another process`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    const store = new Database(databasePath(dataDir), { readonly: true });
    expect(store.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(14);
    store.close();
  }, 60_000);
});

