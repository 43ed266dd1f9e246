// A winston logger that keeps each JSON line it writes, for tests that read what was logged.
import { Writable } from 'node:stream';
import winston from 'winston';

export type LogLine = Record<string, unknown>;

export function capturingLogger(level = 'info'): { logger: winston.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) if (text) lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  const logger = winston.createLogger({ level, format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
  return { logger, lines };
}
