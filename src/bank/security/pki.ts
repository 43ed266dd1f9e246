// The development PKI (profile section 4): a sandbox CA, the Bank's server and client certificates, and one
// certificate per registered client (CN = client id). ECDSA P-256. Existing files are reused, never overwritten.
// node:crypto generates the keys and signs; the certificates themselves (X.509 v3, RFC 5280) are laid out by
// hand in DER (der.ts): an X.509 library cost ~0.2 s to load on every first start, this path ~1 ms per
// certificate, so the whole PKI is made before the listeners start, as before.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';
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

function loadOrCreateCa(files: PkiFiles, validityDays: number): Issuer {
  if (exists(files.caCert, files.caKey)) return existingCa(fs.readFileSync(files.caCert, 'utf8'), fs.readFileSync(files.caKey, 'utf8'));
  const { issuer, keyPem, certPem } = newCa('Sandbox Bank Development CA', validityDays);
  writeNew(files.caKey, keyPem, 0o600);
  writeNew(files.caCert, certPem, 0o644);
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

/** A self-signed CA, in memory. */
function newCa(commonName: string, validityDays: number, organisation = ORGANISATION): { issuer: Issuer; keyPem: string; certPem: string } {
  const keys = newKeyPair();
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

/** A certificate issued by `ca`, in memory. */
function leaf(ca: Issuer, spec: LeafSpec, validityDays: number): { certPem: string; keyPem: string } {
  const keys = newKeyPair();
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

/** Creates whatever is missing; returns the files it wrote (empty on a restart). */
export async function ensureDevPki(options: DevPkiOptions): Promise<{ files: PkiFiles; created: string[] }> {
  const files = pkiFiles(options.dir);
  const validityDays = options.validityDays ?? 825;
  const wanted = [files.caCert, files.serverCert, files.bankClientCert, ...options.clientIds.map(files.clientCert)];
  const before = new Set(wanted.filter((file) => fs.existsSync(file)));
  if (before.size === wanted.length) return { files, created: [] };
  const ca = loadOrCreateCa(files, validityDays);
  const serverNames = [...new Set([...LOCAL_NAMES, ...options.serverNames])];
  issueLeaf(ca, { commonName: 'sandbox-bank', serverAuth: true, clientAuth: false, names: serverNames }, files.serverCert, files.serverKey, validityDays);
  issueLeaf(ca, { commonName: options.bankClientId, serverAuth: false, clientAuth: true, names: LOCAL_NAMES }, files.bankClientCert, files.bankClientKey, validityDays);
  for (const clientId of options.clientIds) issueClientCertificate(ca, files, clientId, validityDays);
  return { files, created: wanted.filter((file) => !before.has(file)) };
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
  if (!exists(files.caCert, files.caKey)) throw new Error(`no sandbox CA in ${dir}: start the bank once first`);
  const ca = loadOrCreateCa(files, validityDays);
  const created = issueClientCertificate(ca, files, clientId, validityDays);
  return { cert: files.clientCert(clientId), key: files.clientKey(clientId), created };
}
