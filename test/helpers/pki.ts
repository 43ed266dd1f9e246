// A throwaway PKI built with the openssl CLI, and an HTTPS (mTLS) listener around a Bank's app, so the
// transport checks of reverse polling can be exercised without the Bank's own listeners.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import type express from 'express';
import { tempDir } from './bank';
import type { HeaderValue, RawResponse } from './wire';

export function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface Pem {
  key: string;
  cert: string;
}

export interface TestCa extends Pem {
  dir: string;
  issue(commonName: string): Pem;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

export function createCa(name = 'test-ca'): TestCa {
  const dir = tempDir('sandbox-bank-pki-');
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', `/CN=${name}`, '-days', '2']);
  let serial = 0;
  const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
  return {
    dir,
    key: read('ca.key'),
    cert: read('ca.crt'),
    issue(commonName: string): Pem {
      serial += 1;
      const base = `leaf-${serial}`;
      openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${commonName}`]);
      fs.writeFileSync(path.join(dir, `${base}.ext`), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
      openssl(dir, ['x509', '-req', '-in', `${base}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', String(1000 + serial), '-out', `${base}.crt`, '-days', '2', '-extfile', `${base}.ext`]);
      return { key: read(`${base}.key`), cert: read(`${base}.crt`) };
    },
  };
}

export interface MtlsListener {
  port: number;
  close(): Promise<void>;
}

/** HTTPS listener that asks for a client certificate and verifies it against `ca` (unverified ones still connect). */
export async function listenMtls(app: express.Express, ca: TestCa, server: Pem): Promise<MtlsListener> {
  const listener = https.createServer({ key: server.key, cert: server.cert, ca: ca.cert, requestCert: true, rejectUnauthorized: false }, app);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        listener.closeAllConnections();
        listener.close(() => resolve());
      }),
  };
}

export function httpsRequest(
  port: number,
  ca: string,
  request: { method: string; path: string; headers: Record<string, HeaderValue | undefined>; clientCert?: Pem },
): Promise<RawResponse> {
  const headers: Record<string, HeaderValue> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = value;
  return new Promise<RawResponse>((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers, ca, servername: 'localhost', agent: false, key: request.clientCert?.key, cert: request.clientCert?.cert },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes, text: bytes.toString('utf8'), json: <T>() => JSON.parse(bytes.toString('utf8')) as T });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
