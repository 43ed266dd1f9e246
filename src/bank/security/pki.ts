// The development PKI (profile section 4): a sandbox CA, the Bank's server and client certificates, and one
// certificate per registered client (CN = client id). ECDSA P-256. Existing files are reused, never overwritten.
// node-forge cannot sign ECDSA certificates, so this uses @peculiar/x509 over WebCrypto, loaded only when a
// certificate must be created: a restart with an existing PKI does not pay for it.
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface PkiFiles {
  dir: string;
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  bankClientCert: string;
  bankClientKey: string;
  clientCert(clientId: string): string;
  clientKey(clientId: string): string;
}

export function pkiFiles(dir: string): PkiFiles {
  return {
    dir,
    caCert: path.join(dir, 'ca.crt'),
    caKey: path.join(dir, 'ca.key'),
    serverCert: path.join(dir, 'bank-server.crt'),
    serverKey: path.join(dir, 'bank-server.key'),
    bankClientCert: path.join(dir, 'bank-client.crt'),
    bankClientKey: path.join(dir, 'bank-client.key'),
    clientCert: (clientId) => path.join(dir, 'clients', `${clientId}.crt`),
    clientKey: (clientId) => path.join(dir, 'clients', `${clientId}.key`),
  };
}

export interface DevPkiOptions {
  dir: string;
  bankClientId: string;
  clientIds: readonly string[];
  /** Extra DNS names or IPs for the Bank's server certificate, beside localhost and 127.0.0.1. */
  serverNames: readonly string[];
  validityDays?: number;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]+:[0-9a-f:]*)$/i;

type X509 = typeof import('@peculiar/x509');
type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

let x509Module: X509 | null = null;
function x509(): X509 {
  if (!x509Module) {
    require('reflect-metadata');
    x509Module = require('@peculiar/x509') as X509;
    x509Module.cryptoProvider.set(webcrypto as never);
  }
  return x509Module;
}

interface Issuer {
  cert: import('@peculiar/x509').X509Certificate;
  key: CryptoKey;
}

function exists(...files: string[]): boolean {
  return files.every((file) => fs.existsSync(file));
}

function writeNew(file: string, contents: string, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, contents, { mode, flag: 'wx' });
}

async function exportKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

async function importKeyPem(pem: string): Promise<CryptoKey> {
  const der = createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' });
  return (await webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign'])) as unknown as CryptoKey;
}

function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

async function loadOrCreateCa(files: PkiFiles, validityDays: number): Promise<Issuer> {
  const lib = x509();
  if (exists(files.caCert, files.caKey)) {
    return { cert: new lib.X509Certificate(fs.readFileSync(files.caCert, 'utf8')), key: await importKeyPem(fs.readFileSync(files.caKey, 'utf8')) };
  }
  const { issuer, keyPem, certPem } = await newCa('CN=Sandbox Bank Development CA, O=Sandbox Bank (sandbox only)', validityDays);
  writeNew(files.caKey, keyPem, 0o600);
  writeNew(files.caCert, certPem, 0o644);
  return issuer;
}

/** A self-signed CA, in memory. */
async function newCa(subject: string, validityDays: number): Promise<{ issuer: Issuer; keyPem: string; certPem: string }> {
  const lib = x509();
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: subject,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + validityDays * DAY_MS),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign, true),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { issuer: { cert, key: keys.privateKey }, keyPem: await exportKeyPem(keys.privateKey), certPem: cert.toString('pem') + '\n' };
}

interface LeafSpec {
  commonName: string;
  serverAuth: boolean;
  clientAuth: boolean;
  names: readonly string[];
}

async function issueLeaf(ca: Issuer, spec: LeafSpec, certFile: string, keyFile: string, validityDays: number): Promise<boolean> {
  if (exists(certFile, keyFile)) return false;
  const { certPem, keyPem } = await leaf(ca, spec, validityDays);
  writeNew(keyFile, keyPem, 0o600);
  writeNew(certFile, certPem, 0o644);
  return true;
}

/** A certificate issued by `ca`, in memory. */
async function leaf(ca: Issuer, spec: LeafSpec, validityDays: number): Promise<{ certPem: string; keyPem: string }> {
  const lib = x509();
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const usages = [...(spec.serverAuth ? [lib.ExtendedKeyUsage.serverAuth] : []), ...(spec.clientAuth ? [lib.ExtendedKeyUsage.clientAuth] : [])];
  const cert = await lib.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${spec.commonName}, O=Sandbox Bank (sandbox only)`,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + validityDays * DAY_MS),
    signingAlgorithm: EC,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature | lib.KeyUsageFlags.keyAgreement, true),
      new lib.ExtendedKeyUsageExtension(usages, false),
      new lib.SubjectAlternativeNameExtension(spec.names.map((name) => (IP.test(name) ? { type: 'ip', value: name } : { type: 'dns', value: name }))),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await lib.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await exportKeyPem(keys.privateKey) };
}

/**
 * A client certificate for `commonName` from a throwaway CA that nothing trusts (conformance
 * transport.foreign_ca_refused): right name, wrong issuer.
 */
export async function foreignClientCertificate(commonName: string): Promise<{ cert: string; key: string }> {
  const { issuer } = await newCa('CN=Not the Sandbox Bank CA, O=Conformance run (untrusted)', 1);
  const { certPem, keyPem } = await leaf(issuer, { commonName, serverAuth: false, clientAuth: true, names: [commonName] }, 1);
  return { cert: certPem, key: keyPem };
}

const LOCAL_NAMES = ['localhost', '127.0.0.1', '::1'];

/** Creates whatever is missing; returns the files it wrote (empty on a restart). */
export async function ensureDevPki(options: DevPkiOptions): Promise<{ files: PkiFiles; created: string[] }> {
  const files = pkiFiles(options.dir);
  const validityDays = options.validityDays ?? 825;
  const wanted = [files.caCert, files.serverCert, files.bankClientCert, ...options.clientIds.map(files.clientCert)];
  const before = new Set(wanted.filter((file) => fs.existsSync(file)));
  if (before.size === wanted.length) return { files, created: [] };
  const ca = await loadOrCreateCa(files, validityDays);
  const serverNames = [...new Set([...LOCAL_NAMES, ...options.serverNames])];
  await issueLeaf(ca, { commonName: 'sandbox-bank', serverAuth: true, clientAuth: false, names: serverNames }, files.serverCert, files.serverKey, validityDays);
  await issueLeaf(ca, { commonName: options.bankClientId, serverAuth: false, clientAuth: true, names: LOCAL_NAMES }, files.bankClientCert, files.bankClientKey, validityDays);
  for (const clientId of options.clientIds) await issueClientCertificate(ca, files, clientId, validityDays);
  return { files, created: wanted.filter((file) => !before.has(file)) };
}

/**
 * A client's certificate (CN = client id) also serves HTTPS, on localhost and on the client id as a host name
 * (a compose service named after the client), so a Connector can use one certificate for both directions.
 */
async function issueClientCertificate(ca: Issuer, files: PkiFiles, clientId: string, validityDays: number): Promise<boolean> {
  const hostName = /^[A-Za-z0-9-]{1,63}$/.test(clientId) ? [clientId] : [];
  const spec = { commonName: clientId, serverAuth: true, clientAuth: true, names: [...LOCAL_NAMES, ...hostName] };
  return issueLeaf(ca, spec, files.clientCert(clientId), files.clientKey(clientId), validityDays);
}

/** `npm run pki -- --client <id>`: one more client certificate from the existing sandbox CA. */
export async function issueOneClientCertificate(dir: string, clientId: string, validityDays = 825): Promise<{ cert: string; key: string; created: boolean }> {
  const files = pkiFiles(dir);
  if (!exists(files.caCert, files.caKey)) throw new Error(`no sandbox CA in ${dir}: start the bank once first`);
  const ca = await loadOrCreateCa(files, validityDays);
  const created = await issueClientCertificate(ca, files, clientId, validityDays);
  return { cert: files.clientCert(clientId), key: files.clientKey(clientId), created };
}
