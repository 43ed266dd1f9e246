// sandbox-bank token, request and sign against a Bank on a real port: a create with nothing but a client id, a
// secret and a key file; --print-base equal to the base the Bank computes; --dry-run as a curl that sends
// nothing; reverse polling over mTLS; and the exit codes of each.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { pkiFiles } from '../../src/bank/security/pki';
import { demo, sampleOrder, tempDir } from '../helpers/bank';
import { deadUrl, ROOT, runBin, runCli, tempFile } from './helpers';
import { ADMIN, ListeningBank, listeningBank } from './listening-bank';

const DEMO_CREDENTIALS = path.join(ROOT, 'fixtures/demo-connector/credentials.json');

let target: ListeningBank;
let dataDir: string;

beforeAll(async () => {
  dataDir = tempDir();
  target = await listeningBank({ dataDir });
});
afterAll(() => target.close());

const cli = (argv: string[]) => runCli(argv, target.env);

/** A client registered through the CLI, its answer saved into files. */
async function registered(clientId: string, extra: string[] = []): Promise<{ dir: string; credentials: string; keyFile: string; secret: string }> {
  const dir = tempDir('sandbox-bank-cli-client-');
  const run = await cli(['clients', 'create', '--client-id', clientId, '--save', dir, ...extra]);
  expect(run.code).toBe(0);
  const credentials = path.join(dir, `${clientId}.credentials.json`);
  const saved = JSON.parse(fs.readFileSync(credentials, 'utf8')) as { client_secret: string; private_jwk: unknown };
  const keyFile = path.join(dir, `${clientId}.jwk`);
  fs.writeFileSync(keyFile, JSON.stringify(saved.private_jwk));
  return { dir, credentials, keyFile, secret: saved.client_secret };
}

function storedOrder(clientId: string, reference: string) {
  return target.bank.db.prepare('SELECT status FROM orders WHERE client_id = ? AND reference = ?').get(clientId, reference) as { status: string } | undefined;
}

describe('sandbox-bank request', () => {
  it('creates an order with nothing but a client id, a secret and a key file (the real bin, as a child process)', async () => {
    const client = await registered('cli-only-keys');
    const order = sampleOrder();
    const run = await runBin(['request', 'POST', '/payment-orders', '--data', `@${tempFile('order.json', order)}`, '--client-id', 'cli-only-keys', '--client-secret', client.secret, '--key', client.keyFile], { SANDBOX_BANK_URL: target.url });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^HTTP 20[012]\n/);
    expect(JSON.parse(run.stdout.slice(run.stdout.indexOf('\n') + 1))).toMatchObject({ reference: order.reference });
    expect(storedOrder('cli-only-keys', order.reference as string)).toBeDefined();
  });

  it('takes a credentials file instead, and sends every signed header of a create', async () => {
    const order = sampleOrder();
    const run = await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(order), '--credentials', DEMO_CREDENTIALS, '--idempotency-key', 'cli-key-1', '--request-id', 'cli-request-1', '--json']);
    expect(run.code).toBe(0);
    expect(storedOrder('demo-connector', order.reference as string)).toBeDefined();
    const journal = await request(target.bank.app).get('/sandbox/journal').query({ client_id: 'demo-connector', path: '/payment-orders' }).set('authorization', `Bearer ${ADMIN}`);
    const entry = await request(target.bank.app).get(`/sandbox/journal/${journal.body.data[0].id}`).set('authorization', `Bearer ${ADMIN}`);
    const headers = entry.body.request.headers as Record<string, string>;
    expect(headers).toMatchObject({ 'x-client-id': 'demo-connector', 'x-request-id': 'cli-request-1', 'x-idempotency-key': 'cli-key-1', 'content-type': 'application/json' });
    for (const name of ['x-timestamp', 'x-nonce', 'content-digest', 'x-signature', 'authorization']) expect(headers[name]).toEqual(expect.any(String));
  });

  it('--print-base prints exactly the base the Bank computes (the Bank shows it when it refuses the signature)', async () => {
    // The demo client's kid with other key material: the Bank rebuilds the base and says the signature does not match.
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const wrongKey = tempFile('wrong.jwk', { ...other, kid: demo.private_jwk.kid, alg: 'ES256' });
    const run = await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(sampleOrder()), '--client-id', demo.client_id, '--client-secret', demo.client_secret, '--key', wrongKey, '--print-base', '--json']);
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout) as { status: number; body: { code: string; reason: string; signature_base: string } };
    expect([answer.status, answer.body.code, answer.body.reason]).toEqual([401, 'signature_invalid', 'signature_mismatch']);
    expect(run.stderr).toBe(`${answer.body.signature_base}\n`);
    expect(answer.body.signature_base.split('\n')).toHaveLength(8);
  });

  it('--print-base of an accepted create is the base of that request as the Bank received it (verify --journal)', async () => {
    const run = await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(sampleOrder()), '--credentials', DEMO_CREDENTIALS, '--request-id', 'cli-accepted-base', '--print-base']);
    expect(run.code).toBe(0);
    const baseFile = tempFile('base.txt', run.stderr);
    const journal = await request(target.bank.app).get('/sandbox/journal').query({ client_id: 'demo-connector', path: '/payment-orders' }).set('authorization', `Bearer ${ADMIN}`);
    const verified = await cli(['verify', '--journal', String(journal.body.data[0].id), '--expected-base', baseFile, '--json']);
    const report = JSON.parse(verified.stdout) as { verifies: boolean; signature_base: string; expected_base: { differences: unknown[] } };
    expect([verified.code, report.verifies, report.expected_base.differences]).toEqual([0, true, []]);
    expect(`${report.signature_base}\n`).toBe(run.stderr);
  });

  it('--dry-run prints a curl command and sends nothing; that command, with a token, creates the order', async () => {
    const order = sampleOrder();
    const run = await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(order), '--credentials', DEMO_CREDENTIALS, '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^curl -sS -X POST http:\/\/127\.0\.0\.1:\d+\/payment-orders \\\n/);
    expect(run.stdout).toContain('-H "Authorization: Bearer $TOKEN"');
    expect(storedOrder('demo-connector', order.reference as string)).toBeUndefined();
    const token = await cli(['token', '--credentials', DEMO_CREDENTIALS]);
    // Asynchronously: the Bank answering curl lives in this process.
    const { stdout: answer } = await promisify(execFile)('sh', ['-c', run.stdout], { env: { PATH: process.env.PATH, TOKEN: token.stdout.trim() }, encoding: 'utf8', timeout: 20_000 });
    expect(JSON.parse(answer)).toMatchObject({ reference: order.reference });
    expect(storedOrder('demo-connector', order.reference as string)).toBeDefined();
  });

  it('a refusal is exit 1 and shows the problem', async () => {
    const run = await cli(['request', 'POST', '/payment-orders', '--data', '{"reference":"incomplete"}', '--credentials', DEMO_CREDENTIALS]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^HTTP 400\n/);
    expect(run.stdout).toContain('"code": "body_invalid"');
  });

  it('a wrong secret (no token) is exit 2, an unreachable Bank is exit 2', async () => {
    const wrong = await cli(['request', 'POST', '/payment-orders', '--data', '{}', '--client-id', demo.client_id, '--client-secret', 'not-the-secret', '--key', DEMO_CREDENTIALS]);
    expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('no access token')]);
    const dead = await runCli(['request', 'POST', '/payment-orders', '--data', '{}', '--credentials', DEMO_CREDENTIALS, '--bank', await deadUrl()]);
    expect(dead.code).toBe(2);
  });

  it("a token refused is exit 2 with or without --dpop-key, in the token endpoint's own words", async () => {
    const order = JSON.stringify(sampleOrder());
    const dpopKey = tempFile('dpop.jwk', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }));
    // A client allowed DPoP-bound tokens only, asking for a Bearer one.
    const dpopOnly = await registered('cli-dpop-only', ['--auth-methods', 'dpop']);
    const bearer = await cli(['request', 'POST', '/payment-orders', '--data', order, '--credentials', dpopOnly.credentials]);
    expect(bearer.code).toBe(2);
    expect(bearer.stderr).toContain('no access token: token refused: 400 unauthorized_client: client cli-dpop-only must request a DPoP-bound token');
    expect(bearer.stderr).not.toContain('wrong secret');
    // A client allowed Bearer tokens only, asking for a DPoP-bound one.
    const bearerOnly = await registered('cli-bearer-only', ['--auth-methods', 'bearer']);
    const bound = await cli(['request', 'POST', '/payment-orders', '--data', order, '--credentials', bearerOnly.credentials, '--dpop-key', dpopKey]);
    expect(bound.code).toBe(2);
    expect(bound.stderr).toContain('no access token: token refused: 400 unauthorized_client: client cli-bearer-only is not allowed DPoP-bound tokens');
    // A wrong secret, on either path: invalid_client, and there the hint is true.
    for (const extra of [[], ['--dpop-key', dpopKey]]) {
      const wrong = await cli(['request', 'POST', '/payment-orders', '--data', order, '--credentials', DEMO_CREDENTIALS, '--client-secret', 'not-the-secret', ...extra]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('no access token: token refused: 401 invalid_client: unknown client or wrong client secret (check --client-id and --client-secret, or --credentials)');
    }
  });

  it('with --dpop-key: a DPoP-bound token and a proof with the request', async () => {
    const dpopKey = tempFile('dpop.jwk', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }));
    const order = sampleOrder();
    const run = await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(order), '--credentials', DEMO_CREDENTIALS, '--dpop-key', dpopKey]);
    expect(run.code).toBe(0);
    expect(storedOrder('demo-connector', order.reference as string)).toBeDefined();
  });
});

describe('sandbox-bank request over mTLS (reverse polling on the https listener)', () => {
  let server: https.Server;
  let port: number;
  let client: Awaited<ReturnType<typeof registered>>;

  beforeAll(async () => {
    // The registration issues the client's certificate from the dev PKI, which the https listener serves with.
    client = await registered('cli-poller', ['--auth-methods', 'bearer,api_key']);
    const files = pkiFiles(path.join(dataDir, 'pki'));
    server = https.createServer({ cert: fs.readFileSync(files.serverCert), key: fs.readFileSync(files.serverKey), ca: fs.readFileSync(files.caCert), requestCert: true, rejectUnauthorized: false }, target.bank.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('polls with the certificate, key and CA files from `clients create --save`; without a certificate: 403, exit 1', async () => {
    const order = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
    expect((await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(order), '--credentials', client.credentials])).code).toBe(0);
    const bank = `https://localhost:${port}`;
    const tls = ['--cert', path.join(client.dir, 'cli-poller.crt'), '--key-pem', path.join(client.dir, 'cli-poller.key'), '--ca', path.join(client.dir, 'sandbox-ca.crt')];
    const target = `/payment-orders/${order.reference as string}/status`;
    const polled = await cli(['request', 'GET', target, '--credentials', client.credentials, '--bank', bank, ...tls, '--json']);
    expect(polled.code).toBe(0);
    expect(JSON.parse(polled.stdout)).toMatchObject({ status: 200, body: { reference: order.reference } });
    const saved = JSON.parse(fs.readFileSync(client.credentials, 'utf8')) as { api_key: string };
    const byKey = await cli(['request', 'GET', target, '--credentials', client.credentials, '--api-key', saved.api_key, '--bank', bank, ...tls]);
    expect(byKey.code).toBe(0);
    const noCertificate = await cli(['request', 'GET', target, '--credentials', client.credentials, '--bank', bank, '--ca', path.join(client.dir, 'sandbox-ca.crt')]);
    expect([noCertificate.code, noCertificate.stdout]).toEqual([1, expect.stringContaining('"code": "mtls_required"')]);
  });
});

describe('sandbox-bank token', () => {
  it('prints the access token; --json the whole answer; --dpop-key a DPoP-bound one', async () => {
    const plain = await cli(['token', '--client-id', demo.client_id, '--client-secret', demo.client_secret]);
    expect([plain.code, plain.stdout]).toEqual([0, expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+\n$/)]);
    const json = await cli(['token', '--credentials', DEMO_CREDENTIALS, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });
    const dpopKey = tempFile('dpop.jwk', generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }));
    const bound = await cli(['token', '--credentials', DEMO_CREDENTIALS, '--dpop-key', dpopKey, '--json']);
    expect([bound.code, JSON.parse(bound.stdout).token_type]).toEqual([0, 'DPoP']);
  });

  it('an unknown client or a wrong secret is exit 2; an unreachable Bank is exit 2', async () => {
    const unknown = await cli(['token', '--client-id', 'nobody', '--client-secret', 'x']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('token refused: 401')]);
    expect((await runCli(['token', '--credentials', DEMO_CREDENTIALS, '--bank', await deadUrl()])).code).toBe(2);
  });

  it('a secret that starts with a dash is still the secret (one generated secret in 64 does)', async () => {
    const dashed = await cli(['token', '--client-id', 'nobody', '--client-secret', '-x']);
    expect([dashed.code, dashed.stderr]).toEqual([2, expect.stringContaining('token refused: 401')]);
  });
});

describe('sandbox-bank sign', () => {
  it('headers for curl -H @-: the Bank accepts them as they are', async () => {
    const order = sampleOrder();
    const body = JSON.stringify(order);
    const run = await cli(['sign', 'POST', '/payment-orders', '--data', body, '--credentials', DEMO_CREDENTIALS]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(':')[0])).toEqual(['X-Client-Id', 'X-Timestamp', 'X-Nonce', 'X-Request-Id', 'X-Idempotency-Key', 'Content-Digest', 'X-Signature', 'Content-Type']);
    const token = (await cli(['token', '--credentials', DEMO_CREDENTIALS])).stdout.trim();
    const test = request(target.bank.app).post('/payment-orders').set('authorization', `Bearer ${token}`);
    for (const line of lines) test.set(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2));
    const answer = await test.send(body);
    expect(answer.status).toBeLessThan(300);
  });

  it('--format json gives the headers and the base; --format curl a command; --print-base the base on stderr', async () => {
    const json = await cli(['sign', 'GET', '/payment-orders/ORDER-1/status', '--credentials', DEMO_CREDENTIALS, '--format', 'json', '--print-base']);
    const signed = JSON.parse(json.stdout) as { flow: string; target: string; headers: Record<string, string>; signature_base: string };
    expect([signed.flow, signed.target]).toEqual(['status', '/payment-orders/ORDER-1/status']);
    expect(Object.keys(signed.headers)).toEqual(['x-client-id', 'x-timestamp', 'x-nonce', 'x-signature']);
    expect(json.stderr).toBe(`${signed.signature_base}\n`);
    expect(signed.signature_base.split('\n')[0]).toBe('@method: GET');
    const curl = await cli(['sign', 'POST', '/payment-order-callbacks', '--client-id', 'sandbox-bank', '--key', DEMO_CREDENTIALS, '--data', '{}', '--format', 'curl']);
    expect(curl.stdout).toMatch(/^curl -sS -X POST http:\/\/127\.0\.0\.1:\d+\/payment-order-callbacks/);
    expect(curl.stdout).toContain("-H 'X-Idempotency-Key: ");
    expect(curl.stdout).not.toContain('X-Request-Id');
  });
});
