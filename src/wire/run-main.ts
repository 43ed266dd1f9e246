// The process entry both sides share: settings from the environment (a bad one: exit 2, naming the variable),
// start, and on SIGTERM/SIGINT a graceful stop, then exit 0. Failing to start: exit 1.
import type { Logger } from 'winston';
import { ConfigError } from './settings';

export interface Running {
  logger: Logger;
  /** Stops accepting work and finishes what is in flight; runMain then logs "stopped" and exits 0. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/** `name` prefixes what goes to stderr; `loadConfig` throws ConfigError on a bad setting. */
export function runMain<C>(name: string, loadConfig: () => C, start: (config: C) => Promise<Running>): void {
  const main = async () => {
    let config: C;
    try {
      config = loadConfig();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(2);
    }
    const running = await start(config);
    const stop = async (signal: NodeJS.Signals) => {
      await running.stop(signal);
      running.logger.info('stopped');
      process.exit(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  };
  main().catch((error: unknown) => {
    process.stderr.write(`${name}: failed to start: ${(error as Error)?.message ?? String(error)}\n`);
    process.exit(1);
  });
}
