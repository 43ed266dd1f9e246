// Logging for both sides (winston). Callers log ids and outcomes only: never tokens, secrets, keys or signatures.
//
// Two formats of the same events: JSON lines for machines (the default when standard output is not a terminal:
// files, pipes, containers, CI), and one readable line per event for a person at a terminal: time, level (coloured
// on a terminal), message, then the meta as key=value. LOG_FORMAT (CONNECTOR_LOG_FORMAT) forces either.
import type winston from 'winston';

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
  const { combine, timestamp, json, colorize, printf } = winstonModule().format;
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

let loadedWinston: typeof winston | null = null;

function winstonModule(): typeof winston {
  loadedWinston ??= require('winston') as typeof winston;
  return loadedWinston;
}

/** winston's npm levels (a lower number is more severe). */
const LEVEL_VALUES: Readonly<Record<string, number>> = { error: 0, warn: 1, info: 2, http: 3, verbose: 4, debug: 5, silly: 6 };

type LevelMethod = (...args: unknown[]) => unknown;

/**
 * The winston logger, made when the first line at an enabled level is written. winston formats every line it is
 * given (timestamp, JSON) and only then does its transport drop those below the level; this drops them first, so a
 * hot path's info line costs nothing at LOG_LEVEL=warn, and a process that logs nothing never loads winston (~80
 * modules, ~20 ms and several MB at start; issue 15); a silent logger, which winston would make drop everything,
 * never makes one. What is written, and how, is winston's as before.
 */
class DeferredLogger {
  private real: winston.Logger | null = null;

  constructor(private readonly make: () => winston.Logger, readonly level: string, private readonly silent: boolean) {}

  /** As winston answers it for a logger whose only transport has no level of its own. */
  isLevelEnabled(level: string): boolean {
    const given = LEVEL_VALUES[level];
    const configured = LEVEL_VALUES[this.level];
    return given !== undefined && configured !== undefined && configured >= given;
  }

  log(level: string | { level: string }, ...rest: unknown[]): this {
    const name = typeof level === 'string' ? level : level.level;
    if (!this.silent && this.isLevelEnabled(name)) (this.logger().log as LevelMethod).call(this.real, level, ...rest);
    return this;
  }

  error(...args: unknown[]): this {
    return this.write('error', args);
  }

  warn(...args: unknown[]): this {
    return this.write('warn', args);
  }

  info(...args: unknown[]): this {
    return this.write('info', args);
  }

  http(...args: unknown[]): this {
    return this.write('http', args);
  }

  verbose(...args: unknown[]): this {
    return this.write('verbose', args);
  }

  debug(...args: unknown[]): this {
    return this.write('debug', args);
  }

  silly(...args: unknown[]): this {
    return this.write('silly', args);
  }

  child(meta: Record<string, unknown>): DeferredLogger {
    return new DeferredLogger(() => this.logger().child(meta), this.level, this.silent);
  }

  private write(level: string, args: unknown[]): this {
    if (!this.silent && this.isLevelEnabled(level)) ((this.logger() as unknown as Record<string, LevelMethod>)[level]).apply(this.real, args);
    return this;
  }

  private logger(): winston.Logger {
    this.real ??= this.make();
    return this.real;
  }
}

export function createLogger(level: string, silent = false, options: LoggerOptions = {}): winston.Logger {
  const make = () => {
    const { createLogger: createWinstonLogger, transports } = winstonModule();
    const isTty = Boolean(process.stdout.isTTY);
    return createWinstonLogger({
      level,
      silent,
      format: logFormat(chooseLogFormat(options.format ?? 'auto', isTty), useColours(isTty)),
      defaultMeta: { service: options.service ?? 'sandbox-bank' },
      transports: [new transports.Console()],
    });
  };
  return new DeferredLogger(make, level, silent) as unknown as winston.Logger;
}
