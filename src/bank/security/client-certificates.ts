// Client certificates for clients registered at run time (control-plane.md section 1; profile v1.1 section 4: a
// client's certificate may be issued lazily). They come from the dev PKI the Bank's HTTPS listener uses
// (PKI_DIR, default <DATA_DIR>/pki, as src/bank/tls.ts prepares it); a Bank built before any listener prepared
// that PKI (tests, or a first registration) creates it there on first need, exactly as a first start would.
// With an external CA (TLS_CA_FILE) the Bank has no CA key to issue with, and says so instead.
import fs from 'node:fs';
import { BankConfig } from '../config';
import { pkiDirectory } from '../tls';
import { ensureDevPki, pkiFiles } from './pki';

export interface IssuedCertificate {
  certificatePem: string;
  keyPem: string;
  caPem: string;
  /** The files on the Bank's side, for the log and the examples. */
  files: { cert: string; key: string; ca: string };
}

/** Why no certificate can be issued. */
export interface NoCertificate {
  unavailable: string;
}

export interface ClientCertificatesOptions {
  /** The dev PKI directory, or why there is none. */
  pki: { dir: string } | NoCertificate;
  bankClientId: string;
  serverNames: readonly string[];
}

/** The dev PKI this Bank issues client certificates from (the one its HTTPS listener uses), or why none. */
export function devPkiOf(config: BankConfig): ClientCertificatesOptions['pki'] {
  if (config.tlsCaFile) return { unavailable: 'the Bank uses an external CA (TLS_CA_FILE): its owner issues client certificates' };
  if (config.dataDir === ':memory:' && !config.pkiDir) return { unavailable: 'DATA_DIR is :memory: and PKI_DIR is unset: this Bank has no dev PKI' };
  return { dir: pkiDirectory(config) };
}

export class ClientCertificates {
  /** Issuance is serialised: two registrations at once must not both create the CA. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ClientCertificatesOptions) {}

  /** The client's certificate (CN = client id) and key, issued now unless they exist, and the CA certificate. */
  issue(clientId: string): Promise<IssuedCertificate | NoCertificate> {
    const { pki } = this.options;
    if ('unavailable' in pki) return Promise.resolve(pki);
    const next = this.queue.then(async () => {
      await ensureDevPki({ dir: pki.dir, bankClientId: this.options.bankClientId, clientIds: [clientId], serverNames: this.options.serverNames });
      const files = pkiFiles(pki.dir);
      const paths = { cert: files.clientCert(clientId), key: files.clientKey(clientId), ca: files.caCert };
      return {
        certificatePem: fs.readFileSync(paths.cert, 'utf8'),
        keyPem: fs.readFileSync(paths.key, 'utf8'),
        caPem: fs.readFileSync(paths.ca, 'utf8'),
        files: paths,
      };
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
