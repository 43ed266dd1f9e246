import path from 'node:path';
import Database from 'better-sqlite3';
import { kill, startChildBank } from '../helpers/child-bank';
import { FakeConnector } from '../helpers/fake-connector';
import { tempDir } from '../helpers/bank';
import { connectorOrder, waitFor } from '../helpers/outbound';

describe('SIGTERM', () => {
  it('stops the pull, lets the in-flight delivery finish, records it and closes the DB', async () => {
    const fake = new FakeConnector();
    await fake.start();
    fake.latencyMs = 700;
    fake.orders = [connectorOrder('TERM-1', '2026-11-20T00:00:00Z')];
    const dataDir = tempDir();
    const bank = await startChildBank({
      DATA_DIR: dataDir,
      SANDBOX_MODE: 'relaxed',
      CONNECTOR_URL: fake.url,
      POLL_CRON: '* * * * * *',
      CALLBACK_MODE: 'unit',
      SHUTDOWN_TIMEOUT_MS: '5000',
    });
    fake.setJwks((await (await fetch(`${bank.httpUrl}/.well-known/jwks.json`)).json()) as Parameters<FakeConnector['setJwks']>[0]);
    // Wait until the callback is on the wire (the fake has received the request but not answered yet).
    await waitFor(() => bank.logs.some((line) => line.includes('"outbound started"')), 10_000);
    await waitFor(() => fake.arrivals.includes('unit'), 15_000, 'the callback to reach the fake');
    const code = await kill(bank, 'SIGTERM');
    expect(code).toBe(0);
    expect(bank.logs.some((line) => line.includes('"stopped"'))).toBe(true);
    const db = new Database(path.join(dataDir, 'sandbox-bank.sqlite'), { readonly: true });
    const states = db.prepare('SELECT state FROM callbacks').pluck().all();
    db.close();
    expect(states).toEqual(['delivered']);
    expect(fake.finals.get('TERM-1')?.status).toBe('SUCCESS');
    await fake.stop();
  });
});
