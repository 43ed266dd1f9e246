// A loopback TCP forwarder whose backend can be switched while it runs: one stable Connector URL in front of
// several fake Connectors (a frozen callback keeps its URL, so a test swaps the server behind it, e.g. a TLS
// server with a foreign certificate, then the right one).
import net, { AddressInfo } from 'node:net';

export class TcpSwitch {
  private server: net.Server | null = null;
  private readonly open = new Set<net.Socket>();
  /** Backend port; null refuses connections (closes them at once). */
  backend: number | null = null;
  connections = 0;
  port = 0;

  /** Listens on `port` (0: any free port). */
  async start(backend: number | null = null, port = 0): Promise<number> {
    this.backend = backend;
    this.server = net.createServer((client) => {
      this.connections += 1;
      this.open.add(client);
      client.on('close', () => this.open.delete(client));
      client.on('error', () => client.destroy());
      if (this.backend === null) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.backend, '127.0.0.1');
      this.open.add(upstream);
      upstream.on('close', () => {
        this.open.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  /** Points new connections at `backend` and cuts the current ones (keep-alive sockets included). */
  switchTo(backend: number | null): void {
    this.backend = backend;
    for (const socket of this.open) socket.destroy();
  }

  async stop(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Port of a FakeConnector (or any server) from its URL. */
export function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** A loopback port that nothing listens on (yet). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
