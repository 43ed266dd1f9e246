// Item 6: reverse polling over the Bank's own HTTPS listener (the built Bank as a child process, strict mode,
// its dev PKI) from scripts/mtls-poll.mjs: with the demo-connector client certificate in a node:https Agent,
// and without one (profile section 4).
import path from 'node:path';
import { pkiFiles } from '../../src/bank/security/pki';
import { sampleOrder, tempDir } from '../helpers/bank';
import { ChildBank, kill, startChildBank } from '../helpers/child-bank';
import { Captured, connectorEnv, expectResult, INTEROP_TIMEOUT_MS, Outcome, runScript } from './interop';

interface MtlsResult {
  create: Outcome<Captured>;
  with_certificate: Outcome<Captured>;
  without_certificate: Outcome<Captured>;
}

describe('reverse polling over mTLS with a node:https Agent', () => {
  const dataDir = tempDir('sandbox-bank-interop-mtls-');
  const files = pkiFiles(path.join(dataDir, 'pki'));
  const order = sampleOrder({ metadata: { sandbox_scenario: 'NO_CALLBACK' } });
  let bank: ChildBank;
  let result: MtlsResult;

  beforeAll(async () => {
    bank = await startChildBank({ DATA_DIR: dataDir, POLL_CRON: 'off' });
    const listening = JSON.parse(bank.logs.find((line) => line.includes('"sandbox bank listening"')) as string) as { https: string };
    result = await runScript<MtlsResult>('mtls-poll.mjs', {
      ...connectorEnv(listening.https),
      ORDER: JSON.stringify(order),
      CA_FILE: files.caCert,
      CLIENT_CERT_FILE: files.clientCert('demo-connector'),
      CLIENT_KEY_FILE: files.clientKey('demo-connector'),
      // How a Node Connector trusts the sandbox CA for fetch (oauth4webapi, create) without any insecure option.
      NODE_EXTRA_CA_CERTS: files.caCert,
    });
  }, INTEROP_TIMEOUT_MS);
  afterAll(async () => {
    await kill(bank, 'SIGTERM');
  });

  it('token and create work over HTTPS without a client certificate: 202 for a NO_CALLBACK order', () => {
    // Profile section 4: mTLS is required for reverse polling only; contract 4.1.1: 202 with Content-Length 0.
    expectResult(result.create, { ok: true, status: 202, text: '' });
  });

  it('with the dev PKI certificate of demo-connector, reverse polling answers the order status', () => {
    // Contract 5 (reverse polling: mTLS mandatory); profile section 4: a sandbox-CA certificate whose CN is X-Client-Id.
    expectResult(result.with_certificate, { ok: true, status: 200, json: { reference: order.reference, status: 'PENDING' } });
  });

  it('without a certificate the call is refused: 403 mtls_required (or a failed TLS handshake)', () => {
    // Profile sections 4 and 5: 403 mtls_required; a listener that requires the certificate in the handshake
    // (RFC 8446 section 4.4.2.4: the server MAY abort without one) would refuse it at the TLS level instead.
    const refused = result.without_certificate;
    if (refused.ok) expectResult(refused, { status: 403, headers: { 'content-type': expect.stringContaining('application/problem+json') }, json: { code: 'mtls_required' } });
    else expect(refused.error.code).toMatch(/^(ERR_SSL_|EPROTO$|ECONNRESET$)/);
  });
});
