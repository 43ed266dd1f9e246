// Settings from the environment, for both sides: one table of {env, key, default, doc, parse} per side, typed
// parsers for the values, and one loader. A bad value stops startup with a message that names the variable;
// every bad variable is named at once.
import { parseInstant } from './rfc3339';

export class ConfigError extends Error {}

/** One setting: the environment variable `env` overrides `default` of config key `key`. */
export interface Setting<C, K extends keyof C = keyof C> {
  key: K;
  env: string;
  default: C[K];
  doc: string;
  /** Throws an Error whose message says what was expected; the loader prefixes the variable name. */
  parse: (raw: string) => C[K];
}

/** A table entry for any key of C, each entry typed by its own key. */
export type SettingOf<C> = { [K in keyof C]: Setting<C, K> }[keyof C];

export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;

// --- parsers ------------------------------------------------------------------------------------------------

/** A whole number from min to max (no sign games: "1e3", "0x50", "80.5" are refused). */
export function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`expected a whole number, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`expected a number from ${min} to ${max}, got ${value}`);
    return value;
  };
}

const DECIMAL = /^\d+(\.\d+)?$/;

/** A plain decimal number (digits, optional fraction) from min to max. */
export function decimal(min: number, max: number) {
  return (raw: string): number => {
    if (!DECIMAL.test(raw.trim()) || Number(raw) < min || Number(raw) > max) throw new Error(`expected a number from ${min} to ${max}, got "${raw}"`);
    return Number(raw);
  };
}

/** Comma-separated plain decimal numbers (of `unit`, for the message), at least one, none empty. */
export function decimalList(unit: string) {
  return (raw: string): number[] => {
    const values = raw.split(',').map((part) => part.trim());
    if (values.some((value) => !DECIMAL.test(value))) throw new Error(`expected comma-separated ${unit}, got "${raw}"`);
    return values.map(Number);
  };
}

export function oneOf<T extends string>(...values: readonly T[]) {
  return (raw: string): T => {
    if (!(values as readonly string[]).includes(raw)) throw new Error(`expected one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
}

export function text(raw: string): string {
  if (raw.trim() === '') throw new Error('must not be empty');
  return raw;
}

/** Empty (or blank) means unset. */
export function optionalText(raw: string): string | null {
  return raw.trim() === '' ? null : raw;
}

export function flag(raw: string): boolean {
  if (/^(1|true|on|yes)$/i.test(raw)) return true;
  if (/^(0|false|off|no)$/i.test(raw)) return false;
  throw new Error(`expected true or false, got "${raw}"`);
}

/** An RFC 3339 UTC instant ending in Z, kept as written. */
export function instant(raw: string): string {
  if (parseInstant(raw) === null) throw new Error(`expected an RFC 3339 UTC instant ending in Z, got "${raw}"`);
  return raw;
}

/** Comma-separated words; blanks around and empty entries are dropped. */
export function list(raw: string): string[] {
  return raw.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

/** An http:// or https:// URL, without its trailing slashes (a base to append paths to). */
export function baseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`expected an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`expected an http:// or https:// URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

// --- loading ------------------------------------------------------------------------------------------------

export function defaultsOf<C>(settings: readonly SettingOf<C>[]): C {
  return Object.fromEntries(settings.map((setting) => [setting.key, setting.default])) as unknown as C;
}

export interface LoadOptions<C> {
  /** Fills values that follow others unless set themselves (runs after parsing, before `check`). */
  derive?: (config: C, env: NodeJS.ProcessEnv) => void;
  /** Checks across settings; each returned line names its variables. */
  check?: (config: C) => string[];
}

/** Builds the config from an environment; throws ConfigError naming every bad variable. */
export function loadSettings<C>(settings: readonly SettingOf<C>[], env: NodeJS.ProcessEnv, options: LoadOptions<C> = {}): C {
  const config = defaultsOf(settings) as Record<keyof C, unknown>;
  const problems: string[] = [];
  for (const setting of settings) {
    const raw = env[setting.env];
    if (raw === undefined) continue;
    try {
      config[setting.key] = setting.parse(raw);
    } catch (error) {
      problems.push(`${setting.env}: ${(error as Error).message}`);
    }
  }
  const result = config as C;
  options.derive?.(result, env);
  problems.push(...(options.check?.(result) ?? []));
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return result;
}
