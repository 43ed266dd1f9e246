// TLS material for the HTTPS listener and for callbacks: the dev PKI by default, or external files.
import fs from 'node:fs';
import path from 'node:path';
import type { SecureContextOptions } from 'node:tls';
import { BankConfig } from './config';
import { ConnectorTls } from './outbound/connectors';
import { DevPkiOptions, ensureDevPki, PkiFiles } from './security/pki';

export interface TlsMaterial {
  server: SecureContextOptions;
  connector: ConnectorTls;
  /** The dev PKI's files, when it is in use. */
  pki: PkiFiles | null;
  created: string[];
}

function read(file: string, variable: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new Error(`${variable} ${file}: ${(error as Error).message}`);
  }
}

export function pkiDirectory(config: BankConfig): string {
  return config.pkiDir ?? path.join(config.dataDir, 'pki');
}

export async function prepareTls(config: BankConfig, clientIds: readonly string[], onReissue?: DevPkiOptions['onReissue']): Promise<TlsMaterial> {
  if (config.tlsCaFile && config.tlsCertFile && config.tlsKeyFile) {
    const ca = read(config.tlsCaFile, 'TLS_CA_FILE');
    return {
      server: { ca, cert: read(config.tlsCertFile, 'TLS_CERT_FILE'), key: read(config.tlsKeyFile, 'TLS_KEY_FILE') },
      connector: {
        ca,
        cert: config.tlsClientCertFile ? read(config.tlsClientCertFile, 'TLS_CLIENT_CERT_FILE') : undefined,
        key: config.tlsClientKeyFile ? read(config.tlsClientKeyFile, 'TLS_CLIENT_KEY_FILE') : undefined,
      },
      pki: null,
      created: [],
    };
  }
  const dir = pkiDirectory(config);
  let pki;
  try {
    pki = await ensureDevPki({ dir, bankClientId: config.bankClientId, clientIds, serverNames: config.tlsServerNames, onReissue });
  } catch (error) {
    throw new Error(`cannot prepare the dev PKI in ${dir} (PKI_DIR, default <DATA_DIR>/pki): ${(error as Error).message}`);
  }
  const { files, created } = pki;
  const ca = fs.readFileSync(files.caCert);
  return {
    server: { ca, cert: fs.readFileSync(files.serverCert), key: fs.readFileSync(files.serverKey) },
    connector: { ca, cert: fs.readFileSync(files.bankClientCert), key: fs.readFileSync(files.bankClientKey) },
    pki: files,
    created,
  };
}
