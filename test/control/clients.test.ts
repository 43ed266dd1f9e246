// Control plane section 1: clients at run time. POST /sandbox/clients answers everything needed to start from
// nothing; GET never shows a secret; PATCH and DELETE take effect at once; registrations and changes persist.
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { pkiFiles } from '../../src/bank/security/pki';
import { ManualClock } from '../../src/wire/clock';
import { DemoClient, ROOT, sampleOrder, startBank, tempDir } from '../helpers/bank';
import { bankWithFakeConnector, connectorOrder, drain, waitFor } from '../helpers/outbound';
import { FakeConnector } from '../helpers/fake-connector';
import { wireRequest } from '../helpers/https-request';
import { expectProblem } from '../helpers/wire';
import { ADMIN_TOKEN, createAs, Created, expectSchema, registerClient, sandbox, Signer, statusHeadersAs, tokenFor } from './client-helpers';

const SECRET_MARKERS = ['"client_secret":', 'client_secret_hash', 'api_key_hash', 'sha256:', '"d":', 'PRIVATE KEY'];

function expectNoSecret(text: string, secrets: string[] = []): void {
  for (const marker of [...SECRET_MARKERS, ...secrets]) expect([marker, text.includes(marker)]).toEqual([marker, false]);
}

describe('POST /sandbox/clients', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
  });
  afterAll(() => bank.close());

  it('registers a client from an empty body and answers everything needed to start, once', async () => {
    const answer = await sandbox(bank).post('/sandbox/clients', {});
    expect(answer.status).toBe(201);
    expectSchema('client-created', answer.body);
    const created = answer.body as Created;
    expect(created.client_id).toMatch(/^client-[0-9a-f]{8}$/);
    expect(answer.headers.location).toBe(`/sandbox/clients/${created.client_id}`);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(created.client_secret.length).toBeGreaterThanOrEqual(32);
    expect(created.private_jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(created.api_key).toBeUndefined();
    // The certificate: issued by the dev CA, CN = client id.
    const certificate = new X509Certificate(created.certificate_pem as string);
    const ca = new X509Certificate(created.ca_pem as string);
    expect(certificate.subject).toContain(`CN=${created.client_id}`);
    expect(certificate.checkIssued(ca)).toBe(true);
    expect(certificate.verify(ca.publicKey)).toBe(true);
    expect(created.certificate_key_pem).toContain('PRIVATE KEY');
    // The examples name the Bank as it was called, and this client.
    expect(created.examples.token_curl).toMatch(new RegExp(`^curl -sS -u '${created.client_id}:${created.client_secret}' -d grant_type=client_credentials http://127\\.0\\.0\\.1:\\d+/oauth/token$`));
    expect(created.examples.connector_env).toContain(`CREDENTIALS_FILE=./${created.client_id}.credentials.json`);
    expect(created.examples.connector_env).toMatch(/^BANK_URL=http:\/\/127\.0\.0\.1:\d+$/m);
    expect(created.examples.connector_env).toContain(`CONNECTOR_TLS_CERT=./${created.client_id}.crt`);
  });

  it('stores the secret and the API key only as hashes, and the private key not at all', async () => {
    const created = await registerClient(bank, { client_id: 'hashes-only', auth_methods: ['bearer', 'api_key'] });
    expect(typeof created.api_key).toBe('string');
    const stored = JSON.stringify(bank.db.prepare("SELECT * FROM clients WHERE client_id = 'hashes-only'").get());
    expect(stored).toContain('sha256:');
    for (const secret of [created.client_secret, created.api_key as string, created.private_jwk?.d as string]) expect(stored.includes(secret)).toBe(false);
    expect(stored).toContain(created.private_jwk?.x as string);
  });

  it('registers given public keys without generating any, and the connector block', async () => {
    const other = await registerClient(bank);
    const { d: _private, ...publicJwk } = other.private_jwk as Record<string, unknown>;
    const created = await registerClient(bank, {
      client_id: 'own-keys',
      name: 'Own keys',
      jwks: { keys: [publicJwk] },
      connector: { url: 'http://127.0.0.1:9/', callback_mode: 'batch', poll: false, poll_limit: 7, poll_status: 'PENDING', token: 'pull-token-123' },
    });
    expect(created.private_jwk).toBeUndefined();
    expect(created.examples.connector_env).toContain('PULL_TOKEN=pull-token-123');
    expect(created.examples.connector_env).toContain('CONNECTOR_PORT=9');
    const shown = await sandbox(bank).get('/sandbox/clients/own-keys');
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      client_id: 'own-keys',
      name: 'Own keys',
      source: 'runtime',
      jwks: { keys: [publicJwk] },
      connector: { url: 'http://127.0.0.1:9', callback_mode: 'batch', poll: false, poll_limit: 7, poll_status: 'PENDING', token_set: true },
    });
    expectNoSecret(shown.text, ['pull-token-123']);
  });

  it('answers 409 client_exists for an id that is registered, from the file or at run time', async () => {
    expectProblem(await sandbox(bank).post('/sandbox/clients', { client_id: 'demo-connector' }), 409, 'client_exists');
    await registerClient(bank, { client_id: 'twice' });
    expectProblem(await sandbox(bank).post('/sandbox/clients', { client_id: 'twice' }), 409, 'client_exists');
  });

  it('registers one of two concurrent registrations of the same id, and answers the other 409', async () => {
    const answers = await Promise.all([0, 1].map(() => sandbox(bank).post('/sandbox/clients', { client_id: 'racing' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });

  it.each([
    ['an unknown member', { colour: 'blue' }, '/colour'],
    ['a client_id of the wrong syntax', { client_id: 'has space' }, '/client_id'],
    ['a client_id of the wrong type', { client_id: 42 }, '/client_id'],
    ['auth_methods not a list', { auth_methods: 'bearer' }, '/auth_methods'],
    ['an unknown auth method', { auth_methods: ['password'] }, '/auth_methods/0'],
    ['a connector without url', { connector: { poll: false } }, '/connector/url'],
    ['a connector url that is not http(s)', { connector: { url: 'ftp://example.com' } }, '/connector/url'],
    ['an unknown connector member', { connector: { url: 'http://localhost:1', cert_file: '/etc/passwd' } }, '/connector/cert_file'],
    ['token and token_url together', { connector: { url: 'http://localhost:1', token: 't', token_url: 'http://localhost:1/token' } }, '/connector/token_url'],
    ['a private key in jwks', { jwks: { keys: [{ kty: 'EC', kid: 'k', crv: 'P-256', x: 'x', y: 'y', d: 'secret' }] } }, '/jwks/keys/0/d'],
    ['a JWK that is no key', { jwks: { keys: [{ kty: 'EC', kid: 'k', crv: 'P-256', x: 'AA', y: 'AA' }] } }, '/jwks'],
    ['jwks and jwks_uri together', { jwks: { keys: [{ kty: 'EC', kid: 'k' }] }, jwks_uri: 'http://localhost:1/jwks.json' }, '/jwks_uri'],
  ])('answers 400 body_invalid with errors for %s', async (_what, body, errorPath) => {
    const problem = expectProblem(await sandbox(bank).post('/sandbox/clients', body), 400, 'body_invalid');
    expect(problem.errors?.map((error) => error.path)).toContain(errorPath);
  });

  it('answers 400 body_malformed for a body that is not JSON, and 415 for another media type', async () => {
    expectProblem(await request(bank.app).post('/sandbox/clients').set('content-type', 'application/json').send('{"client_id":'), 400, 'body_malformed');
    expectProblem(await request(bank.app).post('/sandbox/clients').set('content-type', 'text/plain').send('client_id=x'), 415, 'unsupported_media_type');
  });

  it('answers 400 query_invalid for a query parameter', async () => {
    expectProblem(await sandbox(bank).post('/sandbox/clients?dry_run=1', {}), 400, 'query_invalid');
  });
});

describe('/sandbox/clients with ADMIN_TOKEN', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ adminToken: ADMIN_TOKEN });
  });
  afterAll(() => bank.close());

  it('needs the admin token on every endpoint', async () => {
    for (const [method, target] of [['post', '/sandbox/clients'], ['get', '/sandbox/clients'], ['get', '/sandbox/clients/demo-connector'], ['patch', '/sandbox/clients/demo-connector'], ['delete', '/sandbox/clients/demo-connector']] as const) {
      expectProblem(await request(bank.app)[method](target), 401, 'auth_missing');
      expectProblem(await request(bank.app)[method](target).set('authorization', 'Bearer wrong'), 401, 'auth_invalid');
    }
    expect((await sandbox(bank, ADMIN_TOKEN).post('/sandbox/clients', {})).status).toBe(201);
    expect((await sandbox(bank, ADMIN_TOKEN).get('/sandbox/clients/demo-connector')).status).toBe(200);
  });

  it('refuses an http:// jwks_uri outside relaxed mode, as callbacks are', async () => {
    const problem = expectProblem(await sandbox(bank, ADMIN_TOKEN).post('/sandbox/clients', { jwks_uri: 'http://127.0.0.1:9/jwks.json' }), 400, 'body_invalid');
    expect(problem.errors).toEqual([{ path: '/jwks_uri', message: expect.stringContaining('https://') }]);
  });
});

describe('GET, PATCH and DELETE /sandbox/clients', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
  });
  afterAll(() => bank.close());

  it('lists the clients in force, newest first, a page at a time, never with a secret', async () => {
    const first = await registerClient(bank, { client_id: 'list-a', auth_methods: ['bearer', 'api_key'], connector: { url: 'http://localhost:1', token_url: 'http://localhost:1/token', token_client_id: 'bank', token_client_secret: 'connector-secret-xyz' } });
    const second = await registerClient(bank, { client_id: 'list-b' });
    const all = await sandbox(bank).get('/sandbox/clients');
    expect(all.status).toBe(200);
    expectSchema('client-list', all.body);
    const ids = (all.body.data as { client_id: string }[]).map((client) => client.client_id);
    expect(ids).toEqual(expect.arrayContaining(['demo-connector', 'list-a', 'list-b']));
    expect(ids.indexOf('list-b')).toBeLessThan(ids.indexOf('demo-connector'));
    expect(all.body.next_cursor).toBeNull();
    expectNoSecret(all.text, [first.client_secret, first.api_key as string, second.client_secret, 'connector-secret-xyz']);
    const listA = (all.body.data as Record<string, unknown>[]).find((client) => client.client_id === 'list-a');
    expect(listA).toMatchObject({ api_key_set: true, connector: { token_url: 'http://localhost:1/token', token_client_id: 'bank', token_client_secret_set: true, token_set: false } });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: request.Response = await sandbox(bank).get(`/sandbox/clients?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.data).toHaveLength(1);
      seen.push(page.body.data[0].client_id);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
  });

  it('answers 400 query_invalid for a bad limit, cursor or parameter', async () => {
    for (const query of ['limit=0', 'limit=abc', 'cursor=nonsense', 'status=active']) expectProblem(await sandbox(bank).get(`/sandbox/clients?${query}`), 400, 'query_invalid');
  });

  it('shows a file client without its hashes', async () => {
    const answer = await sandbox(bank).get('/sandbox/clients/demo-connector');
    expect(answer.status).toBe(200);
    expectSchema('client', answer.body);
    expect(answer.body).toMatchObject({ client_id: 'demo-connector', source: 'file', changed_at_runtime: false, api_key_set: true, jwks_uri: null });
    expectNoSecret(answer.text);
  });

  it('answers 404 not_found for an unknown id on GET, PATCH and DELETE', async () => {
    expectProblem(await sandbox(bank).get('/sandbox/clients/nobody'), 404, 'not_found');
    expectProblem(await sandbox(bank).patch('/sandbox/clients/nobody', { name: 'x' }), 404, 'not_found');
    expectProblem(await sandbox(bank).patch('/sandbox/clients/nobody', { unknown: 1 }), 404, 'not_found');
    expectProblem(await sandbox(bank).delete('/sandbox/clients/nobody'), 404, 'not_found');
  });

  it('changes name, auth methods and keys at once', async () => {
    const created = await registerClient(bank, { client_id: 'patched', auth_methods: ['bearer', 'dpop', 'api_key'] });
    const signer: Signer = { clientId: 'patched', jwk: created.private_jwk!, token: await tokenFor(bank, 'patched', created.client_secret) };
    expect((await createAs(bank, signer)).status).toBe(200);

    const renamed = await sandbox(bank).patch('/sandbox/clients/patched', { name: 'Renamed', auth_methods: ['dpop'] });
    expect(renamed.status).toBe(200);
    expectSchema('client', renamed.body);
    expect(renamed.body).toMatchObject({ name: 'Renamed', auth_methods: ['dpop'] });
    // Bearer is no longer allowed for this client: the token endpoint refuses at once.
    const token = await request(bank.app).post('/oauth/token').auth('patched', created.client_secret).type('form').send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(400);
    expect(token.body.error).toBe('unauthorized_client');

    // New keys: the old key no longer verifies.
    await sandbox(bank).patch('/sandbox/clients/patched', { auth_methods: ['bearer'] });
    const other = await registerClient(bank);
    const { d: _private, ...otherPublic } = other.private_jwk as Record<string, unknown>;
    expect((await sandbox(bank).patch('/sandbox/clients/patched', { jwks: { keys: [otherPublic] } })).status).toBe(200);
    const refused = await createAs(bank, signer);
    expect(expectProblem(refused, 401, 'signature_invalid').reason).toBe('kid_unknown');
    expect((await createAs(bank, { ...signer, jwk: other.private_jwk! })).status).toBe(200);
  });

  it('refuses bad patches with 400 body_invalid', async () => {
    await registerClient(bank, { client_id: 'bad-patches' });
    for (const [body, errorPath] of [
      [{ client_secret: 'mine' }, '/client_secret'],
      [{ name: 5 }, '/name'],
      [{ auth_methods: [] }, '/auth_methods'],
      [{ auth_methods: ['api_key'] }, '/auth_methods'],
      [{ connector: { poll: false } }, '/connector/url'],
      [{ connector: { url: 'http://localhost:1', bogus: 1 } }, '/connector/bogus'],
      [{ jwks: { keys: [] } }, '/jwks/keys'],
    ] as const) {
      const problem = expectProblem(await sandbox(bank).patch('/sandbox/clients/bad-patches', body), 400, 'body_invalid');
      expect([body, problem.errors?.map((error) => error.path)]).toEqual([body, expect.arrayContaining([errorPath])]);
    }
  });

  it('deletes a client: its credentials stop working, its orders stay', async () => {
    const created = await registerClient(bank, { client_id: 'leaving', connector: { url: 'http://localhost:1' } });
    const signer: Signer = { clientId: 'leaving', jwk: created.private_jwk!, token: await tokenFor(bank, 'leaving', created.client_secret) };
    expect((await createAs(bank, signer)).status).toBe(200);
    const deleted = await sandbox(bank).delete('/sandbox/clients/leaving');
    expect(deleted.status).toBe(200);
    expectSchema('client-deleted', deleted.body);
    expect(deleted.body).toEqual({ client_id: 'leaving', removed: { registration: true, connector: true }, orders_kept: 1 });
    expect(bank.outbound.connectors.has('leaving')).toBe(false);
    expectProblem(await sandbox(bank).get('/sandbox/clients/leaving'), 404, 'not_found');
    expectProblem(await createAs(bank, signer), 401, 'client_unknown');
    const token = await request(bank.app).post('/oauth/token').auth('leaving', created.client_secret).type('form').send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(401);
    expect(bank.db.prepare("SELECT COUNT(*) FROM orders WHERE client_id = 'leaving'").pluck().get()).toBe(1);
    // The id is free again.
    expect((await sandbox(bank).post('/sandbox/clients', { client_id: 'leaving' })).status).toBe(201);
  });

  it("takes the client's test clock and pause with it: its orders settle on the Bank's clock, its id comes back unpaused", async () => {
    const created = await registerClient(bank, { client_id: 'clocked-leaver', connector: { url: 'http://localhost:1' } });
    const signer: Signer = { clientId: 'clocked-leaver', jwk: created.private_jwk!, token: await tokenFor(bank, 'clocked-leaver', created.client_secret) };
    expect((await sandbox(bank).post('/sandbox/clients/clocked-leaver/clock', { frozen_at: '2026-11-22T12:00:00Z' })).status).toBeLessThan(300);
    expect((await sandbox(bank).post('/sandbox/clients/clocked-leaver/pause')).status).toBeLessThan(300);
    const order = sampleOrder({}, '42.03'); // PENDING, SUCCESS 5 s later on the client's clock: long due on the Bank's
    expect((await createAs(bank, signer, order)).body.status).toBe('PENDING');
    const statusOf = () => bank.db.prepare('SELECT status FROM orders WHERE client_id = ? AND reference = ?').pluck().get('clocked-leaver', order.reference);
    const rowsOf = (table: string) => bank.db.prepare(`SELECT COUNT(*) FROM ${table} WHERE client_id = 'clocked-leaver'`).pluck().get();
    bank.book.settleAllDue();
    expect(statusOf()).toBe('PENDING');

    expect((await sandbox(bank).delete('/sandbox/clients/clocked-leaver')).status).toBe(200);
    expect([rowsOf('test_clocks'), rowsOf('client_pauses')]).toEqual([0, 0]);
    expect(bank.clocks.isClocked('clocked-leaver')).toBe(false);
    bank.book.settleAllDue();
    expect(statusOf()).toBe('SUCCESS');

    await registerClient(bank, { client_id: 'clocked-leaver', connector: { url: 'http://localhost:1' } });
    expect(bank.outbound.connectors.isPaused('clocked-leaver')).toBe(false);
    expectProblem(await sandbox(bank).get('/sandbox/clients/clocked-leaver/clock'), 404, 'not_found');
  });
});

describe('starting from nothing: register, then token, create and reverse polling over mTLS with the answer alone', () => {
  let bank: Bank;
  let server: https.Server;
  let port: number;
  const dataDir = tempDir();

  beforeAll(async () => {
    bank = await startBank({ dataDir, adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    bank.close();
  });

  it('works end to end', async () => {
    const created = await registerClient(bank, { auth_methods: ['bearer', 'dpop', 'api_key'] }, ADMIN_TOKEN);

    const token = await tokenFor(bank, created.client_id, created.client_secret);
    const signer: Signer = { clientId: created.client_id, jwk: created.private_jwk!, token };
    const order = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
    const answer = await createAs(bank, signer, order);
    expect(answer.status).toBe(202);

    // The Bank's HTTPS listener on the same dev PKI that issued the certificate (main.ts serves with it).
    const files = pkiFiles(path.join(dataDir, 'pki'));
    server = https.createServer({ cert: fs.readFileSync(files.serverCert), key: fs.readFileSync(files.serverKey), ca: fs.readFileSync(files.caCert), requestCert: true, rejectUnauthorized: false }, bank.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const target = `/payment-orders/${order.reference as string}/status`;
    const polled = await wireRequest(`https://localhost:${port}${target}`, {
      headers: statusHeadersAs(bank, signer, target),
      ca: Buffer.from(created.ca_pem as string),
      cert: Buffer.from(created.certificate_pem as string),
      key: Buffer.from(created.certificate_key_pem as string),
    });
    expect([polled.status, polled.json?.status]).toEqual([200, 'PENDING']);

    // The API key works for reverse polling too; without the certificate it is 403 mtls_required.
    const withKey = { ...statusHeadersAs(bank, signer, target), authorization: `X-API-Key ${created.api_key as string}` };
    const byKey = await wireRequest(`https://localhost:${port}${target}`, { headers: withKey, ca: Buffer.from(created.ca_pem as string), cert: Buffer.from(created.certificate_pem as string), key: Buffer.from(created.certificate_key_pem as string) });
    expect(byKey.status).toBe(200);
    const noCert = await wireRequest(`https://localhost:${port}${target}`, { headers: statusHeadersAs(bank, signer, target), ca: Buffer.from(created.ca_pem as string) });
    expect([noCert.status, noCert.json?.code]).toEqual([403, 'mtls_required']);
  });
});

describe('persistence across a restart', () => {
  const clock = new ManualClock();
  const dataDir = tempDir();
  const clientsFile = path.join(tempDir(), 'clients.json');
  const original = fs.readFileSync(path.join(ROOT, 'fixtures/clients.json'), 'utf8');
  const start = () => startBank({ dataDir, clientsFile, sandboxMode: 'relaxed' }, { clock });
  let bank: Bank;

  beforeAll(() => fs.writeFileSync(clientsFile, original));
  afterEach(() => bank?.close());

  it('keeps registrations, changes of file clients and deletions; the file wins again once its entry changes', async () => {
    bank = await start();
    const created = await registerClient(bank, { client_id: 'persistent', connector: { url: 'http://localhost:7777' } });
    await registerClient(bank, { client_id: 'short-lived' });
    expect((await sandbox(bank).patch('/sandbox/clients/demo-connector', { name: 'Demo, renamed at run time' })).status).toBe(200);
    expect((await sandbox(bank).delete('/sandbox/clients/short-lived')).status).toBe(200);
    bank.close();
    clock.advance(1_000);

    bank = await start();
    const persistent = await sandbox(bank).get('/sandbox/clients/persistent');
    expect(persistent.body).toMatchObject({ source: 'runtime', connector: { url: 'http://localhost:7777' } });
    expect(bank.outbound.connectors.get('persistent')?.settings.baseUrl).toBe('http://localhost:7777');
    const signer: Signer = { clientId: 'persistent', jwk: created.private_jwk!, token: await tokenFor(bank, 'persistent', created.client_secret) };
    expect((await createAs(bank, signer)).status).toBe(200);
    expect((await sandbox(bank).get('/sandbox/clients/demo-connector')).body).toMatchObject({ name: 'Demo, renamed at run time', source: 'file', changed_at_runtime: true });
    expectProblem(await sandbox(bank).get('/sandbox/clients/short-lived'), 404, 'not_found');
    // The demo client still works with its file credentials.
    expect((await new DemoClient(bank).create(sampleOrder())).status).toBe(200);
    bank.close();

    // The file's entry for demo-connector changes: the file wins, the runtime change is dropped.
    const edited = JSON.parse(original) as { clients: Record<string, unknown>[] };
    edited.clients[0].name = 'Demo, renamed in the file';
    fs.writeFileSync(clientsFile, JSON.stringify(edited, null, 2));
    bank = await start();
    expect((await sandbox(bank).get('/sandbox/clients/demo-connector')).body).toMatchObject({ name: 'Demo, renamed in the file', changed_at_runtime: false });
    expect((await sandbox(bank).get('/sandbox/clients/persistent')).status).toBe(200);
  });

  it('keeps a file client deleted at run time deleted while the file is unchanged', async () => {
    bank = await start();
    expect((await sandbox(bank).delete('/sandbox/clients/demo-connector')).status).toBe(200);
    bank.close();
    bank = await start();
    expectProblem(await sandbox(bank).get('/sandbox/clients/demo-connector'), 404, 'not_found');
    expect((await new DemoClient(bank).create(sampleOrder()).catch((error: Error) => ({ status: error.message }))).status).toEqual(expect.stringContaining('401'));
    bank.close();
    fs.writeFileSync(clientsFile, original);
    bank = await start();
    expect((await sandbox(bank).get('/sandbox/clients/demo-connector')).status).toBe(200);
  });
});

describe('PATCH of the Connector takes effect for pulls and callbacks', () => {
  let bank: Bank;
  let first: FakeConnector;
  const second = new FakeConnector();

  beforeAll(async () => {
    ({ bank, fake: first } = await bankWithFakeConnector());
    await second.start();
    second.setJwks((await request(bank.app).get('/.well-known/jwks.json')).body);
  });
  afterAll(async () => {
    bank.close();
    await first.stop();
    await second.stop();
  });

  it('sends the next callback to the patched URL', async () => {
    const demo = new DemoClient(bank);
    const finals = (fake: FakeConnector, reference: unknown) => fake.statusesOf(reference as string).filter((status) => status !== 'PENDING');
    // A pushed order is reported by callback when it settles after the answer (ASYNC), not when the answer says it.
    const before = sampleOrder({ metadata: { sandbox_scenario: 'ASYNC:0:SUCCESS' } });
    expect((await demo.create(before)).status).toBe(202);
    await drain(bank);
    expect(finals(first, before.reference)).toEqual(['SUCCESS']);

    // A change that leaves the Connector alone keeps the URL CONNECTOR_URL gave it.
    const renamed = await sandbox(bank).patch('/sandbox/clients/demo-connector', { name: 'Demo' });
    expect(renamed.body).toMatchObject({ changed_at_runtime: true, connector: { url: first.url } });
    expect(bank.outbound.connectors.get('demo-connector')?.settings.baseUrl).toBe(first.url);

    const patched = await sandbox(bank).patch('/sandbox/clients/demo-connector', { connector: { url: second.url, callback_mode: 'unit' } });
    expect(patched.status).toBe(200);
    expect(patched.body.connector).toMatchObject({ url: second.url, callback_mode: 'unit' });
    const after = sampleOrder({ metadata: { sandbox_scenario: 'ASYNC:0:SUCCESS' } });
    expect((await demo.create(after)).status).toBe(202);
    await drain(bank);
    expect(finals(second, after.reference)).toEqual(['SUCCESS']);
    expect(first.statusesOf(after.reference as string)).toEqual([]);
    expect(second.callbacks.every((callback) => callback.signatureOk)).toBe(true);
  });

  it('pulls from and calls back a Connector registered at run time, and stops once it is removed', async () => {
    const created = await registerClient(bank, { client_id: 'pulled', connector: { url: second.url, callback_mode: 'unit' } });
    second.orders.push(connectorOrder('PULLED-AT-RUN-TIME', '2026-11-22T09:00:00Z'));
    await bank.outbound.poller.runCycle();
    await drain(bank);
    await waitFor(() => second.statusesOf('PULLED-AT-RUN-TIME').length > 0, 10_000, 'the pulled order callback');
    expect(second.pulls.some((pull) => pull.signatureOk)).toBe(true);

    const signer: Signer = { clientId: 'pulled', jwk: created.private_jwk!, token: await tokenFor(bank, 'pulled', created.client_secret) };
    expect((await sandbox(bank).patch('/sandbox/clients/pulled', { connector: null })).body.connector).toBeNull();
    expect(bank.outbound.connectors.has('pulled')).toBe(false);
    const quiet = sampleOrder({ metadata: { sandbox_scenario: 'ASYNC:0:SUCCESS' } });
    expect((await createAs(bank, signer, quiet)).status).toBe(202);
    await drain(bank);
    expect(second.statusesOf(quiet.reference as string)).toEqual([]);
  });
});
