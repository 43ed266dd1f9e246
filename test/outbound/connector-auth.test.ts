import fs from 'node:fs';
import path from 'node:path';
import { bankWithFakeConnector, connectorOrder } from '../helpers/outbound';
import { FakeConnector } from '../helpers/fake-connector';
import { ROOT, startBank, tempDir } from '../helpers/bank';

describe('the Bank authenticates its pull', () => {
  it('sends the static CONNECTOR_TOKEN as a Bearer token', async () => {
    const { bank, fake } = await bankWithFakeConnector({ connectorToken: 'static-pull-token' });
    fake.orders = [connectorOrder('TOK-1', '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    expect(fake.pulls[0].authorization).toBe('Bearer static-pull-token');
    bank.close();
    await fake.stop();
  });

  it('fetches a token by client_credentials from the configured token URL and caches it, CONNECTOR_TOKEN set or not', async () => {
    const fake = new FakeConnector();
    await fake.start();
    const registry = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/clients.json'), 'utf8'));
    registry.clients[0].connector_base_url = fake.url;
    registry.clients[0].connector = { token_url: `${fake.url}/oauth/token`, token_client_id: 'sandbox-bank', token_client_secret: 's3cret' };
    const clientsFile = path.join(tempDir(), 'clients.json');
    fs.writeFileSync(clientsFile, JSON.stringify(registry));
    // CONNECTOR_TOKEN is for clients with neither a token nor a token URL of their own (docs/configuration.md).
    const bank = await startBank({ clientsFile, sandboxMode: 'relaxed', pollCron: 'off', connectorToken: 'static-pull-token' });
    try {
      const jwks = { keys: [{ ...bank.signer.publicJwk, kid: bank.signer.kid }] };
      fake.setJwks(jwks);
      fake.orders = [connectorOrder('TOK-2', '2026-11-20T00:00:00Z')];
      await bank.outbound.poller.runCycle();
      await bank.outbound.poller.runCycle();
      expect(fake.tokenRequests).toHaveLength(1);
      expect(fake.tokenRequests[0].authorization).toBe(`Basic ${Buffer.from('sandbox-bank:s3cret').toString('base64')}`);
      expect(fake.tokenRequests[0].body).toBe('grant_type=client_credentials');
      expect(fake.pulls.map((pull) => pull.authorization)).toEqual(['Bearer fake-connector-token', 'Bearer fake-connector-token']);
      expect(fake.pulls.every((pull) => pull.signatureOk)).toBe(true);
    } finally {
      bank.close();
      await fake.stop();
    }
  });

  it('refuses a registry whose connector block has an unknown setting', async () => {
    const registry = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/clients.json'), 'utf8'));
    registry.clients[0].connector = { pol: true };
    const clientsFile = path.join(tempDir(), 'clients.json');
    fs.writeFileSync(clientsFile, JSON.stringify(registry));
    await expect(startBank({ clientsFile })).rejects.toThrow(/clients\.json.*\n.*connector\/pol/);
  });
});
