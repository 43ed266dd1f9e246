// A listener that cannot have its address says which setting names it and what to do (wire/http-edge.ts listen),
// and a start refused that way gives its data directory back (wire/data-dir-lock.ts).
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { listen } from '../../src/wire/http-edge';
import { startConnector, unreachableUrl } from '../connector/helpers';
import { tempDir } from '../helpers/bank';

async function occupiedPort(): Promise<{ port: number; close(): Promise<void> }> {
  const holder = http.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  return { port: (holder.address() as AddressInfo).port, close: () => new Promise((resolve) => holder.close(() => resolve())) };
}

describe('listen', () => {
  it('names the setting of a port in use', async () => {
    const held = await occupiedPort();
    try {
      await expect(listen(http.createServer(), held.port, '127.0.0.1', { port: 'PORT', host: 'HOST' })).rejects.toThrow(
        `PORT ${held.port} on 127.0.0.1 is already in use by another process: stop it, or set PORT to a free port (0 picks one)`,
      );
    } finally {
      await held.close();
    }
  });

  it('names the host setting of an address this machine does not have', async () => {
    await expect(listen(http.createServer(), 0, '192.0.2.1', { port: 'PORT', host: 'HOST' })).rejects.toThrow(
      'PORT 0 on 192.0.2.1: 192.0.2.1 is not an address of this machine: set HOST to one that is (0.0.0.0 for all)',
    );
  });

  it('resolves the port it took', async () => {
    const server = http.createServer();
    const port = await listen(server, 0, '127.0.0.1');
    expect(port).toBe((server.address() as AddressInfo).port);
    await new Promise((resolve) => server.close(resolve));
  });

  it('a reference Connector refused its port frees its data directory for the next start', async () => {
    const held = await occupiedPort();
    const dataDir = tempDir('reference-connector-test-');
    const bankUrl = await unreachableUrl();
    try {
      await expect(startConnector(bankUrl, { CONNECTOR_DATA_DIR: dataDir, CONNECTOR_PORT: String(held.port) })).rejects.toThrow(
        `CONNECTOR_PORT ${held.port} on 127.0.0.1 is already in use`,
      );
    } finally {
      await held.close();
    }
    const connector = await startConnector(bankUrl, { CONNECTOR_DATA_DIR: dataDir });
    await connector.close();
  });
});
