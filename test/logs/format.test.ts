// Issue 13 (5/7), logs: which format a setting means on a terminal or not, and what each format writes. The
// terminal is injected here; test/logs/child-process.test.ts runs the real Bank with and without one.
import { Writable } from 'node:stream';
import winston from 'winston';
import { chooseLogFormat, LogFormat, logFormat, prettyLine, useColours } from '../../src/wire/logger';
import { loadConfig } from '../../src/bank/config';
import { loadConnectorConfig } from '../../src/connector/config';

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[\\d+m`, 'g');

/** A winston logger in `format` writing into an array, one entry per line. */
function capture(format: LogFormat, colours: boolean): { logger: winston.Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line.length > 0));
      done();
    },
  });
  const logger = winston.createLogger({
    level: 'debug',
    format: logFormat(format, colours),
    defaultMeta: { service: 'sandbox-bank' },
    transports: [new winston.transports.Stream({ stream: sink })],
  });
  return { logger, lines };
}

const ACCESS = { request_id: 'req-1', method: 'POST', path: '/payment-orders', status: 201, ms: 1.23456, client_id: 'demo-connector', code: undefined };

describe('choosing the format', () => {
  it('auto is pretty on a terminal and JSON lines elsewhere', () => {
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat('auto', false)).toBe('json');
  });

  it('LOG_FORMAT=json or pretty wins over the terminal', () => {
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });

  it('colours only on a terminal, and not under NO_COLOR', () => {
    expect(useColours(true, {})).toBe(true);
    expect(useColours(false, {})).toBe(false);
    expect(useColours(true, { NO_COLOR: '1' })).toBe(false);
  });
});

describe('the settings', () => {
  it('LOG_FORMAT (the Bank) and CONNECTOR_LOG_FORMAT (the reference Connector) default to auto', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConnectorConfig({}).logFormat).toBe('auto');
    expect(loadConnectorConfig({ CONNECTOR_LOG_FORMAT: 'json' }).logFormat).toBe('json');
  });

  it('refuse another value, naming the variable', () => {
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
    expect(() => loadConnectorConfig({ CONNECTOR_LOG_FORMAT: 'colour' })).toThrow(/CONNECTOR_LOG_FORMAT/);
  });
});

describe('the pretty format', () => {
  it('writes time, level, message, then the meta as key=value on one line', () => {
    const { logger, lines } = capture('pretty', false);
    logger.info('request', ACCESS);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3}Z info  request method=POST path=\/payment-orders status=201 ms=1\.235 client_id=demo-connector request_id=req-1$/);
    expect(() => JSON.parse(lines[0])).toThrow();
  });

  it('colours the level with winston colorize, and keeps the columns aligned', () => {
    const { logger, lines } = capture('pretty', true);
    logger.info('one');
    logger.error('two');
    expect(lines[0]).toContain(`${ESC}[32minfo${ESC}[39m`);
    expect(lines[1]).toContain(`${ESC}[31merror${ESC}[39m`);
    const plain = lines.map((line) => line.replace(ANSI, ''));
    expect(plain[0].indexOf('one')).toBe(plain[1].indexOf('two'));
  });

  it('quotes values with spaces, writes objects as JSON and keeps a stack on the same line', () => {
    const { logger, lines } = capture('pretty', false);
    logger.error('unhandled error', { request_id: 'r', error: 'Error: boom\n    at f (x.js:1:1)', checks: { database: true }, detail: 'a "quoted" word' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(' error unhandled error request_id=r error="Error: boom\\n    at f (x.js:1:1)" checks={"database":true} detail="a \\"quoted\\" word"');
  });

  it('leaves out the service and undefined meta', () => {
    const line = prettyLine({ level: 'warn', message: 'm', timestamp: '2026-11-22T00:28:07.532Z', service: 'sandbox-bank', client_id: undefined }, 'warn');
    expect(line).toBe('00:28:07.532Z warn  m');
  });
});

describe('the JSON format', () => {
  it('writes one JSON object per line with level, message, service, timestamp and the meta', () => {
    const { logger, lines } = capture('json', false);
    logger.info('request', ACCESS);
    logger.warn('multi\nline message', { detail: 'x' });
    expect(lines).toHaveLength(2);
    const [access, warning] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(access).toMatchObject({ level: 'info', message: 'request', service: 'sandbox-bank', status: 201, client_id: 'demo-connector' });
    expect(typeof access.timestamp).toBe('string');
    expect(warning).toMatchObject({ level: 'warn', message: 'multi\nline message' });
  });
});
