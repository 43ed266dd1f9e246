// With CONNECTOR_TLS_CERT/KEY/CA the reference Connector serves HTTPS and requires the Bank's client
// certificate (callbacks are mTLS, profile section 4), and presents its own certificate when it reverse-polls
// the Bank's mTLS listener. The Bank runs in STRICT mode here: nothing goes over plain HTTP except token,
// create and JWKS. Needs the openssl CLI (test/helpers/pki.ts); skipped without it.
import fs from 'node:fs';
import https from 'node:https';
import net, { AddressInfo } from 'node:net';
import path from 'node:path';
import { ManualClock } from '../../src/wire/clock';
import { ReferenceConnector } from '../../src/connector/connector';
import { Bank } from '../../src/bank/bank';
import { sampleOrder, startBank, tempDir } from '../helpers/bank';
import { drain } from '../helpers/outbound';
import { createCa, httpsRequest, MtlsListener, opensslAvailable, Pem, TestCa } from '../helpers/pki';
import { bankSignedHeaders, lateBoundServer, startConnector } from './helpers';

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const describeTls = opensslAvailable() ? describe : describe.skip;

describeTls('the reference Connector over mutual TLS', () => {
  const clock = new ManualClock(Date.now());
  let ca: TestCa;
  let bankClientCert: Pem;
  let bank: Bank;
  let connector: ReferenceConnector;
  let bankMtls: MtlsListener;
  let bankHttp: Awaited<ReturnType<typeof lateBoundServer>>;
  let connectorPort: number;

  beforeAll(async () => {
    ca = createCa();
    bankClientCert = ca.issue('sandbox-bank');
    const connectorCert = ca.issue('demo-connector');
    const dir = tempDir('reference-connector-tls-');
    const file = (name: string, content: string) => {
      fs.writeFileSync(path.join(dir, name), content);
      return path.join(dir, name);
    };
    // Each side needs the other's URL: the Bank's plain listener is bound late and the port of its mTLS
    // listener (the Connector's BANK_STATUS_URL) is reserved before the Bank exists.
    bankHttp = await lateBoundServer();
    const statusPort = await freePort();
    connector = await startConnector(
      bankHttp.url,
      {
        CONNECTOR_TLS_CERT: file('connector.crt', connectorCert.cert),
        CONNECTOR_TLS_KEY: file('connector.key', connectorCert.key),
        CONNECTOR_TLS_CA: file('ca.crt', ca.cert),
        BANK_STATUS_URL: `https://127.0.0.1:${statusPort}`,
        POLL_INITIAL_MS: '1000',
      },
      clock,
    );
    connectorPort = Number(new URL(connector.url).port);
    bank = await startBank(
      { sandboxMode: 'strict', connectorUrl: connector.url, connectorToken: 'demo-pull-token', pollCron: 'off', retryScheduleS: [3600], batchWindowMs: 0 },
      { clock, connectorTls: { ca: Buffer.from(ca.cert), cert: Buffer.from(bankClientCert.cert), key: Buffer.from(bankClientCert.key) } },
    );
    bankHttp.bind(bank.app);
    bankMtls = await listenMtlsOn(bank, ca, statusPort);
  });

  async function listenMtlsOn(target: Bank, authority: TestCa, port: number): Promise<MtlsListener> {
    const server = authority.issue('localhost');
    const listener = https.createServer({ key: server.key, cert: server.cert, ca: authority.cert, requestCert: true, rejectUnauthorized: false }, target.app);
    await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
    return {
      port,
      close: () =>
        new Promise<void>((resolve) => {
          listener.closeAllConnections();
          listener.close(() => resolve());
        }),
    };
  }

  afterAll(async () => {
    await connector?.close();
    await bank?.outbound.stop(100);
    bank?.close();
    await bankMtls?.close();
    bankHttp?.server.closeAllConnections();
    await new Promise((resolve) => bankHttp?.server.close(resolve));
  });

  it('serves HTTPS', () => {
    expect(connector.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('the Bank pulls and calls back over mTLS with its client certificate', async () => {
    const [report] = await bank.outbound.poller.runCycle();
    expect(report).toMatchObject({ outcome: 'ok', accepted: 12 });
    await drain(bank);
    expect(connector.store.order('CONN-0001')?.status).toBe('SUCCESS');
    expect(connector.store.order('CONN-0002')?.status).toBe('FAILED');
  });

  it('refuses a caller without a client certificate at the TLS handshake', async () => {
    await expect(httpsRequest(connectorPort, ca.cert, { method: 'GET', path: '/healthz', headers: {} })).rejects.toThrow();
  });

  it('answers 401 to a certificate issued to someone other than the Bank', async () => {
    const intruder = ca.issue('intruder');
    const target = '/payment-orders?status=READY&limit=1&offset=1970-01-01T00:00:00Z';
    const headers = { ...bankSignedHeaders(bank.signer, 'pull', 'GET', target, '', clock), authorization: 'Bearer demo-pull-token' };
    const response = await httpsRequest(connectorPort, ca.cert, { method: 'GET', path: target, headers, clientCert: intruder });
    expect(response.status).toBe(401);
    expect(response.json<{ code: string }>().code).toBe('auth_invalid');
    const ok = await httpsRequest(connectorPort, ca.cert, { method: 'GET', path: target, headers: { ...bankSignedHeaders(bank.signer, 'pull', 'GET', target, '', clock), authorization: 'Bearer demo-pull-token' }, clientCert: bankClientCert });
    expect(ok.status).toBe(204); // everything was pulled and settled above
  });

  it('reverse-polls the Bank over mTLS with its own client certificate', async () => {
    const order = sampleOrder({ metadata: { initiator: 'mtls-test', sandbox_scenario: 'NO_CALLBACK' } }) as { reference: string; initiated_at: string };
    expect(await connector.bankClient.createOrder(order)).toMatchObject({ httpStatus: 202, status: 'AWAITING' });
    clock.advance(1000);
    await connector.reversePoller.tick(); // also polls the pulled orders still PENDING from the scenarios above
    expect(connector.store.order(order.reference)?.status).toBe('PENDING');
    expect(connector.store.pollOf(order.reference)).toMatchObject({ attempts: 1, stopped_reason: null });
    expect(connector.store.snapshot().status_log.filter((entry) => entry.reference === order.reference).map((entry) => entry.via)).toEqual(['create', 'reverse-poll']);
  });
});
