// One documented defaults object; every value can be overridden by the environment variable named beside it.
// A bad value stops startup with a message that names the variable.

export interface BankConfig {
  port: number;
  httpsPort: number;
  host: string;
  dataDir: string;
  logLevel: string;
  sandboxMode: 'strict' | 'relaxed';
  clientsFile: string;
  rulesFile: string | null;
  adminToken: string | null;
  timestampWindowS: number;
  bodyLimitBytes: number;
  idempotencyRetentionS: number;
  statusRatePerS: number;
  statusRateBurst: number;
  createRatePerS: number;
  createRateBurst: number;
  createLatencyMs: number;
  tokenTtlS: number;
  issuer: string;
}

interface Setting<K extends keyof BankConfig> {
  key: K;
  env: string;
  default: BankConfig[K];
  doc: string;
  parse: (raw: string) => BankConfig[K];
}

export class ConfigError extends Error {}

function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`expected a whole number, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`expected a number from ${min} to ${max}, got ${value}`);
    return value;
  };
}

function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    if (!(values as string[]).includes(raw)) throw new Error(`expected one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
}

const text = (raw: string): string => {
  if (raw.trim() === '') throw new Error('must not be empty');
  return raw;
};
const optionalText = (raw: string): string | null => (raw.trim() === '' ? null : raw);

const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];

export const SETTINGS = [
  { key: 'port', env: 'PORT', default: 8080, doc: 'Plain-HTTP listener port (0 picks a free port).', parse: integer(0, 65535) },
  { key: 'httpsPort', env: 'HTTPS_PORT', default: 8443, doc: 'HTTPS (mTLS) listener port.', parse: integer(0, 65535) },
  { key: 'host', env: 'HOST', default: '0.0.0.0', doc: 'Address the listeners bind to.', parse: text },
  { key: 'dataDir', env: 'DATA_DIR', default: './data', doc: 'Directory for the SQLite file, keys and the dev PKI (`:memory:` for a throwaway store).', parse: text },
  { key: 'logLevel', env: 'LOG_LEVEL', default: 'info', doc: `winston level: ${LOG_LEVELS.join(', ')}.`, parse: oneOf(...LOG_LEVELS) },
  { key: 'sandboxMode', env: 'SANDBOX_MODE', default: 'strict', doc: '`strict` or `relaxed`: relaxed allows reverse polling over plain HTTP and callbacks to `http://` Connectors.', parse: oneOf('strict', 'relaxed') },
  { key: 'clientsFile', env: 'CLIENTS_FILE', default: 'fixtures/clients.json', doc: 'Client registry (JSON, validated by `schemas/clients.schema.json`).', parse: text },
  { key: 'rulesFile', env: 'RULES_FILE', default: null, doc: 'Optional scenario rules (JSON, validated by `schemas/rules.schema.json`).', parse: optionalText },
  { key: 'adminToken', env: 'ADMIN_TOKEN', default: null, doc: 'Bearer token for `/sandbox/*`; without it those endpoints are open in relaxed mode only.', parse: optionalText },
  { key: 'timestampWindowS', env: 'TIMESTAMP_WINDOW_S', default: 300, doc: 'Accepted clock skew for `X-Timestamp` and DPoP `iat`, in seconds.', parse: integer(1, 86_400) },
  { key: 'bodyLimitBytes', env: 'BODY_LIMIT_BYTES', default: 262_144, doc: 'Largest accepted request body; larger gives 413 `body_too_large`.', parse: integer(1, 64 * 1024 * 1024) },
  { key: 'idempotencyRetentionS', env: 'IDEMPOTENCY_RETENTION_S', default: 86_400, doc: 'How long a create idempotency record is kept, in seconds.', parse: integer(1, 30 * 86_400) },
  { key: 'statusRatePerS', env: 'STATUS_RATE_PER_S', default: 50, doc: 'Reverse-polling token bucket refill per client, requests per second.', parse: integer(1, 1_000_000) },
  { key: 'statusRateBurst', env: 'STATUS_RATE_BURST', default: 100, doc: 'Reverse-polling token bucket size per client.', parse: integer(1, 1_000_000) },
  { key: 'createRatePerS', env: 'CREATE_RATE_PER_S', default: 1_000_000, doc: 'Create token bucket refill per client, requests per second.', parse: integer(1, 1_000_000) },
  { key: 'createRateBurst', env: 'CREATE_RATE_BURST', default: 1_000_000, doc: 'Create token bucket size per client.', parse: integer(1, 1_000_000) },
  { key: 'createLatencyMs', env: 'CREATE_LATENCY_MS', default: 0, doc: 'Simulated processing time of a create, to exercise Connector timeouts and `idempotency_in_progress`.', parse: integer(0, 600_000) },
  { key: 'tokenTtlS', env: 'TOKEN_TTL_S', default: 3600, doc: 'Access token lifetime, in seconds.', parse: integer(1, 86_400) },
  { key: 'issuer', env: 'ISSUER', default: 'sandbox-bank', doc: '`iss` of the access tokens the Bank issues.', parse: text },
] as const satisfies readonly Setting<keyof BankConfig>[];

export const DEFAULTS: BankConfig = Object.fromEntries(SETTINGS.map((setting) => [setting.key, setting.default])) as unknown as BankConfig;

/** Builds the config from an environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<BankConfig> = {}): BankConfig {
  const config: Record<string, unknown> = { ...DEFAULTS };
  const problems: string[] = [];
  for (const setting of SETTINGS) {
    const raw = env[setting.env];
    if (raw === undefined) continue;
    try {
      config[setting.key] = setting.parse(raw);
    } catch (error) {
      problems.push(`${setting.env}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return { ...(config as unknown as BankConfig), ...overrides };
}
