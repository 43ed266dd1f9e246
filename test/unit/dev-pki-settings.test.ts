// The dev PKI follows TLS_SERVER_NAMES and BANK_CLIENT_ID on an existing data dir (docs/operations.md, "The
// development PKI"): a changed setting reissues the one Bank certificate it concerns, from the existing CA and with
// its existing key, and nothing else; a start with the same settings writes nothing. Then a real handshake: the
// server certificate passes the hostname check for the new names, and the client certificate's CN is what the
// reference Connector compares with its BANK_CLIENT_ID (getPeerCertificate().subject.CN).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { prepareTls } from '../../src/bank/tls';
import { DevPkiOptions, ensureDevPki, pkiFiles, PkiFiles, Reissued } from '../../src/bank/security/pki';
import { tempDir, testConfig } from '../helpers/bank';
import { changed, snapshot } from '../helpers/files';

const CLIENTS = ['demo-connector', 'acme'];

const certificate = (file: string) => new X509Certificate(fs.readFileSync(file));

describe('the dev PKI on an existing data dir', () => {
  let dir: string;
  let files: PkiFiles;
  const reissues: Reissued[] = [];
  const ensure = (options: Partial<DevPkiOptions> = {}) =>
    ensureDevPki({ dir, bankClientId: 'sandbox-bank', clientIds: CLIENTS, serverNames: [], onReissue: (reissued) => reissues.push(reissued), ...options });

  beforeEach(async () => {
    dir = path.join(tempDir('dev-pki-settings-'), 'pki');
    files = pkiFiles(dir);
    reissues.length = 0;
    await ensure();
  });

  it('writes nothing on a start with the same settings', async () => {
    const before = snapshot(dir);
    const again = await ensure();
    expect(again.created).toEqual([]);
    expect(again.reissued).toEqual([]);
    expect(reissues).toEqual([]);
    expect(changed(before, snapshot(dir))).toEqual([]);
  });

  it('reissues only bank-server.crt when TLS_SERVER_NAMES gains names: new SAN, same CA, key and other certificates', async () => {
    const before = snapshot(dir);
    const result = await ensure({ serverNames: ['bank', '10.1.2.3'] });
    expect(changed(before, snapshot(dir))).toEqual([files.serverCert]);
    expect(result.created).toEqual([files.serverCert]);
    expect(result.reissued).toEqual([{ file: files.serverCert, reason: expect.stringContaining('bank, 10.1.2.3') }]);
    expect(reissues).toEqual(result.reissued);
    const server = certificate(files.serverCert);
    expect(server.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:bank, IP Address:10.1.2.3');
    expect(server.checkIssued(certificate(files.caCert))).toBe(true);
    expect(server.verify(certificate(files.caCert).publicKey)).toBe(true);
    expect(server.checkPrivateKey(createPrivateKey(fs.readFileSync(files.serverKey)))).toBe(true);
    // And then it is settled: the same settings again write nothing.
    const settled = snapshot(dir);
    expect((await ensure({ serverNames: ['bank', '10.1.2.3'] })).created).toEqual([]);
    expect(changed(settled, snapshot(dir))).toEqual([]);
  });

  it('leaves a server certificate with more names than configured as it is', async () => {
    await ensure({ serverNames: ['bank', 'Other.Example', 'fe80::1'] });
    const before = snapshot(dir);
    reissues.length = 0;
    // Fewer names, another case, another spelling of the same IPv6 address: every configured name is there.
    expect((await ensure({ serverNames: ['other.example', 'FE80:0:0::1'] })).created).toEqual([]);
    expect(reissues).toEqual([]);
    expect(changed(before, snapshot(dir))).toEqual([]);
  });

  it('reissues only bank-client.crt when BANK_CLIENT_ID changes: new CN, same CA, key and other certificates', async () => {
    const before = snapshot(dir);
    const result = await ensure({ bankClientId: 'other-bank' });
    expect(changed(before, snapshot(dir))).toEqual([files.bankClientCert]);
    expect(result.created).toEqual([files.bankClientCert]);
    expect(result.reissued).toEqual([{ file: files.bankClientCert, reason: 'its CN is "sandbox-bank", BANK_CLIENT_ID is "other-bank"' }]);
    const client = certificate(files.bankClientCert);
    expect(client.subject).toBe('CN=other-bank\nO=Sandbox Bank (sandbox only)');
    expect(client.verify(certificate(files.caCert).publicKey)).toBe(true);
    expect((await ensure({ bankClientId: 'other-bank' })).created).toEqual([]);
  });

  it('settles on names that node prints escaped or quoted: a second start writes nothing', async () => {
    const settings = { bankClientId: 'a,b "c"\\ #x ', serverNames: ['x"y', 'c,d', '::ffff:a01:203'] };
    expect((await ensure(settings)).created.sort()).toEqual([files.bankClientCert, files.serverCert].sort());
    const before = snapshot(dir);
    expect((await ensure(settings)).created).toEqual([]);
    expect(changed(before, snapshot(dir))).toEqual([]);
  });

  it('reissues both at once, and creates what is missing beside them', async () => {
    fs.rmSync(files.clientCert('acme'));
    fs.rmSync(files.clientKey('acme'));
    const ca = fs.readFileSync(files.caCert, 'utf8');
    const demo = fs.readFileSync(files.clientCert('demo-connector'), 'utf8');
    const result = await ensure({ bankClientId: 'other-bank', serverNames: ['bank'] });
    expect(result.created.sort()).toEqual([files.bankClientCert, files.clientCert('acme'), files.serverCert].sort());
    expect(result.reissued.map((reissued) => reissued.file)).toEqual([files.serverCert, files.bankClientCert]);
    expect(fs.readFileSync(files.caCert, 'utf8')).toBe(ca);
    expect(fs.readFileSync(files.clientCert('demo-connector'), 'utf8')).toBe(demo);
  });

  it('rebuilds a deleted ca.crt from ca.key: every certificate it issued still verifies, against the old copy too', async () => {
    const oldCa = certificate(files.caCert);
    fs.rmSync(files.caCert);
    const before = snapshot(dir);
    const result = await ensure();
    expect(changed(before, snapshot(dir))).toEqual([files.caCert]);
    expect(result.created).toEqual([files.caCert]);
    expect(reissues).toEqual([{ file: files.caCert, reason: expect.stringContaining('rebuilt from') }]);
    const newCa = certificate(files.caCert);
    expect({ subject: newCa.subject, ca: newCa.ca, key: newCa.publicKey.export({ format: 'jwk' }) }).toEqual({ subject: oldCa.subject, ca: true, key: oldCa.publicKey.export({ format: 'jwk' }) });
    for (const leaf of [files.serverCert, files.bankClientCert, ...CLIENTS.map(files.clientCert)].map(certificate)) {
      expect([leaf.checkIssued(newCa), leaf.verify(newCa.publicKey), leaf.checkIssued(oldCa)]).toEqual([true, true, true]);
    }
  });

  it('refuses to issue with ca.key lost, names the file, and writes nothing; a start that issues nothing still runs', async () => {
    fs.rmSync(files.caKey);
    const before = snapshot(dir);
    await expect(ensure()).resolves.toMatchObject({ created: [] });
    await expect(ensure({ clientIds: [...CLIENTS, 'newcomer'] })).rejects.toThrow(`${files.caKey} is missing beside ${files.caCert}`);
    expect(changed(before, snapshot(dir))).toEqual([]);
  });

  it('by default says so in a process warning', async () => {
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await ensureDevPki({ dir, bankClientId: 'other-bank', clientIds: [], serverNames: [] });
      expect(warn.mock.calls).toEqual([
        [`dev PKI: reissued ${files.bankClientCert} from the existing CA (same key): its CN is "sandbox-bank", BANK_CLIENT_ID is "other-bank"`, { code: 'SANDBOX_BANK_PKI_REISSUED' }],
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('a Bank started again with new TLS_SERVER_NAMES and BANK_CLIENT_ID (prepareTls)', () => {
  it('serves a certificate that passes the hostname check for the new names, and presents the new CN', async () => {
    const dataDir = tempDir('dev-pki-restart-');
    const first = await prepareTls(testConfig({ dataDir }), CLIENTS);
    const ca = fs.readFileSync(first.pki!.caCert, 'utf8');
    const demoCert = fs.readFileSync(first.pki!.clientCert('demo-connector'), 'utf8');
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    let again;
    try {
      again = await prepareTls(testConfig({ dataDir, tlsServerNames: ['bank', '10.1.2.3'], bankClientId: 'other-bank' }), CLIENTS);
      expect(warn.mock.calls.map((call) => call[1])).toEqual([{ code: 'SANDBOX_BANK_PKI_REISSUED' }, { code: 'SANDBOX_BANK_PKI_REISSUED' }]);
    } finally {
      warn.mockRestore();
    }
    expect(again.created.sort()).toEqual([again.pki!.bankClientCert, again.pki!.serverCert].sort());
    expect(fs.readFileSync(again.pki!.caCert, 'utf8')).toBe(ca);
    expect(fs.readFileSync(again.pki!.clientCert('demo-connector'), 'utf8')).toBe(demoCert);

    // The Bank's HTTPS listener as server.ts makes it, and its client certificate as a Connector sees it.
    const peers: string[] = [];
    const server = tls.createServer({ ...again.server, requestCert: true, rejectUnauthorized: true }, (socket) => {
      peers.push(String(socket.getPeerCertificate().subject?.CN));
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      for (const servername of ['bank', '10.1.2.3', 'localhost']) {
        const error = await new Promise<Error | undefined>((resolve) => {
          const socket = tls.connect({ host: '127.0.0.1', port, servername: net.isIP(servername) ? undefined : servername, ca: again.connector.ca, cert: again.connector.cert, key: again.connector.key, checkServerIdentity: (_host, cert) => tls.checkServerIdentity(servername, cert) });
          socket.once('secureConnect', () => socket.end());
          socket.once('close', () => resolve(undefined));
          socket.once('error', resolve);
        });
        expect([servername, error?.message]).toEqual([servername, undefined]);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(peers).toEqual(['other-bank', 'other-bank', 'other-bank']);
  });
});
