// `npm run connector`: reads the environment, starts the reference Connector and stops cleanly on SIGTERM/SIGINT.
// What it shows a Connector team: refuse to start on bad configuration (exit 2, naming the variable), log JSON
// lines, and on SIGTERM stop accepting requests and finish the reverse-polling pass in progress before exiting.
import { ConfigError } from '../wire/settings';
import { loadConnectorConfig } from './config';
import { connectorLogger, startReferenceConnector } from './connector';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConnectorConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`reference-connector: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = connectorLogger(config.logLevel);
  const connector = await startReferenceConnector(config, { logger });
  const stop = async (signal: string) => {
    logger.info('stopping', { signal });
    await connector.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`reference-connector: failed to start: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
