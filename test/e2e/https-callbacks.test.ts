// The Bank pulls from and calls back an https:// Connector that requires a client certificate (mTLS),
// presenting its dev-PKI client certificate and verifying the Connector's server certificate.
import fs from 'node:fs';
import path from 'node:path';
import { pkiFiles } from '../../src/bank/security/pki';
import { ChildBank, kill, startChildBank } from '../helpers/child-bank';
import { FakeConnector } from '../helpers/fake-connector';
import { tempDir } from '../helpers/bank';
import { connectorOrder, waitFor } from '../helpers/outbound';
import { ensureDevPki } from '../../src/bank/security/pki';

describe('callbacks over mTLS (strict mode, child process)', () => {
  it('delivers signed callbacks over HTTPS with the Bank client certificate', async () => {
    const dataDir = tempDir('sandbox-bank-e2e-cb-');
    const files = pkiFiles(path.join(dataDir, 'pki'));
    // Create the PKI first so the fake Connector can serve HTTPS with the demo client's certificate.
    await ensureDevPki({ dir: files.dir, bankClientId: 'sandbox-bank', clientIds: ['demo-connector'], serverNames: [] });
    const fake = new FakeConnector();
    await fake.start({ cert: fs.readFileSync(files.clientCert('demo-connector')), key: fs.readFileSync(files.clientKey('demo-connector')), ca: fs.readFileSync(files.caCert) });
    fake.orders = [connectorOrder('TLS-1', '2026-11-20T00:00:00Z'), connectorOrder('TLS-2', '2026-11-20T00:00:01Z', { metadata: { sandbox_scenario: 'FAILED:BUS_ACCOUNT_CLOSED' } })];
    let bank: ChildBank | null = null;
    try {
      bank = await startChildBank({ DATA_DIR: dataDir, CONNECTOR_URL: fake.url, POLL_CRON: '* * * * * *', CALLBACK_MODE: 'unit' });
      fake.setJwks((await (await fetch(`${bank.httpUrl}/.well-known/jwks.json`)).json()) as Parameters<FakeConnector['setJwks']>[0]);
      await waitFor(() => fake.finals.size === 2, 20_000, 'two finals over mTLS');
      expect(fake.finals.get('TLS-1')?.status).toBe('SUCCESS');
      expect(fake.finals.get('TLS-2')?.status).toBe('FAILED');
      expect(fake.callbacks.every((callback) => callback.signatureOk)).toBe(true);
      expect(new Set(fake.peerNames)).toEqual(new Set(['sandbox-bank']));
    } finally {
      if (bank) await kill(bank, 'SIGTERM');
      await fake.stop();
    }
  });
});
