// A start that stopped half-way (a kill, a full disk) leaves nothing that stops the next one (docs/operations.md,
// "The development PKI"): every file is written whole (a temporary file renamed into place, the key before its
// certificate), and a start issues again what an older crash left unusable: a key without its certificate, an
// empty or cut-short certificate, an empty ca.crt. A key is kept whenever it is whole. An unusable ca.key is refused
// by name once certificates were issued from it, and started afresh when none was. Each test checks what was
// repaired, that every other file keeps its bytes, and that every leaf still verifies against ca.crt.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DevPkiOptions, ensureDevPki, pkiFiles, PkiFiles, Reissued, writeAtomically } from '../../src/bank/security/pki';
import { tempDir } from '../helpers/bank';
import { changed, snapshot } from '../helpers/files';

const CLIENTS = ['demo-connector', 'acme'];

const certificate = (file: string) => new X509Certificate(fs.readFileSync(file));

/** The first half of a file's bytes: what a write cut short leaves. */
function cutShort(file: string): void {
  fs.writeFileSync(file, fs.readFileSync(file).subarray(0, Math.floor(fs.statSync(file).size / 2)));
}

function leafPairs(files: PkiFiles): { certFile: string; keyFile: string }[] {
  return [
    { certFile: files.serverCert, keyFile: files.serverKey },
    { certFile: files.bankClientCert, keyFile: files.bankClientKey },
    ...CLIENTS.map((clientId) => ({ certFile: files.clientCert(clientId), keyFile: files.clientKey(clientId) })),
  ];
}

/** Every leaf is issued by ca.crt, verifies with its key, and matches its own key; ca.key is ca.crt's. */
function expectWholePki(files: PkiFiles): void {
  const ca = certificate(files.caCert);
  expect(ca.checkPrivateKey(createPrivateKey(fs.readFileSync(files.caKey)))).toBe(true);
  for (const { certFile, keyFile } of leafPairs(files)) {
    const leaf = certificate(certFile);
    const checks = [leaf.checkIssued(ca), leaf.verify(ca.publicKey), leaf.checkPrivateKey(createPrivateKey(fs.readFileSync(keyFile)))];
    expect([certFile, ...checks]).toEqual([certFile, true, true, true]);
  }
}

const temporaryFiles = (dir: string) => [...snapshot(dir).keys()].filter((file) => file.endsWith('.tmp'));

describe('the dev PKI after a start that stopped half-way', () => {
  let dir: string;
  let files: PkiFiles;
  const reissues: Reissued[] = [];
  const ensure = (options: Partial<DevPkiOptions> = {}) =>
    ensureDevPki({ dir, bankClientId: 'sandbox-bank', clientIds: CLIENTS, serverNames: [], onReissue: (reissued) => reissues.push(reissued), ...options });

  /** Starts again: only `repaired` changes (its certificate listed as created), and a start after it writes nothing. */
  async function expectRepaired(repaired: string[], reports: Reissued[]): Promise<void> {
    const before = snapshot(dir);
    const result = await ensure();
    expect(changed(before, snapshot(dir))).toEqual([...repaired].sort());
    expect(result.created).toEqual(repaired.filter((file) => file.endsWith('.crt')));
    expect(result.reissued).toEqual(reports);
    expect(reissues).toEqual(reports);
    expectWholePki(files);
    const settled = snapshot(dir);
    expect((await ensure()).created).toEqual([]);
    expect(changed(settled, snapshot(dir))).toEqual([]);
  }

  beforeEach(async () => {
    dir = path.join(tempDir('dev-pki-repair-'), 'pki');
    files = pkiFiles(dir);
    await ensure();
    reissues.length = 0;
  });

  const certificates: [string, (files: PkiFiles) => string][] = [
    ['bank-server', (files) => files.serverCert],
    ['bank-client', (files) => files.bankClientCert],
    ['a client', (files) => files.clientCert('acme')],
  ];

  it.each(certificates)('%s: a key without its certificate gets a certificate for that key (was EEXIST on the key)', async (_name, certificateOf) => {
    const certFile = certificateOf(files);
    fs.rmSync(certFile);
    await expectRepaired([certFile], [{ file: certFile, reason: 'it was missing beside its key' }]);
  });

  it.each(certificates)('%s: an empty certificate is issued again for its key', async (_name, certificateOf) => {
    const certFile = certificateOf(files);
    fs.truncateSync(certFile, 0);
    await expectRepaired([certFile], [{ file: certFile, reason: 'it was empty' }]);
  });

  it.each(certificates)('%s: a certificate cut short is issued again for its key, the reason quoting the parser', async (_name, certificateOf) => {
    const certFile = certificateOf(files);
    cutShort(certFile);
    await expectRepaired([certFile], [{ file: certFile, reason: expect.stringMatching(/^it could not be parsed: \S.*/) }]);
  });

  it('an empty key is replaced with a new key and certificate, from the same CA', async () => {
    const oldCert = fs.readFileSync(files.serverCert, 'utf8');
    fs.truncateSync(files.serverKey, 0);
    await expectRepaired([files.serverCert, files.serverKey], [{ file: files.serverKey, reason: 'it was empty; a new key and certificate were issued from the existing CA' }]);
    expect(fs.readFileSync(files.serverCert, 'utf8')).not.toBe(oldCert);
  });

  it('a key cut short is replaced too, though its certificate is whole', async () => {
    cutShort(files.clientKey('demo-connector'));
    await expectRepaired(
      [files.clientCert('demo-connector'), files.clientKey('demo-connector')],
      [{ file: files.clientKey('demo-connector'), reason: 'it could not be parsed: no whole PEM block (cut short?); a new key and certificate were issued from the existing CA' }],
    );
  });

  it('a key that is a whole PEM block but no key is found out when its certificate is issued again, and replaced', async () => {
    fs.writeFileSync(files.bankClientKey, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    fs.rmSync(files.bankClientCert);
    await expectRepaired(
      [files.bankClientCert, files.bankClientKey],
      [{ file: files.bankClientKey, reason: expect.stringMatching(/^it could not be parsed: \S.*; a new key and certificate were issued from the existing CA$/) }],
    );
  });

  it.each([
    ['an empty', (file: string) => fs.truncateSync(file, 0), 'it was empty'],
    ['a cut-short', cutShort, 'it could not be parsed: '],
  ] as const)('%s ca.crt is rebuilt from ca.key: same key and name, every certificate still verifies (was a Bank "ready" with no CA)', async (_name, breakIt, reason) => {
    const oldCa = certificate(files.caCert);
    breakIt(files.caCert);
    await expectRepaired([files.caCert], [{ file: files.caCert, reason: expect.stringMatching(new RegExp(`^${reason}.*; rebuilt from ${files.caKey}, so the certificates it issued stay valid$`)) }]);
    const newCa = certificate(files.caCert);
    expect([newCa.subject, newCa.publicKey.export({ format: 'jwk' })]).toEqual([oldCa.subject, oldCa.publicKey.export({ format: 'jwk' })]);
    for (const { certFile } of leafPairs(files)) expect(certificate(certFile).checkIssued(oldCa)).toBe(true);
  });

  it.each([
    ['empty', (file: string) => fs.truncateSync(file, 0), 'is empty'],
    ['unparsable', (file: string) => fs.writeFileSync(file, 'not a key\n'), 'cannot be parsed ('],
  ] as const)('an %s ca.key beside issued certificates is refused by name, and nothing is written; a start that issues nothing still runs', async (_name, breakIt, problem) => {
    breakIt(files.caKey);
    const acme = fs.readFileSync(files.clientCert('acme'));
    fs.truncateSync(files.clientCert('acme'), 0);
    const before = snapshot(dir);
    const refusal = `${files.caKey} ${problem}`;
    await expect(ensure()).rejects.toThrow(refusal);
    await expect(ensure()).rejects.toThrow(`so no certificate can be issued: restore it, or delete ${dir} to start a new CA`);
    expect(changed(before, snapshot(dir))).toEqual([]);
    // With every leaf whole the Bank runs on what it has, as with a lost ca.key; a new client is refused.
    fs.writeFileSync(files.clientCert('acme'), acme);
    await expect(ensure()).resolves.toMatchObject({ created: [] });
    await expect(ensure({ clientIds: [...CLIENTS, 'newcomer'] })).rejects.toThrow(refusal);
    expect(reissues).toEqual([]);
  });

  it('by default says what it repaired in a process warning: a certificate for the same key, or a new key', async () => {
    fs.rmSync(files.serverCert);
    fs.truncateSync(files.clientKey('acme'), 0);
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      await ensureDevPki({ dir, bankClientId: 'sandbox-bank', clientIds: CLIENTS, serverNames: [] });
      expect(warn.mock.calls).toEqual([
        [`dev PKI: reissued ${files.serverCert} from the existing CA (same key): it was missing beside its key`, { code: 'SANDBOX_BANK_PKI_REISSUED' }],
        [`dev PKI: replaced ${files.clientKey('acme')}: it was empty; a new key and certificate were issued from the existing CA`, { code: 'SANDBOX_BANK_PKI_REISSUED' }],
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('a key replaced by a start that stopped before its certificate: no mismatched pair, the next start issues the certificate', async () => {
    fs.truncateSync(files.serverKey, 0);
    const write = fs.writeFileSync;
    // The certificate's write fails (a full disk) once the new key is in place.
    const spy = jest.spyOn(fs, 'writeFileSync').mockImplementation((file, data, options) => {
      if (String(file).startsWith(`${files.serverCert}.`)) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      return write(file, data, options);
    });
    try {
      await expect(ensure()).rejects.toThrow('ENOSPC');
    } finally {
      spy.mockRestore();
    }
    expect(fs.existsSync(files.serverCert)).toBe(false);
    reissues.length = 0;
    await expectRepaired([files.serverCert], [{ file: files.serverCert, reason: 'it was missing beside its key' }]);
  });

  it('ca.key and ca.crt both gone beside the certificates they issued: refused by name, nothing written', async () => {
    fs.rmSync(files.caKey);
    fs.rmSync(files.caCert);
    const before = snapshot(dir);
    await expect(ensure({ clientIds: [...CLIENTS, 'newcomer'] })).rejects.toThrow(`${files.caKey} and ${files.caCert} are missing beside the certificates they issued`);
    expect(changed(before, snapshot(dir))).toEqual([]);
  });

  it('an empty ca.key and nothing else (the first start stopped as it wrote it) starts a new CA', async () => {
    fs.rmSync(dir, { recursive: true });
    fs.mkdirSync(dir);
    fs.writeFileSync(files.caKey, '');
    const result = await ensure();
    expect(result.created).toEqual([files.caCert, ...leafPairs(files).map((pair) => pair.certFile)]);
    expect(result.reissued).toEqual([{ file: files.caKey, reason: 'it was empty, and no certificate had been issued from it; a new CA was made' }]);
    expect(reissues).toEqual(result.reissued);
    expectWholePki(files);
    expect((await ensure()).created).toEqual([]);
  });
});

describe('a first start that stops at any one of its writes', () => {
  const WRITES = 10; // ca.key, ca.crt, then a key and a certificate for bank-server, bank-client and two clients
  let dir: string;
  let files: PkiFiles;
  const ensure = () => ensureDevPki({ dir, bankClientId: 'sandbox-bank', clientIds: CLIENTS, serverNames: [], onReissue: () => undefined });

  beforeEach(() => {
    dir = path.join(tempDir('dev-pki-crash-'), 'pki');
    files = pkiFiles(dir);
  });

  /** Write number `failing` writes half its bytes and throws: ENOSPC, or (cleanup off) a kill. */
  function failAtWrite(failing: number, error: Error, { cleanup }: { cleanup: boolean }): () => void {
    const write = fs.writeFileSync;
    let writes = 0;
    const spies = [
      jest.spyOn(fs, 'writeFileSync').mockImplementation((file, data, options) => {
        writes += 1;
        if (writes !== failing) return write(file, data, options);
        write(file, String(data).slice(0, String(data).length >> 1), options);
        throw error;
      }),
      ...(cleanup ? [] : [jest.spyOn(fs, 'rmSync').mockImplementation(() => undefined)]),
    ];
    return () => spies.forEach((spy) => spy.mockRestore());
  }

  const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const killed = new Error('killed (simulated: no cleanup runs)');

  it.each(Array.from({ length: WRITES }, (_, index) => index + 1))('write %i failing leaves no partial file, and the next start completes the PKI', async (failing) => {
    for (const [error, cleanup] of [[full, true], [killed, false]] as const) {
      fs.rmSync(dir, { recursive: true, force: true });
      const restore = failAtWrite(failing, error, { cleanup });
      try {
        await expect(ensure()).rejects.toThrow(error.message);
      } finally {
        restore();
      }
      // What is in place is whole: a key parses, a certificate parses; a full disk leaves no temporary file.
      for (const file of snapshot(dir).keys()) {
        if (file.endsWith('.key')) expect(() => createPrivateKey(fs.readFileSync(file))).not.toThrow();
        else if (file.endsWith('.crt')) expect(() => certificate(file)).not.toThrow();
      }
      if (cleanup) expect(temporaryFiles(dir)).toEqual([]);
      await ensure();
      expectWholePki(files);
      // A killed run's temporary file is never read; this one is gone because the next start has the same pid.
      expect(temporaryFiles(dir)).toEqual([]);
    }
  });
});

describe('writeAtomically', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('dev-pki-write-');
  });

  it('writes the file whole, with the mode given, over an existing one', () => {
    const file = path.join(dir, 'sub', 'x.key');
    writeAtomically(file, 'first', 0o600);
    writeAtomically(file, 'second', 0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe('second');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['x.key']);
  });

  it('sets the mode on a temporary file a killed run with the same pid left behind', () => {
    const file = path.join(dir, 'x.key');
    fs.writeFileSync(`${file}.${process.pid}.tmp`, 'half a ke', { mode: 0o666 });
    writeAtomically(file, 'a whole key', 0o600);
    expect([fs.readFileSync(file, 'utf8'), fs.statSync(file).mode & 0o077]).toEqual(['a whole key', 0]);
    expect(fs.readdirSync(dir)).toEqual(['x.key']);
  });

  it.each([
    ['the write fails half-way (a full disk)', 'writeFileSync'],
    ['the rename fails', 'renameSync'],
  ] as const)('when %s: no temporary file is left, and the target is as it was', (_name, failing) => {
    const write = fs.writeFileSync;
    const error = failing === 'writeFileSync' ? 'ENOSPC' : 'EXDEV';
    const spy =
      failing === 'writeFileSync'
        ? jest.spyOn(fs, 'writeFileSync').mockImplementation((file, data, options) => {
            write(file, String(data).slice(0, 3), options);
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          })
        : jest.spyOn(fs, 'renameSync').mockImplementation(() => {
            throw Object.assign(new Error('EXDEV: cross-device link not permitted, rename'), { code: 'EXDEV' });
          });
    try {
      const absent = path.join(dir, 'absent.crt');
      const present = path.join(dir, 'present.crt');
      write(present, 'old and whole');
      expect(() => writeAtomically(absent, 'new certificate', 0o644)).toThrow(error);
      expect(() => writeAtomically(present, 'new certificate', 0o644)).toThrow(error);
      expect(fs.readdirSync(dir)).toEqual(['present.crt']);
      expect(fs.readFileSync(present, 'utf8')).toBe('old and whole');
    } finally {
      spy.mockRestore();
    }
  });
});
