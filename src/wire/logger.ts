// JSON-lines logging. Callers log ids and outcomes only: never tokens, secrets, keys or signatures.
import winston from 'winston';

export function createLogger(level: string, silent = false): winston.Logger {
  return winston.createLogger({
    level,
    silent,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'sandbox-bank' },
    transports: [new winston.transports.Console()],
  });
}
