// Clients registered with a jwks_uri (control-plane.md section 1, profile v1.1 section 1): the Bank fetches the
// key set at registration, caches it (Cache-Control max-age, else JWKS_CACHE_TTL_S), and refetches ONCE on an
// unknown kid, at most once per kid and minute, before refusing with signature_invalid / kid_unknown.
import http from 'node:http';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import type { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { PublicJwk, publicOnly } from '../../src/wire/keys';
import { generateClientJwk } from '../../src/bank/application/client-registrations';
import { sampleOrder, startBank, tempDir } from '../helpers/bank';
import { createCa, opensslAvailable } from '../helpers/pki';
import { expectProblem } from '../helpers/wire';
import { createAs, expectSchema, registerClient, sandbox, Signer, tokenFor } from './client-helpers';

/** A Connector's JWKS endpoint: serves `keys` (public halves), counts fetches, answers what it is told. */
class JwksServer {
  keys: PublicJwk[] = [];
  cacheControl: string | null = null;
  status = 200;
  body: string | null = null;
  delayMs = 0;
  fetches = 0;
  url = '';
  private server: http.Server | https.Server | null = null;

  async start(tls?: { key: string; cert: string }): Promise<void> {
    const handler = (_req: http.IncomingMessage, res: http.ServerResponse) => {
      this.fetches += 1;
      const answer = () => {
        const headers: Record<string, string> = { 'content-type': 'application/jwk-set+json' };
        if (this.cacheControl) headers['cache-control'] = this.cacheControl;
        res.writeHead(this.status, headers).end(this.body ?? JSON.stringify({ keys: this.keys.map(publicOnly) }));
      };
      if (this.delayMs > 0) setTimeout(answer, this.delayMs);
      else answer();
    };
    this.server = tls ? https.createServer(tls, handler) : http.createServer(handler);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `${tls ? 'https://localhost' : 'http://127.0.0.1'}:${port}/.well-known/jwks.json`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('a client registered with a jwks_uri', () => {
  const clock = new ManualClock();
  const served = new JwksServer();
  let bank: Bank;
  let signer: Signer;
  const first = generateClientJwk();
  const second = generateClientJwk();

  beforeAll(async () => {
    await served.start();
    served.keys = [first];
    bank = await startBank({ sandboxMode: 'relaxed', jwksCacheTtlS: 300 }, { clock });
    const created = await registerClient(bank, { client_id: 'rotating', jwks_uri: served.url });
    expect(created.private_jwk).toBeUndefined();
    signer = { clientId: 'rotating', jwk: first, token: await tokenFor(bank, 'rotating', created.client_secret) };
  });
  afterAll(async () => {
    bank.close();
    await served.stop();
  });

  it('fetched the key set once, at registration, and verifies from the cache', async () => {
    expect(served.fetches).toBe(1);
    expect((await createAs(bank, signer)).status).toBe(200);
    expect((await createAs(bank, signer)).status).toBe(200);
    expect(served.fetches).toBe(1);
    const shown = await sandbox(bank).get('/sandbox/clients/rotating');
    expectSchema('client', shown.body);
    expect(shown.body).toMatchObject({ jwks_uri: served.url, jwks: { keys: [publicOnly(first)] }, jwks_cache: { fetches: 1, last_error: null } });
  });

  it('accepts a rotated key after one refetch, without a call to the Bank (the acceptance test of the issue)', async () => {
    served.keys = [second];
    const before = served.fetches;
    const answer = await createAs(bank, { ...signer, jwk: second });
    expect(answer.status).toBe(200);
    expect(served.fetches).toBe(before + 1);
    // The new key now verifies from the cache; the retired one is gone with the set it was in.
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
    expect(served.fetches).toBe(before + 1);
  });

  it('records every fetch in the journal as an outgoing call of that client', async () => {
    const answer = await sandbox(bank).get('/sandbox/journal?client_id=rotating&direction=out');
    expect(answer.status).toBe(200);
    const fetches = (answer.body.data as { method: string; url: string; status: number }[]).filter((entry) => entry.url === served.url);
    expect(fetches).toHaveLength(served.fetches);
    expect(fetches.every((entry) => entry.method === 'GET' && entry.status === 200)).toBe(true);
  });

  it('refuses an unknown kid after one refetch, and refetches for that kid at most once a minute', async () => {
    const stranger = generateClientJwk();
    const before = served.fetches;
    const refused = expectProblem(await createAs(bank, { ...signer, jwk: stranger }), 401, 'signature_invalid');
    expect(refused).toMatchObject({ reason: 'kid_unknown', kid: stranger.kid });
    expect(served.fetches).toBe(before + 1);
    expectProblem(await createAs(bank, { ...signer, jwk: stranger }), 401, 'signature_invalid');
    expect(served.fetches).toBe(before + 1);
    // The retired key of the rotation above is refused the same way, once.
    expectProblem(await createAs(bank, signer), 401, 'signature_invalid');
    expect(served.fetches).toBe(before + 2);
    clock.advance(61_000);
    expectProblem(await createAs(bank, { ...signer, jwk: stranger }), 401, 'signature_invalid');
    expect(served.fetches).toBe(before + 3);
  });

  it('refetches once the cache is older than the TTL (JWKS_CACHE_TTL_S without max-age)', async () => {
    const before = served.fetches;
    clock.advance(301_000);
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
    expect(served.fetches).toBe(before + 1);
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
    expect(served.fetches).toBe(before + 1);
  });

  it('follows Cache-Control: max-age of the answer', async () => {
    served.cacheControl = 'public, max-age=10';
    clock.advance(301_000);
    const before = served.fetches;
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
    expect(served.fetches).toBe(before + 1);
    clock.advance(5_000);
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
    expect(served.fetches).toBe(before + 1);
    clock.advance(6_000);
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
    expect(served.fetches).toBe(before + 2);
    served.cacheControl = null;
  });

  it('shares one refetch between concurrent requests with the same new kid', async () => {
    const third = generateClientJwk();
    served.keys = [second, third];
    served.delayMs = 50;
    const before = served.fetches;
    const answers = await Promise.all([0, 1, 2, 3].map(() => createAs(bank, { ...signer, jwk: third, token: signer.token }, sampleOrder())));
    served.delayMs = 0;
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(served.fetches).toBe(before + 1);
  });

  it('keeps the keys at hand when a refetch fails, and says so in GET', async () => {
    served.status = 503;
    clock.advance(301_000);
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
    const shown = await sandbox(bank).get('/sandbox/clients/rotating');
    expect(shown.body.jwks_cache.last_error).toContain('503');
    served.status = 200;
  });

  it('switches to inline keys and back with PATCH', async () => {
    const { d: _private, ...publicFirst } = first;
    expect((await sandbox(bank).patch('/sandbox/clients/rotating', { jwks: { keys: [publicFirst] } })).body).toMatchObject({ jwks_uri: null, jwks_cache: null });
    expect((await createAs(bank, signer)).status).toBe(200);
    const before = served.fetches;
    served.keys = [second];
    const back = await sandbox(bank).patch('/sandbox/clients/rotating', { jwks_uri: served.url });
    expect(back.status).toBe(200);
    expect(served.fetches).toBe(before + 1);
    expect((await createAs(bank, { ...signer, jwk: second })).status).toBe(200);
  });
});

describe('a jwks_uri client across a restart', () => {
  it('is loaded from the store and fetches its keys on first use', async () => {
    const served = new JwksServer();
    await served.start();
    const key = generateClientJwk();
    served.keys = [key];
    const dataDir = tempDir();
    const first = await startBank({ dataDir, sandboxMode: 'relaxed' });
    const created = await registerClient(first, { client_id: 'remote-keys', jwks_uri: served.url });
    first.close();
    const second = await startBank({ dataDir, sandboxMode: 'relaxed' });
    try {
      expect(served.fetches).toBe(1);
      const signer = { clientId: 'remote-keys', jwk: key, token: await tokenFor(second, 'remote-keys', created.client_secret) };
      expect((await createAs(second, signer)).status).toBe(200);
      expect(served.fetches).toBe(2);
    } finally {
      second.close();
      await served.stop();
    }
  });
});

describe('registering with a jwks_uri that gives no usable key set', () => {
  const served = new JwksServer();
  let bank: Bank;

  beforeAll(async () => {
    await served.start();
    bank = await startBank({ sandboxMode: 'relaxed' });
  });
  afterAll(async () => {
    bank.close();
    await served.stop();
  });

  async function refusal(jwksUri: string): Promise<string> {
    const problem = expectProblem(await sandbox(bank).post('/sandbox/clients', { jwks_uri: jwksUri }), 400, 'body_invalid');
    expect(problem.errors).toHaveLength(1);
    expect(problem.errors?.[0].path).toBe('/jwks_uri');
    return problem.errors?.[0].message as string;
  }

  it('answers 400 body_invalid, naming why, and registers nothing', async () => {
    const count = () => (bank.registry.all().length);
    const clients = count();
    served.status = 404;
    expect(await refusal(served.url)).toContain('404');
    served.status = 200;
    served.body = 'not json';
    expect(await refusal(served.url)).toContain('not JSON');
    served.body = JSON.stringify({ keys: [generateClientJwk()] });
    expect(await refusal(served.url)).toContain('private');
    served.body = JSON.stringify({ keys: [] });
    expect(await refusal(served.url)).toContain('empty');
    served.body = null;
    const closed = new JwksServer();
    await closed.start();
    await closed.stop();
    expect(await refusal(closed.url)).toContain('ECONNREFUSED');
    expect(count()).toBe(clients);
  });
});

(opensslAvailable() ? describe : describe.skip)('a jwks_uri over HTTPS', () => {
  it('is fetched through the TLS settings of callbacks (the CA the Bank trusts)', async () => {
    const ca = createCa('jwks-ca');
    const served = new JwksServer();
    await served.start(ca.issue('localhost'));
    const key = generateClientJwk();
    served.keys = [key];
    const trusting = await startBank({ sandboxMode: 'relaxed' }, { connectorTls: { ca: Buffer.from(ca.cert) } });
    const other = await startBank({ sandboxMode: 'relaxed' });
    try {
      const created = await registerClient(trusting, { client_id: 'tls-jwks', jwks_uri: served.url });
      const signer = { clientId: 'tls-jwks', jwk: key, token: await tokenFor(trusting, 'tls-jwks', created.client_secret) };
      expect((await createAs(trusting, signer)).status).toBe(200);
      // A Bank that does not trust that CA cannot fetch it.
      const problem = expectProblem(await sandbox(other).post('/sandbox/clients', { jwks_uri: served.url }), 400, 'body_invalid');
      expect(problem.errors?.[0].path).toBe('/jwks_uri');
    } finally {
      trusting.close();
      other.close();
      await served.stop();
    }
  });
});
