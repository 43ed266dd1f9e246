// Conformance over mutual TLS: the reference Connector serving HTTPS and requiring the Bank's client certificate
// passes the transport cases (no certificate, a certificate from another CA) and the signed cases alike.
// Needs the openssl CLI (test/helpers/pki.ts), like the other TLS tests.
import fs from 'node:fs';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { createCa, opensslAvailable } from '../helpers/pki';
import { tempDir } from '../helpers/bank';
import { notPassed, runConformance, RunPair, startRunPair } from './helpers';

jest.setTimeout(60_000);

const describeTls = opensslAvailable() ? describe : describe.skip;
if (!opensslAvailable()) console.warn('SKIPPED test/conformance/mtls.test.ts: the openssl CLI is missing');

describeTls('a conformance run against an https:// Connector with mutual TLS', () => {
  let pair: RunPair;
  let laxCert: { cert: string; key: string };

  beforeAll(async () => {
    const ca = createCa();
    const bankCert = ca.issue('sandbox-bank');
    const connectorCert = ca.issue('localhost');
    laxCert = ca.issue('localhost');
    const dir = tempDir('conformance-tls-');
    const file = (name: string, content: string) => {
      fs.writeFileSync(path.join(dir, name), content);
      return path.join(dir, name);
    };
    pair = await startRunPair(
      { CONNECTOR_TLS_CERT: file('connector.crt', connectorCert.cert), CONNECTOR_TLS_KEY: file('connector.key', connectorCert.key), CONNECTOR_TLS_CA: file('ca.crt', ca.cert) },
      {},
      { connectorTls: { ca: Buffer.from(ca.cert), cert: Buffer.from(bankCert.cert), key: Buffer.from(bankCert.key) } },
    );
  });
  afterAll(() => pair.close());

  it('passes the transport cases and the signed ones over TLS', async () => {
    expect(pair.connector.url).toMatch(/^https:/);
    const run = await runConformance(pair, { cases: ['transport.client_certificate_required', 'transport.foreign_ca_refused', 'pull.signed_request_accepted', 'unit.valid_callback_accepted', 'batch.valid_batch_accepted'] });
    expect(notPassed(run)).toEqual([]);
    const transport = run.results.filter((result) => result.group === 'transport');
    expect(transport.map((result) => result.exchanges[0].misbehaviour)).toEqual(['no client certificate presented', 'client certificate CN=sandbox-bank issued by an untrusted CA']);
  });

  it('fails both transport cases against a TLS server that serves anyone', async () => {
    const lax = https.createServer({ key: laxCert.key, cert: laxCert.cert }, (_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => lax.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://localhost:${(lax.address() as AddressInfo).port}`;
      await request(pair.bank.app).post('/sandbox/clients').send({ client_id: 'lax-connector', connector: { url, token: 'demo-pull-token' } }).expect(201);
      const started = await request(pair.bank.app).post('/sandbox/conformance-runs').send({ client_id: 'lax-connector', cases: ['transport.client_certificate_required', 'transport.foreign_ca_refused'] }).expect(202);
      const run = await pair.bank.conformance.finished(started.body.id);
      expect(run?.results.map((result) => [result.id, result.verdict, result.seen])).toEqual([
        ['transport.client_certificate_required', 'FAILED', 'the pull was answered 204'],
        ['transport.foreign_ca_refused', 'FAILED', 'the pull was answered 204'],
      ]);
    } finally {
      lax.closeAllConnections();
      await new Promise((resolve) => lax.close(resolve));
    }
  });
});
