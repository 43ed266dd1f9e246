// The development PKI (profile section 4): a sandbox CA, the Bank's server and client certificates, and one
// certificate per registered client (CN = client id). ECDSA P-256. Existing files are reused, never overwritten,
// with one exception: the Bank's own two certificates follow TLS_SERVER_NAMES and BANK_CLIENT_ID (see
// bankCertificateMismatches), so a changed setting reissues that one certificate from the existing CA.
// node:crypto generates the keys and signs; the certificates themselves (X.509 v3, RFC 5280) are laid out by
// hand in DER (der.ts): an X.509 library cost ~0.2 s to load on every first start, this path ~1 ms per
// certificate, so the whole PKI is made before the listeners start, as before.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  bitString, children, explicit, implicit, namedBits, objectIdentifier, octetString, readElement, sequence, set, smallInteger, time, TRUE, unsignedInteger, utf8String,
} from './der';

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
  /**
   * Told when an existing certificate of the Bank is reissued, and why. By default a process warning (code
   * SANDBOX_BANK_PKI_REISSUED, on standard error): the start path has no logger to hand here.
   */
  onReissue?: (reissued: Reissued) => void;
}

/** A certificate of the Bank's that was replaced because it no longer matched the configuration. */
export interface Reissued {
  file: string;
  reason: string;
}

export interface DevPki {
  files: PkiFiles;
  /** The certificates written by this call, reissued ones included (empty on a restart with the same settings). */
  created: string[];
  reissued: Reissued[];
}

const DAY_MS = 86_400_000;
const IP = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]+:[0-9a-f:]*)$/i;
const ORGANISATION = 'Sandbox Bank (sandbox only)';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organisation: '2.5.4.10',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extendedKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** KeyUsage bit numbers (RFC 5280 §4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyAgreement: 4, keyCertSign: 5, cRLSign: 6 } as const;

/** What signs certificates: the CA's key, its subject (the leaves' issuer, byte for byte) and its key identifier. */
interface Issuer {
  key: KeyObject;
  subject: Buffer;
  keyId: Buffer;
}

function exists(...files: string[]): boolean {
  return files.every((file) => fs.existsSync(file));
}

function writeNew(file: string, contents: string, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, contents, { mode, flag: 'wx' });
}

function serial(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes;
}

/** A Name of a CN and an O, one attribute per RDN, CN first. */
function name(commonName: string, organisation = ORGANISATION): Buffer {
  const attribute = (oid: string, value: string) => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(attribute(OID.commonName, commonName), attribute(OID.organisation, organisation));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(objectIdentifier(oid), TRUE, octetString(value)) : sequence(objectIdentifier(oid), octetString(value));
}

/** RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: Buffer): Buffer {
  const subjectPublicKey = children(readElement(spki).content)[1].content.subarray(1);
  return createHash('sha1').update(subjectPublicKey).digest();
}

/** 16 bytes for an IPv6 address (hex groups, one `::` at most), 4 for IPv4. */
function ipBytes(address: string): Buffer {
  if (address.includes('.')) return Buffer.from(address.split('.').map(Number));
  const [head, tail = null] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = tail === null ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return Buffer.from(all.flatMap((group) => [group >> 8, group & 0xff]));
}

function generalName(value: string): Buffer {
  return IP.test(value) ? implicit(7, ipBytes(value)) : implicit(2, Buffer.from(value, 'latin1'));
}

function pem(label: string, der: Buffer): string {
  return `-----BEGIN ${label}-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END ${label}-----\n`;
}

function privateKeyPem(key: KeyObject): string {
  return key.export({ format: 'pem', type: 'pkcs8' }).toString();
}

function newKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

interface CertificateFields {
  subject: Buffer;
  spki: Buffer;
  extensions: Buffer[];
  validityDays: number;
}

/** An X.509 v3 certificate, ecdsa-with-SHA256, signed by `issuer` (or by its own key when self-signed). */
function certificate(fields: CertificateFields, issuer: { key: KeyObject; subject: Buffer }): string {
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const now = Date.now();
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial()),
    algorithm,
    issuer.subject,
    sequence(time(new Date(now - DAY_MS)), time(new Date(now + fields.validityDays * DAY_MS))),
    fields.subject,
    fields.spki,
    explicit(3, sequence(...fields.extensions)),
  );
  return pem('CERTIFICATE', sequence(tbs, algorithm, bitString(sign('sha256', tbs, issuer.key))));
}

const CA_NAME = 'Sandbox Bank Development CA';

/**
 * The CA from its files, made when neither exists. A lost `ca.crt` is rebuilt from `ca.key` (same key and name, so
 * every certificate it issued still chains to it, and a Connector's old copy still verifies them); a lost `ca.key`
 * cannot be, and a new key beside the old `ca.crt` would issue certificates that chain to nothing.
 */
function loadOrCreateCa(files: PkiFiles, validityDays: number, onRebuilt: (reissued: Reissued) => void): Issuer {
  const [hasCert, hasKey] = [fs.existsSync(files.caCert), fs.existsSync(files.caKey)];
  if (hasCert && hasKey) return existingCa(fs.readFileSync(files.caCert, 'utf8'), fs.readFileSync(files.caKey, 'utf8'));
  if (hasCert) throw new Error(`dev PKI: ${files.caKey} is missing beside ${files.caCert}, so no certificate can be issued: restore it, or delete ${files.dir} to start a new CA`);
  const privateKey = hasKey ? createPrivateKey(fs.readFileSync(files.caKey, 'utf8')) : undefined;
  const { issuer, keyPem, certPem } = newCa(CA_NAME, validityDays, ORGANISATION, privateKey && { privateKey, publicKey: createPublicKey(privateKey) });
  if (!hasKey) writeNew(files.caKey, keyPem, 0o600);
  writeNew(files.caCert, certPem, 0o644);
  if (hasKey) onRebuilt({ file: files.caCert, reason: `it was missing; rebuilt from ${files.caKey}, so the certificates it issued stay valid` });
  return issuer;
}

/** The CA as its files hold it: the subject is copied from the certificate, so a leaf names it exactly. */
function existingCa(certPem: string, keyPem: string): Issuer {
  const der = Buffer.from(certPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const tbs = children(readElement(der).content)[0];
  // version [0], serialNumber, signature, issuer, validity, subject
  const subject = children(tbs.content)[5].encoded;
  const key = createPrivateKey(keyPem);
  return { key, subject, keyId: keyIdentifier(createPublicKey(key).export({ format: 'der', type: 'spki' })) };
}

/** A self-signed CA, in memory, for a new key pair unless `keys` are given. */
function newCa(commonName: string, validityDays: number, organisation = ORGANISATION, keys = newKeyPair()): { issuer: Issuer; keyPem: string; certPem: string } {
  const spki = keys.publicKey.export({ format: 'der', type: 'spki' });
  const subject = name(commonName, organisation);
  const keyId = keyIdentifier(spki);
  const certPem = certificate({
    subject,
    spki,
    validityDays,
    extensions: [
      extension(OID.basicConstraints, true, sequence(TRUE, smallInteger(0))),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign])),
      extension(OID.subjectKeyIdentifier, false, octetString(keyId)),
    ],
  }, { key: keys.privateKey, subject });
  return { issuer: { key: keys.privateKey, subject, keyId }, keyPem: privateKeyPem(keys.privateKey), certPem };
}

interface LeafSpec {
  commonName: string;
  serverAuth: boolean;
  clientAuth: boolean;
  names: readonly string[];
}

function issueLeaf(ca: Issuer, spec: LeafSpec, certFile: string, keyFile: string, validityDays: number): boolean {
  if (exists(certFile, keyFile)) return false;
  const { certPem, keyPem } = leaf(ca, spec, validityDays);
  writeNew(keyFile, keyPem, 0o600);
  writeNew(certFile, certPem, 0o644);
  return true;
}

/**
 * A new certificate for the existing key in `keyFile` (left as it is), replacing `certFile` in one rename: the
 * pair on disk always matches, even after a crash half-way.
 */
function reissueLeaf(ca: Issuer, spec: LeafSpec, certFile: string, keyFile: string, validityDays: number): void {
  const privateKey = createPrivateKey(fs.readFileSync(keyFile, 'utf8'));
  const { certPem } = leaf(ca, spec, validityDays, { privateKey, publicKey: createPublicKey(privateKey) });
  const temporary = `${certFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, certPem, { mode: 0o644 });
    fs.renameSync(temporary, certFile);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/** A certificate issued by `ca`, in memory, for a new key pair unless `keys` are given. */
function leaf(ca: Issuer, spec: LeafSpec, validityDays: number, keys = newKeyPair()): { certPem: string; keyPem: string } {
  const spki = keys.publicKey.export({ format: 'der', type: 'spki' });
  const usages = [...(spec.serverAuth ? [OID.serverAuth] : []), ...(spec.clientAuth ? [OID.clientAuth] : [])];
  const certPem = certificate({
    subject: name(spec.commonName),
    spki,
    validityDays,
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyAgreement])),
      extension(OID.extendedKeyUsage, false, sequence(...usages.map(objectIdentifier))),
      extension(OID.subjectAltName, false, sequence(...spec.names.map(generalName))),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(spki))),
      extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, ca.keyId))),
    ],
  }, ca);
  return { certPem, keyPem: privateKeyPem(keys.privateKey) };
}

/**
 * A client certificate for `commonName` from a throwaway CA that nothing trusts (conformance
 * transport.foreign_ca_refused): right name, wrong issuer.
 */
export async function foreignClientCertificate(commonName: string): Promise<{ cert: string; key: string }> {
  const { issuer } = newCa('Not the Sandbox Bank CA', 1, 'Conformance run (untrusted)');
  const { certPem, keyPem } = leaf(issuer, { commonName, serverAuth: false, clientAuth: true, names: [commonName] }, 1);
  return { cert: certPem, key: keyPem };
}

const LOCAL_NAMES = ['localhost', '127.0.0.1', '::1'];

/** One SAN entry as issuance writes it (generalName): an IP address by its bytes, a DNS name in lower case. */
function sanKey(value: string, kind: 'DNS' | 'IP' = IP.test(value) ? 'IP' : 'DNS'): string {
  return kind === 'IP' ? `IP:${ipBytes(value).toString('hex')}` : `DNS:${value.toLowerCase()}`;
}

/**
 * The DNS and IP entries of a certificate's SAN, as sanKey gives them. node prints them `DNS:a, IP Address:1.2.3.4`,
 * an IPv6 address as 8 hex groups, and a name with a comma, a quote or the like as a JSON string.
 */
function subjectAltNames(cert: X509Certificate): Set<string> {
  const keys = new Set<string>();
  for (const entry of cert.subjectAltName?.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []) {
    const match = /^\s*(DNS|IP Address):(.*)$/s.exec(entry);
    if (!match) continue;
    const value = match[2].startsWith('"') ? (JSON.parse(match[2]) as string) : match[2];
    keys.add(sanKey(value, match[1] === 'DNS' ? 'DNS' : 'IP'));
  }
  return keys;
}

/**
 * The subject's first CN. node prints the subject one attribute a line, `CN=value`, the value escaped as RFC 4514
 * says (`\,`, `\ ` …, a control character as `\0A`): undone here, so the value is what a peer's
 * getPeerCertificate().subject.CN says (the reference Connector compares that with its BANK_CLIENT_ID).
 */
function commonName(cert: X509Certificate): string | null {
  const line = cert.subject.split('\n').find((attribute) => attribute.startsWith('CN='));
  if (line === undefined) return null;
  return line.slice(3).replace(/\\([0-9A-Fa-f]{2}|[\s\S])/g, (_escape, escaped: string) => (escaped.length === 2 ? String.fromCharCode(parseInt(escaped, 16)) : escaped));
}

/**
 * What the Bank's existing server and client certificates lack of the configuration (TLS_SERVER_NAMES, BANK_CLIENT_ID),
 * by certificate. Read with node's X509Certificate (native: ~1-2 ms for both, cold), so a restart with
 * the same settings stays as cheap as it was. A certificate or key that is missing is not looked at: it is issued.
 * A server certificate with more names than configured is left as it is: every configured name still checks.
 */
function bankCertificateMismatches(files: PkiFiles, serverNames: readonly string[], bankClientId: string): Map<string, string> {
  const mismatches = new Map<string, string>();
  if (exists(files.serverCert, files.serverKey)) {
    const present = subjectAltNames(new X509Certificate(fs.readFileSync(files.serverCert)));
    const missing = serverNames.filter((serverName) => !present.has(sanKey(serverName)));
    if (missing.length > 0) mismatches.set(files.serverCert, `its SAN lacks ${missing.join(', ')} (TLS_SERVER_NAMES)`);
  }
  if (exists(files.bankClientCert, files.bankClientKey)) {
    const cn = commonName(new X509Certificate(fs.readFileSync(files.bankClientCert)));
    if (cn !== bankClientId) mismatches.set(files.bankClientCert, `its CN is ${JSON.stringify(cn)}, BANK_CLIENT_ID is ${JSON.stringify(bankClientId)}`);
  }
  return mismatches;
}

function warnReissued({ file, reason }: Reissued): void {
  process.emitWarning(`dev PKI: reissued ${file} from the existing CA (same key): ${reason}`, { code: 'SANDBOX_BANK_PKI_REISSUED' });
}

/**
 * Creates whatever is missing, and reissues the Bank's server or client certificate when it no longer matches
 * TLS_SERVER_NAMES or BANK_CLIENT_ID (from the existing CA, with the existing key: the CA and every client
 * certificate stay as they are). Returns the certificates it wrote: none on a restart with the same settings.
 */
export async function ensureDevPki(options: DevPkiOptions): Promise<DevPki> {
  const files = pkiFiles(options.dir);
  const validityDays = options.validityDays ?? 825;
  const serverNames = [...new Set([...LOCAL_NAMES, ...options.serverNames])];
  const server: LeafSpec = { commonName: 'sandbox-bank', serverAuth: true, clientAuth: false, names: serverNames };
  const bankClient: LeafSpec = { commonName: options.bankClientId, serverAuth: false, clientAuth: true, names: LOCAL_NAMES };
  const wanted = [files.caCert, files.serverCert, files.bankClientCert, ...options.clientIds.map(files.clientCert)];
  const before = new Set(wanted.filter((file) => fs.existsSync(file)));
  const mismatches = bankCertificateMismatches(files, serverNames, options.bankClientId);
  if (before.size === wanted.length && mismatches.size === 0) return { files, created: [], reissued: [] };
  const reissued: Reissued[] = [];
  const report = (done: Reissued) => {
    reissued.push(done);
    (options.onReissue ?? warnReissued)(done);
  };
  const ca = loadOrCreateCa(files, validityDays, report);
  for (const [spec, certFile, keyFile] of [[server, files.serverCert, files.serverKey], [bankClient, files.bankClientCert, files.bankClientKey]] as const) {
    const reason = mismatches.get(certFile);
    if (reason === undefined) {
      issueLeaf(ca, spec, certFile, keyFile, validityDays);
      continue;
    }
    reissueLeaf(ca, spec, certFile, keyFile, validityDays);
    report({ file: certFile, reason });
  }
  for (const clientId of options.clientIds) issueClientCertificate(ca, files, clientId, validityDays);
  const created = wanted.filter((file) => !before.has(file) || mismatches.has(file));
  return { files, created, reissued };
}

/**
 * A client's certificate (CN = client id) also serves HTTPS, on localhost and on the client id as a host name
 * (a compose service named after the client), so a Connector can use one certificate for both directions.
 */
function issueClientCertificate(ca: Issuer, files: PkiFiles, clientId: string, validityDays: number): boolean {
  const hostName = /^[A-Za-z0-9-]{1,63}$/.test(clientId) ? [clientId] : [];
  const spec = { commonName: clientId, serverAuth: true, clientAuth: true, names: [...LOCAL_NAMES, ...hostName] };
  return issueLeaf(ca, spec, files.clientCert(clientId), files.clientKey(clientId), validityDays);
}

/** `npm run pki -- --client <id>`: one more client certificate from the existing sandbox CA. */
export async function issueOneClientCertificate(dir: string, clientId: string, validityDays = 825): Promise<{ cert: string; key: string; created: boolean }> {
  const files = pkiFiles(dir);
  if (!exists(files.caCert) && !exists(files.caKey)) throw new Error(`no sandbox CA in ${dir}: start the bank once first`);
  const ca = loadOrCreateCa(files, validityDays, warnReissued);
  const created = issueClientCertificate(ca, files, clientId, validityDays);
  return { cert: files.clientCert(clientId), key: files.clientKey(clientId), created };
}
