// The development PKI (profile section 4): a sandbox CA, the Bank's server and client certificates, and one
// certificate per registered client (CN = client id). ECDSA P-256. Existing files are reused, never overwritten,
// with two exceptions: the Bank's own two certificates follow TLS_SERVER_NAMES and BANK_CLIENT_ID (serverMismatch,
// bankClientMismatch), so a changed setting reissues that one certificate from the existing CA; and a file a crash
// or a full disk left unusable (empty, cut short, a key without its certificate) is issued again (planLeaf). Every
// file is written whole, through a temporary file renamed into place (writeAtomically).
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
   * Told when an existing file is replaced, and why. By default a process warning (code
   * SANDBOX_BANK_PKI_REISSUED, on standard error): the start path has no logger to hand here.
   */
  onReissue?: (reissued: Reissued) => void;
}

/**
 * A file that was replaced: a certificate of the Bank's that no longer matched the configuration, or a file found
 * missing beside its pair, empty or unparsable. A `.crt` was issued again for the key beside it (`ca.crt`: rebuilt
 * from `ca.key`); a `.key` was replaced, with its certificate (the reason says so).
 */
export interface Reissued {
  file: string;
  reason: string;
}

export interface DevPki {
  files: PkiFiles;
  /** The certificates written by this call, reissued and repaired ones included (none on a restart that needs none). */
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

const KEY_MODE = 0o600;
const CERTIFICATE_MODE = 0o644;

/**
 * Writes `file` whole or not at all: into a temporary file beside it, created with `mode`, then renamed over it. A
 * kill or a full disk half-way leaves `file` as it was (or absent), never a part of it. Exported for its test.
 */
export function writeAtomically(file: string, contents: string, mode: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    // A run killed half-way with this pid (pid 1 in a container) may have left one: 'wx' makes it afresh, with `mode`.
    fs.rmSync(temporary, { force: true });
    fs.writeFileSync(temporary, contents, { mode, flag: 'wx' });
    fs.renameSync(temporary, file);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * A key and its certificate, the key renamed in first: a kill between leaves a whole key without its certificate.
 * An old certificate goes before the new key comes, or a kill between would leave a pair that looks whole and does
 * not match (a start checks that each file is whole, not that the two belong together).
 */
function writePair(pair: { keyFile: string; certFile: string }, pems: { keyPem: string; certPem: string }): void {
  fs.rmSync(pair.certFile, { force: true });
  writeAtomically(pair.keyFile, pems.keyPem, KEY_MODE);
  writeAtomically(pair.certFile, pems.certPem, CERTIFICATE_MODE);
}

/** A file of the PKI as a start finds it. */
type Found<T> = { state: 'missing' } | { state: 'empty' } | { state: 'unparsable'; error: string } | { state: 'good'; value: T };
type Unusable = Exclude<Found<unknown>, { state: 'good' }>;

function find<T>(file: string, parse: (contents: Buffer) => T): Found<T> {
  let contents: Buffer;
  try {
    contents = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    throw error;
  }
  if (contents.length === 0) return { state: 'empty' };
  try {
    return { state: 'good', value: parse(contents) };
  } catch (error) {
    return { state: 'unparsable', error: shortMessage(error) };
  }
}

/** OpenSSL's messages (`error:0480006C:PEM routines::no start line`) name no file: the report does. */
function shortMessage(error: unknown): string {
  return (error as Error).message.split('\n')[0].slice(0, 120);
}

function findCertificate(file: string): Found<X509Certificate> {
  return find(file, (contents) => new X509Certificate(contents));
}

/**
 * What a restart checks of a file it does not otherwise parse: one whole PEM block, which an empty or cut-short
 * file lacks (its END line). Parsing is left to when the file is used: createPrivateKey costs ~0.3 ms a key in a
 * fresh process, X509Certificate ~0.2 ms a certificate, and a start with the same settings should cost what it did.
 */
function findPem(file: string): Found<string> {
  return find(file, wholePem);
}

function wholePem(contents: Buffer): string {
  const text = contents.toString('latin1');
  if (!/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/.test(text)) throw new Error('no whole PEM block (cut short?)');
  return text;
}

/** What was wrong with a file, as a report gives it. */
function wrong(found: Unusable): string {
  if (found.state === 'missing') return 'it was missing';
  return found.state === 'empty' ? 'it was empty' : `it could not be parsed: ${found.error}`;
}

type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };

function keyPairOf(privateKey: KeyObject): KeyPair {
  return { privateKey, publicKey: createPublicKey(privateKey) };
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
 * The CA from its files, made when neither exists. A lost or unusable `ca.crt` is rebuilt from `ca.key` (same key
 * and name, so every certificate it issued still chains to it, and a Connector's old copy still verifies them); a
 * lost or unusable `ca.key` cannot be, and a new key beside the old `ca.crt` would issue certificates that chain to
 * nothing, so it is refused by name. One exception: a `ca.key` left unusable by a first start that stopped before
 * it issued anything (no leaf file at all) is nobody's trust yet, and the CA starts afresh.
 */
function loadOrCreateCa(files: PkiFiles, validityDays: number, report: (reissued: Reissued) => void): { issuer: Issuer; wroteCert: boolean } {
  const cert = findCertificate(files.caCert);
  const key = find(files.caKey, (contents) => createPrivateKey(contents));
  if (key.state === 'good') {
    if (cert.state === 'good') return { issuer: existingCa(cert.value.raw, key.value), wroteCert: false };
    const { issuer, certPem } = newCa(CA_NAME, validityDays, ORGANISATION, keyPairOf(key.value));
    writeAtomically(files.caCert, certPem, CERTIFICATE_MODE);
    report({ file: files.caCert, reason: `${wrong(cert)}; rebuilt from ${files.caKey}, so the certificates it issued stay valid` });
    return { issuer, wroteCert: true };
  }
  if (key.state === 'missing' && cert.state !== 'missing') throw new Error(`dev PKI: ${files.caKey} is missing beside ${files.caCert}, so no certificate can be issued: restore it, or delete ${files.dir} to start a new CA`);
  // Both gone while certificates they issued remain: a new CA would leave those chaining to nothing, unannounced.
  if (key.state === 'missing' && anyLeafFile(files)) throw new Error(`dev PKI: ${files.caKey} and ${files.caCert} are missing beside the certificates they issued: restore them, or delete ${files.dir} to start a new CA`);
  if (key.state !== 'missing' && anyLeafFile(files)) {
    const problem = key.state === 'empty' ? 'is empty' : `cannot be parsed (${key.error})`;
    throw new Error(`dev PKI: ${files.caKey} ${problem}, so no certificate can be issued: restore it, or delete ${files.dir} to start a new CA (the certificates it issued then stop verifying)`);
  }
  const { issuer, keyPem, certPem } = newCa(CA_NAME, validityDays);
  writePair({ keyFile: files.caKey, certFile: files.caCert }, { keyPem, certPem });
  if (key.state !== 'missing') report({ file: files.caKey, reason: `${wrong(key)}, and no certificate had been issued from it; a new CA was made` });
  return { issuer, wroteCert: true };
}

/** Whether a certificate may have been issued from the CA: a leaf's file is there, whole or not. */
function anyLeafFile(files: PkiFiles): boolean {
  const clients = path.dirname(files.clientCert('-'));
  const clientFiles = fs.existsSync(clients) ? fs.readdirSync(clients).filter((name) => /\.(crt|key)$/.test(name)) : [];
  return clientFiles.length > 0 || [files.serverCert, files.serverKey, files.bankClientCert, files.bankClientKey].some((file) => fs.existsSync(file));
}

/** The CA as its files hold it: the subject is copied from the certificate, so a leaf names it exactly. */
function existingCa(certDer: Buffer, key: KeyObject): Issuer {
  const tbs = children(readElement(certDer).content)[0];
  // version [0], serialNumber, signature, issuer, validity, subject
  const subject = children(tbs.content)[5].encoded;
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

/** A certificate the CA issues, its two files, and what the configuration asks of an existing one. */
interface Leaf {
  spec: LeafSpec;
  certFile: string;
  keyFile: string;
  /** What an existing certificate lacks of the configuration, if anything (the Bank's own two only). */
  mismatch?: Mismatch;
}

type Mismatch = (cert: X509Certificate) => string | undefined;

/** What a start does with a leaf: `issue` is a first start's (not reported), the others are reported. */
type LeafPlan =
  | { action: 'keep' }
  | { action: 'issue' }
  | { action: 'reissue'; keys: KeyPair; report: Reissued }
  | { action: 'replace'; report: Reissued };

/**
 * What to do with a leaf, from what its files hold. A whole key is kept whenever it can be, and only its
 * certificate issued again (missing beside it, empty, unparsable, or no longer what the configuration asks): a
 * Connector may have pinned nothing on the key, but keeping it is the least surprise. A key that is missing or
 * unusable is replaced with its certificate. A restart with the same settings parses no more than it did (the
 * Bank's two certificates): the rest is checked with findPem.
 */
function planLeaf(leaf: Leaf): LeafPlan {
  const cert = checkCertificate(leaf);
  const key = findPem(leaf.keyFile);
  if (key.state === 'missing' && cert.state === 'missing') return { action: 'issue' };
  if (key.state !== 'good') return replaceKey(leaf, key);
  const problem = cert.state === 'good' ? cert.value : cert.state === 'missing' ? 'it was missing beside its key' : wrong(cert);
  if (problem === undefined) return { action: 'keep' };
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key.value);
  } catch (error) {
    return replaceKey(leaf, { state: 'unparsable', error: shortMessage(error) });
  }
  return { action: 'reissue', keys: keyPairOf(privateKey), report: { file: leaf.certFile, reason: problem } };
}

/**
 * What an existing certificate lacks of the configuration, if anything: parsed (X509Certificate, native) when the
 * configuration asks something of it, the Bank's own two; any other only checked to be whole.
 */
function checkCertificate({ certFile, mismatch }: Leaf): Found<string | undefined> {
  if (mismatch === undefined) {
    return find(certFile, (contents) => {
      wholePem(contents);
      return undefined;
    });
  }
  return find(certFile, (contents) => mismatch(new X509Certificate(contents)));
}

function replaceKey(leaf: Leaf, key: Unusable): LeafPlan {
  return { action: 'replace', report: { file: leaf.keyFile, reason: `${wrong(key)}; a new key and certificate were issued from the existing CA` } };
}

/** Carries a plan out: true when it wrote the leaf's certificate. Reported once written. */
function carryOut(ca: Issuer, leaf: Leaf, plan: LeafPlan, validityDays: number, report: (reissued: Reissued) => void): boolean {
  if (plan.action === 'keep') return false;
  if (plan.action === 'reissue') writeAtomically(leaf.certFile, newLeaf(ca, leaf.spec, validityDays, plan.keys).certPem, CERTIFICATE_MODE);
  else writePair(leaf, newLeaf(ca, leaf.spec, validityDays));
  if (plan.action !== 'issue') report(plan.report);
  return true;
}

/** A certificate issued by `ca`, in memory, for a new key pair unless `keys` are given. */
function newLeaf(ca: Issuer, spec: LeafSpec, validityDays: number, keys = newKeyPair()): { certPem: string; keyPem: string } {
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
  const { certPem, keyPem } = newLeaf(issuer, { commonName, serverAuth: false, clientAuth: true, names: [commonName] }, 1);
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
 * What the Bank's existing server certificate lacks of TLS_SERVER_NAMES. Read with node's X509Certificate (native:
 * ~1-2 ms for both Bank certificates, cold), so a restart with the same settings stays cheap. A server certificate
 * with more names than configured is left as it is: every configured name still checks.
 */
function serverMismatch(serverNames: readonly string[]): Mismatch {
  return (cert) => {
    const present = subjectAltNames(cert);
    const missing = serverNames.filter((serverName) => !present.has(sanKey(serverName)));
    return missing.length > 0 ? `its SAN lacks ${missing.join(', ')} (TLS_SERVER_NAMES)` : undefined;
  };
}

/** Whether the Bank's existing client certificate is still BANK_CLIENT_ID's. */
function bankClientMismatch(bankClientId: string): Mismatch {
  return (cert) => {
    const cn = commonName(cert);
    return cn !== bankClientId ? `its CN is ${JSON.stringify(cn)}, BANK_CLIENT_ID is ${JSON.stringify(bankClientId)}` : undefined;
  };
}

/** A reported `.key` was replaced with its certificate (a new key: the reason says so); a `.crt` kept its key. */
function warnReissued({ file, reason }: Reissued): void {
  const done = file.endsWith('.key') ? `replaced ${file}` : `reissued ${file} from the existing CA (same key)`;
  process.emitWarning(`dev PKI: ${done}: ${reason}`, { code: 'SANDBOX_BANK_PKI_REISSUED' });
}

/**
 * Creates whatever is missing, reissues the Bank's server or client certificate when it no longer matches
 * TLS_SERVER_NAMES or BANK_CLIENT_ID (from the existing CA, with the existing key: the CA and every client
 * certificate stay as they are), and issues again what a crash or a full disk left unusable (planLeaf,
 * loadOrCreateCa). Returns the certificates it wrote: none on a restart with the same settings.
 */
export async function ensureDevPki(options: DevPkiOptions): Promise<DevPki> {
  const files = pkiFiles(options.dir);
  const validityDays = options.validityDays ?? 825;
  // A client id given twice would be issued twice, the second pair over the first.
  const leaves = [serverLeaf(files, options.serverNames), bankClientLeaf(files, options.bankClientId), ...[...new Set(options.clientIds)].map((clientId) => clientLeaf(files, clientId))];
  const caReady = findPem(files.caCert).state === 'good';
  const plans = leaves.map(planLeaf);
  if (caReady && plans.every((plan) => plan.action === 'keep')) return { files, created: [], reissued: [] };
  const reissued: Reissued[] = [];
  const report = (done: Reissued) => {
    reissued.push(done);
    (options.onReissue ?? warnReissued)(done);
  };
  const ca = loadOrCreateCa(files, validityDays, report);
  const created = ca.wroteCert ? [files.caCert] : [];
  leaves.forEach((leaf, index) => {
    if (carryOut(ca.issuer, leaf, plans[index], validityDays, report)) created.push(leaf.certFile);
  });
  return { files, created, reissued };
}

/** The Bank's HTTPS listener: every name of TLS_SERVER_NAMES, beside the local ones. */
function serverLeaf(files: PkiFiles, extraNames: readonly string[]): Leaf {
  const names = [...new Set([...LOCAL_NAMES, ...extraNames])];
  const spec = { commonName: 'sandbox-bank', serverAuth: true, clientAuth: false, names };
  return { spec, certFile: files.serverCert, keyFile: files.serverKey, mismatch: serverMismatch(names) };
}

/** What the Bank presents when it calls a Connector: CN = BANK_CLIENT_ID, which the Connector compares. */
function bankClientLeaf(files: PkiFiles, bankClientId: string): Leaf {
  const spec = { commonName: bankClientId, serverAuth: false, clientAuth: true, names: LOCAL_NAMES };
  return { spec, certFile: files.bankClientCert, keyFile: files.bankClientKey, mismatch: bankClientMismatch(bankClientId) };
}

/**
 * A client's certificate (CN = client id) also serves HTTPS, on localhost and on the client id as a host name
 * (a compose service named after the client), so a Connector can use one certificate for both directions.
 */
function clientLeaf(files: PkiFiles, clientId: string): Leaf {
  const hostName = /^[A-Za-z0-9-]{1,63}$/.test(clientId) ? [clientId] : [];
  const spec = { commonName: clientId, serverAuth: true, clientAuth: true, names: [...LOCAL_NAMES, ...hostName] };
  return { spec, certFile: files.clientCert(clientId), keyFile: files.clientKey(clientId) };
}

/** `npm run pki -- --client <id>`: one more client certificate from the existing sandbox CA. */
export async function issueOneClientCertificate(dir: string, clientId: string, validityDays = 825): Promise<{ cert: string; key: string; created: boolean }> {
  const files = pkiFiles(dir);
  if (!fs.existsSync(files.caCert) && !fs.existsSync(files.caKey)) throw new Error(`no sandbox CA in ${dir}: start the bank once first`);
  const ca = loadOrCreateCa(files, validityDays, warnReissued);
  const client = clientLeaf(files, clientId);
  const created = carryOut(ca.issuer, client, planLeaf(client), validityDays, warnReissued);
  return { cert: client.certFile, key: client.keyFile, created };
}
