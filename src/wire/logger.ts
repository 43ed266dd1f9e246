// Logging for both sides (winston). Callers log ids and outcomes only: never tokens, secrets, keys or signatures.
//
// Two formats of the same events: JSON lines for machines (the default when standard output is not a terminal:
// files, pipes, containers, CI), and one readable line per event for a person at a terminal: time, level (coloured
// on a terminal), message, then the meta as key=value. LOG_FORMAT (CONNECTOR_LOG_FORMAT) forces either.
import winston from 'winston';

/** `auto`: pretty when standard output is a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];
export type LogFormat = Exclude<LogFormatSetting, 'auto'>;

/** The format a setting means for an output that is, or is not, a terminal. */
export function chooseLogFormat(setting: LogFormatSetting, isTty: boolean): LogFormat {
  if (setting === 'auto') return isTty ? 'pretty' : 'json';
  return setting;
}

/** Level colours only on a terminal (a forced `pretty` into a file stays plain), and never under NO_COLOR. */
export function useColours(isTty: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return isTty && !env.NO_COLOR;
}

/** Written first, in this order, when present: what a reader scans a line for. The rest follows as logged. */
const LEADING_KEYS = ['method', 'path', 'status', 'code', 'ms', 'client_id', 'reference'];
/** On every line, or already shown: not repeated as key=value. */
const HIDDEN_KEYS = new Set(['level', 'message', 'timestamp', 'service']);
const LEVEL_WIDTH = 5;

/** A bare word when it reads unambiguously, else a JSON string (quotes, escapes, newlines kept on one line). */
function plainValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"'=\\]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  if (value === null || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

function metaPairs(info: Record<string, unknown>): string[] {
  const keys = Object.keys(info).filter((key) => !HIDDEN_KEYS.has(key) && info[key] !== undefined);
  const leading = LEADING_KEYS.filter((key) => keys.includes(key));
  const rest = keys.filter((key) => !LEADING_KEYS.includes(key));
  return [...leading, ...rest].map((key) => `${key}=${plainValue(info[key])}`);
}

/** `HH:MM:SS.mmmZ` of the ISO timestamp (UTC, like the journal and the events): the date adds little at a terminal. */
function clockTime(timestamp: unknown): string {
  return typeof timestamp === 'string' && timestamp.length >= 24 ? timestamp.slice(11, 24) : String(timestamp ?? '');
}

/**
 * One event as one line: `12:04:05.123Z info  request method=POST path=/payment-orders status=201 ms=1.2 …`.
 * `level` may already carry colour codes (format.colorize); `rawLevel` pads it to one width either way.
 */
export function prettyLine(info: Record<string, unknown>, rawLevel: string): string {
  const padding = ' '.repeat(Math.max(0, LEVEL_WIDTH - rawLevel.length));
  const message = typeof info.message === 'string' ? info.message : plainValue(info.message);
  return [clockTime(info.timestamp), `${String(info.level)}${padding}`, message, ...metaPairs(info)].join(' ');
}

/** winston's triple-beam key of the level before colorize changed `level`. */
const LEVEL = Symbol.for('level');

/** The winston format of `format`; colorize is winston's own, the line is ours. */
export function logFormat(format: LogFormat, colours: boolean): winston.Logform.Format {
  const { combine, timestamp, json, colorize, printf } = winston.format;
  if (format === 'json') return combine(timestamp(), json());
  const line = printf((info) => prettyLine(info, String((info as Record<symbol, unknown>)[LEVEL] ?? info.level)));
  return colours ? combine(timestamp(), colorize({ level: true }), line) : combine(timestamp(), line);
}

export interface LoggerOptions {
  /** `auto` (the default) decides by standard output: JSON lines unless it is a terminal. */
  format?: LogFormatSetting;
  /** Tagged on every line (`service`); the reference Connector says `reference-connector`. */
  service?: string;
}

export function createLogger(level: string, silent = false, options: LoggerOptions = {}): winston.Logger {
  const isTty = Boolean(process.stdout.isTTY);
  return winston.createLogger({
    level,
    silent,
    format: logFormat(chooseLogFormat(options.format ?? 'auto', isTty), useColours(isTty)),
    defaultMeta: { service: options.service ?? 'sandbox-bank' },
    transports: [new winston.transports.Console()],
  });
}
