// `npm run connector`: reads the environment, starts the reference Connector and stops cleanly on SIGTERM/SIGINT.
// What it shows a Connector team: refuse to start on bad configuration (exit 2, naming the variable), log JSON
// lines (readable ones on a terminal), and on SIGTERM stop accepting requests and finish the reverse-polling pass in progress before exiting.
// The skeleton (exit codes, signals) is the one the Bank's main uses too (wire/run-main).
import { runMain } from '../wire/run-main';
import { loadConnectorConfig } from './config';
import { connectorLogger, startReferenceConnector } from './connector';

runMain('reference-connector', () => loadConnectorConfig(process.env), async (config) => {
  const logger = connectorLogger(config.logLevel, false, config.logFormat);
  const connector = await startReferenceConnector(config, { logger });
  return {
    logger,
    async stop(signal) {
      logger.info('stopping', { signal });
      await connector.close();
    },
  };
});
