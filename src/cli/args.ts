// Flags and arguments of one command, with node's own util.parseArgs (strict: an unknown flag is a usage error),
// and the help text written from the same description, so the two cannot disagree.
import { parseArgs } from 'node:util';
import { parseInstant } from '../wire/rfc3339';
import { CliIo, usageError } from './io';

/** A client id as the profile writes it (X-Client-Id, control-plane-clients.md): 1 to 64 of [A-Za-z0-9._-]. */
export const CLIENT_ID_FORM = /^[A-Za-z0-9._-]{1,64}$/;

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** The placeholder shown in the help: `--bank <url>`. */
  value?: string;
  help: string;
}

export interface ArgumentSpec {
  name: string;
  required: boolean;
}

export interface CommandSpec {
  /** The words after `sandbox-bank`: `clients create`. */
  name: string;
  summary: string;
  /** Lines after the summary: what the command does and how it answers. */
  details?: string[];
  arguments?: ArgumentSpec[];
  options: Record<string, OptionSpec>;
  examples: string[];
}

/** --bank and --admin-token: every command that talks to the control plane. */
export const BANK_OPTIONS: Record<string, OptionSpec> = {
  bank: { type: 'string', value: 'url', help: 'the Bank (default $SANDBOX_BANK_URL, else http://localhost:8080)' },
  'admin-token': { type: 'string', value: 'token', help: 'Bearer token of /sandbox (default $ADMIN_TOKEN)' },
};

/** --bank alone: the Connector-facing commands (no admin token). */
export const BANK_URL_OPTION: Record<string, OptionSpec> = { bank: BANK_OPTIONS.bank };

export const JSON_OPTION: Record<string, OptionSpec> = {
  json: { type: 'boolean', help: 'print the answer as JSON, for scripts' },
};

const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', help: 'this help' };

const EXIT_CODES = 'Exit codes: 0 done, 1 refused or failed, 2 the Bank unreachable or unusable, 3 usage error.';

function optionLabel(name: string, option: OptionSpec): string {
  const long = `--${name}${option.type === 'string' ? ` <${option.value ?? 'value'}>` : ''}`;
  return option.short ? `-${option.short}, ${long}` : `    ${long}`;
}

export function helpText(spec: CommandSpec): string {
  const args = (spec.arguments ?? []).map((arg) => (arg.required ? `<${arg.name}>` : `[${arg.name}]`)).join(' ');
  const options = { ...spec.options, help: HELP_OPTION };
  const labels = Object.entries(options).map(([name, option]) => [optionLabel(name, option), option.help + (option.multiple ? ' (repeatable)' : '')]);
  const width = Math.max(...labels.map(([label]) => label.length)) + 2;
  return [
    `Usage: sandbox-bank ${spec.name}${args ? ` ${args}` : ''} [options]`,
    '',
    spec.summary,
    ...(spec.details?.length ? ['', ...spec.details] : []),
    '',
    'Options:',
    ...labels.map(([label, help]) => `  ${label.padEnd(width)}${help}`),
    '',
    EXIT_CODES,
    '',
    spec.examples.length === 1 ? 'Example:' : 'Examples:',
    ...spec.examples.map((example) => `  ${example}`),
    '',
  ].join('\n');
}

/** The parsed command line, with typed readers that turn a bad value into a usage error. */
export class Parsed {
  constructor(
    readonly spec: CommandSpec,
    private readonly values: Record<string, string | boolean | string[] | undefined>,
    readonly positionals: string[],
  ) {}

  string(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  required(name: string): string {
    const value = this.string(name);
    if (value === undefined || value === '') throw usageError(`--${name} is required`);
    return value;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  many(name: string): string[] {
    const value = this.values[name];
    return Array.isArray(value) ? value : [];
  }

  /** A comma-separated list (`--cases a,b`); undefined when the flag is absent. */
  csv(name: string): string[] | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '');
    if (items.length === 0) throw usageError(`--${name} needs at least one value`);
    return items;
  }

  integer(name: string, min: number, max: number): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw usageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return Number(raw);
  }

  /** A number of seconds, decimals allowed. */
  seconds(name: string, min: number, max: number): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) < min || Number(raw) > max) throw usageError(`--${name} must be a number of seconds from ${min} to ${max}, got "${raw}"`);
    return Number(raw);
  }

  /** An RFC 3339 UTC instant ending in Z (2026-11-22T10:00:00Z), as the Bank takes them; the text as given. */
  instant(name: string): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (parseInstant(raw) === null) throw usageError(`--${name} must be an RFC 3339 UTC instant ending in Z, such as 2026-11-22T10:00:00Z, got "${raw}"`);
    return raw;
  }

  /** A client id of the documented form (1 to 64 of [A-Za-z0-9._-]). */
  clientId(name: string): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!CLIENT_ID_FORM.test(raw)) throw usageError(`--${name} must be 1 to 64 of [A-Za-z0-9._-], got "${raw}"`);
    return raw;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(raw)) throw usageError(`--${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
    return raw as T;
  }

  /** The n-th argument (0-based); a required one is checked by parseCommand already. */
  arg(index: number): string | undefined {
    return this.positionals[index];
  }
}

/**
 * `--name value` becomes `--name=value` for every option that takes a value, as getopt does: the next word is the
 * value even when it starts with a dash. Generated secrets are base64url, so one in 64 starts with "-", and parseArgs
 * alone calls `--client-secret -abc` ambiguous.
 */
function joinOptionValues(argv: readonly string[], options: Record<string, { type: 'string' | 'boolean'; short?: string }>): string[] {
  const longOf = new Map<string, string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== 'string') continue;
    longOf.set(`--${name}`, name);
    if (option.short) longOf.set(`-${option.short}`, name);
  }
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') return [...joined, ...argv.slice(i)];
    const name = longOf.get(word);
    if (name !== undefined && i + 1 < argv.length) joined.push(`--${name}=${argv[++i]}`);
    else joined.push(word);
  }
  return joined;
}

/**
 * Parses `argv` (the words after the command's name) against `spec`. `--help` prints the help and answers null;
 * an unknown flag, a missing value or a wrong number of arguments throws a usage error.
 */
export function parseCommand(spec: CommandSpec, argv: readonly string[], io: CliIo): Parsed | null {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = { type: option.type, ...(option.short ? { short: option.short } : {}), ...(option.multiple ? { multiple: true } : {}) };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: joinOptionValues(argv, options), options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError((error as Error).message.split('\n')[0]);
  }
  const values = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (values.help === true) {
    io.stdout(helpText(spec));
    return null;
  }
  const expected = spec.arguments ?? [];
  const requiredCount = expected.filter((arg) => arg.required).length;
  if (parsed.positionals.length < requiredCount) {
    throw usageError(`missing ${expected.slice(parsed.positionals.length).filter((arg) => arg.required).map((arg) => `<${arg.name}>`).join(' ')}`);
  }
  if (parsed.positionals.length > expected.length) throw usageError(`unexpected argument "${parsed.positionals[expected.length]}"`);
  return new Parsed(spec, values, parsed.positionals);
}
