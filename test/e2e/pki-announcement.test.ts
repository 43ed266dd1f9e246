// Issue 2/7: the `dev PKI ready` line names the registered clients' certificate files, not the demo fixture's.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../helpers/bank';
import { kill, startChildBank } from '../helpers/child-bank';
import { makeTestClient, writeClientsFile } from '../helpers/clients';

interface Announcement {
  client_certs: Record<string, { cert: string; key: string }>;
  reverse_polling_curl: string | null;
}

async function announcementFor(clientsFile: string): Promise<Announcement> {
  const dataDir = tempDir();
  const bank = await startChildBank({ DATA_DIR: dataDir, CLIENTS_FILE: clientsFile });
  try {
    return JSON.parse(bank.logs.find((line) => line.includes('"dev PKI ready"')) as string) as Announcement;
  } finally {
    await kill(bank, 'SIGTERM');
  }
}

describe('dev PKI announcement', () => {
  it('without demo-connector, names the registered client files and a curl with its certificate', async () => {
    const announcement = await announcementFor(writeClientsFile([makeTestClient('acme-connector')], { includeDemo: false }));
    expect(Object.keys(announcement.client_certs)).toEqual(['acme-connector']);
    const { cert, key } = announcement.client_certs['acme-connector'];
    expect(path.basename(cert)).toBe('acme-connector.crt');
    expect(fs.existsSync(cert) && fs.existsSync(key)).toBe(true);
    expect(announcement.reverse_polling_curl).toContain(`--cert ${cert} --key ${key}`);
    expect(announcement.reverse_polling_curl).toContain('CREDENTIALS_FILE=');
    expect(JSON.stringify(announcement)).not.toContain('demo-connector');
  });

  it('with demo-connector among others, lists every client and keeps the demo curl', async () => {
    const announcement = await announcementFor(writeClientsFile([makeTestClient('acme-connector')], { includeDemo: true }));
    expect(Object.keys(announcement.client_certs).sort()).toEqual(['acme-connector', 'demo-connector']);
    expect(announcement.reverse_polling_curl).toMatch(/^node scripts\/signed-headers\.js .* --cert \S+demo-connector\.crt/);
  });
});

describe('a reissued certificate at start', () => {
  it('is a warning in the JSON log (file and reason), not only on standard error', async () => {
    const dataDir = tempDir();
    const first = await startChildBank({ DATA_DIR: dataDir });
    await kill(first, 'SIGTERM');
    const second = await startChildBank({ DATA_DIR: dataDir, TLS_SERVER_NAMES: 'bank.internal' });
    try {
      const line = second.logs.find((logged) => logged.includes('reissued a certificate'));
      expect(line && JSON.parse(line)).toMatchObject({ level: 'warn', file: expect.stringMatching(/bank-server\.crt$/), reason: expect.stringContaining('bank.internal') });
    } finally {
      await kill(second, 'SIGTERM');
    }
  });
});

describe('the announced reverse poll, pasted into a shell', () => {
  it('works when the data directory has a space and a colon in its path (curl reads "file:password" in --cert)', async () => {
    const dataDir = path.join(tempDir(), 'data dir:1');
    const bank = await startChildBank({ DATA_DIR: dataDir, SANDBOX_MODE: 'relaxed' });
    try {
      const announcement = JSON.parse(bank.logs.find((line) => line.includes('"dev PKI ready"')) as string) as Announcement;
      const curl = (announcement.reverse_polling_curl as string).replace(/ORDER_REF/g, 'NO-SUCH-ORDER');
      const pasted = spawnSync('bash', ['-c', `${curl} -w '\\n%{http_code}'`], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
      expect(pasted.stderr).toBe('');
      // Past mutual TLS (403 mtls_required without the certificate) to the order lookup.
      const [body, code] = pasted.stdout.trim().split('\n');
      expect([code, JSON.parse(body).code]).toEqual(['404', 'order_not_found']);
    } finally {
      await kill(bank, 'SIGTERM');
    }
  });
});
