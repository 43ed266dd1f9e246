// Reverse polling over real TLS sockets against the Bank as a child process, on its dev PKI.
import fs from 'node:fs';
import path from 'node:path';
import { ensureDevPki, issueOneClientCertificate, pkiFiles } from '../../src/bank/security/pki';
import { ChildBank, kill, startChildBank } from '../helpers/child-bank';
import { demo, isoNow, newNonce, sampleOrder, signedCreateHeaders, signRequest, tempDir } from '../helpers/bank';
import { wireRequest } from '../helpers/https-request';

describe('mTLS on reverse polling (child process, real TLS)', () => {
  const dataDir = tempDir('sandbox-bank-e2e-mtls-');
  const files = pkiFiles(path.join(dataDir, 'pki'));
  let bank: ChildBank;
  let httpsUrl: string;
  let reference: string;

  const read = (file: string) => fs.readFileSync(file);

  function statusHeaders(target: string, clientId = demo.client_id): Record<string, string> {
    const headers: Record<string, string> = { 'x-client-id': clientId, 'x-timestamp': isoNow(), 'x-nonce': newNonce() };
    headers['x-signature'] = signRequest('status', 'GET', target, headers, '');
    headers.authorization = `X-API-Key ${demo.api_key}`;
    return headers;
  }

  async function status(options: { cert?: string; key?: string; ca?: Buffer; base?: string } = {}) {
    const target = `/payment-orders/${reference}/status`;
    return wireRequest(`${options.base ?? httpsUrl}${target}`, {
      headers: statusHeaders(target),
      ca: options.ca ?? read(files.caCert),
      cert: options.cert ? read(options.cert) : undefined,
      key: options.key ? read(options.key) : undefined,
    });
  }

  beforeAll(async () => {
    bank = await startChildBank({ DATA_DIR: dataDir, POLL_CRON: 'off' });
    const listening = bank.logs.find((line) => line.includes('"sandbox bank listening"')) as string;
    httpsUrl = (JSON.parse(listening) as { https: string }).https;
    const token = await wireRequest(`${bank.httpUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    const order = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
    reference = order.reference as string;
    const body = JSON.stringify(order);
    const headers = signedCreateHeaders(body, token.json?.access_token as string);
    // Create over HTTPS without a client certificate: mTLS is required for reverse polling only.
    const created = await wireRequest(`${httpsUrl}/payment-orders`, { method: 'POST', headers, body, ca: read(files.caCert) });
    expect(created.status).toBe(202);
  });
  afterAll(async () => {
    await kill(bank, 'SIGTERM');
  });

  it('prints where the PKI is and a curl command for reverse polling', () => {
    const announcement = bank.logs.find((line) => line.includes('"dev PKI ready"')) as string;
    const parsed = JSON.parse(announcement) as { reverse_polling_curl: string; ca: string };
    expect(parsed.ca).toBe(files.caCert);
    expect(parsed.reverse_polling_curl).toContain(`--cert ${files.clientCert('demo-connector')}`);
    for (const file of [files.caCert, files.serverCert, files.bankClientCert, files.clientCert('demo-connector')]) expect(fs.existsSync(file)).toBe(true);
  });

  it('answers reverse polling over mTLS with the demo client certificate', async () => {
    const answer = await status({ cert: files.clientCert('demo-connector'), key: files.clientKey('demo-connector') });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ reference, status: 'PENDING' });
  });

  it('refuses the same call without a certificate: 403 mtls_required', async () => {
    const answer = await status();
    expect(answer.status).toBe(403);
    expect(answer.headers['content-type']).toContain('application/problem+json');
    expect(answer.json?.code).toBe('mtls_required');
  });

  it('refuses a client certificate from another CA', async () => {
    const other = await ensureDevPki({ dir: tempDir('other-ca-'), bankClientId: 'x', clientIds: ['demo-connector'], serverNames: [] });
    const answer = await status({ cert: other.files.clientCert('demo-connector'), key: other.files.clientKey('demo-connector') });
    expect(answer.status).toBe(403);
    expect(answer.json?.code).toBe('mtls_required');
  });

  it('refuses a certificate whose CN is not X-Client-Id: 401 auth_invalid', async () => {
    const intruder = await issueOneClientCertificate(files.dir, 'intruder');
    const answer = await status({ cert: intruder.cert, key: intruder.key });
    expect(answer.status).toBe(401);
    expect(answer.json?.code).toBe('auth_invalid');
    expect(answer.json?.reason).toBe('certificate_client_mismatch');
    expect(String(answer.json?.detail)).toContain('intruder');
  });

  it('refuses reverse polling over plain HTTP in strict mode', async () => {
    const answer = await status({ base: bank.httpUrl });
    expect(answer.status).toBe(403);
    expect(answer.json?.code).toBe('mtls_required');
  });

  it('keeps the PKI on restart: no file is rewritten', async () => {
    const before = fs.readFileSync(files.caCert, 'utf8');
    await kill(bank, 'SIGTERM');
    bank = await startChildBank({ DATA_DIR: dataDir, POLL_CRON: 'off' });
    const listening = bank.logs.find((line) => line.includes('"sandbox bank listening"')) as string;
    httpsUrl = (JSON.parse(listening) as { https: string }).https;
    const announcement = JSON.parse(bank.logs.find((line) => line.includes('"dev PKI ready"')) as string) as { created: string[] };
    expect(announcement.created).toEqual([]);
    expect(fs.readFileSync(files.caCert, 'utf8')).toBe(before);
    const answer = await status({ cert: files.clientCert('demo-connector'), key: files.clientKey('demo-connector') });
    expect(answer.status).toBe(200);
  });
});
