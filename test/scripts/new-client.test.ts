// scripts/new-client.js registers a client in a clients file and writes its credentials beside it. An option put
// where the id belongs must not become a client: `--help` once registered a client called "--help".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../helpers/bank';

function newClient(args: string[], cwd: string) {
  return spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'new-client.js'), ...args], { cwd, encoding: 'utf8' });
}

describe('scripts/new-client.js', () => {
  it.each([['--help'], ['-h']])('%s prints the usage, exits 0 and writes nothing', (flag) => {
    const dir = tempDir('new-client-');
    const result = newClient([flag], dir);
    expect([result.status, result.stdout.trim()]).toEqual([0, expect.stringMatching(/^usage: node scripts\/new-client\.js <client-id>/)]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses an option where the id belongs (exit 2), writing nothing', () => {
    const dir = tempDir('new-client-');
    const result = newClient(['--clients', path.join(dir, 'clients.json')], dir);
    expect([result.status, result.stderr.trim()]).toEqual([2, expect.stringMatching(/^usage:/)]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('registers a client: its public part in the clients file, its secrets in <id>/credentials.json beside it', () => {
    const dir = tempDir('new-client-');
    const clients = path.join(dir, 'clients.json');
    expect(newClient(['acme-1', '--clients', clients], dir).status).toBe(0);
    const registry = JSON.parse(fs.readFileSync(clients, 'utf8')) as { clients: { client_id: string; jwks: { keys: Record<string, unknown>[] } }[] };
    expect(registry.clients.map((client) => client.client_id)).toEqual(['acme-1']);
    expect(registry.clients[0].jwks.keys[0]).not.toHaveProperty('d');
    const credentials = JSON.parse(fs.readFileSync(path.join(dir, 'acme-1', 'credentials.json'), 'utf8')) as { client_id: string; private_jwk: Record<string, unknown> };
    expect(credentials.client_id).toBe('acme-1');
    expect(credentials.private_jwk).toHaveProperty('d');
  });
});
