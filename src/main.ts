// Entry point: reads the configuration, starts the Bank's listeners and stops cleanly on SIGTERM/SIGINT.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { createBank } from './bank';
import { ConfigError, loadConfig } from './config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`sandbox-bank: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const bank = await createBank(config);
  const server = http.createServer(bank.app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const port = (server.address() as AddressInfo).port;
  const housekeeping = setInterval(bank.housekeeping, 60_000);
  housekeeping.unref();
  bank.outbound.start();
  bank.logger.info('sandbox bank listening', {
    http: `http://localhost:${port}`,
    data_dir: config.dataDir,
    mode: config.sandboxMode,
    kid: bank.signer.kid,
    clients: bank.registry.all().map((client) => client.id),
  });
  const stop = async (signal: string) => {
    bank.logger.info('stopping: no new pulls, waiting for in-flight deliveries', { signal, timeout_ms: config.shutdownTimeoutMs });
    clearInterval(housekeeping);
    server.close();
    server.closeIdleConnections();
    await bank.outbound.stop(config.shutdownTimeoutMs);
    bank.close();
    bank.logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox-bank: failed to start: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
