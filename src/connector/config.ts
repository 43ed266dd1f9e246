// Reference Connector configuration: one defaults object, every value overridable by the environment variable
// named beside it. What it shows a Connector team: keep the Bank's URLs, the pull token, TLS material and the
// reverse-polling backoff (contract section 8: short first interval, exponential growth, configurable cap)
// outside the code, and refuse to start on a bad value with a message that names the variable.

export interface ConnectorConfig {
  port: number;
  host: string;
  dataDir: string;
  logLevel: string;
  credentialsFile: string;
  ordersFixture: string;
  /** Token and create. */
  bankUrl: string;
  /** Reverse polling base (the Bank's mTLS listener in a real setup). */
  bankStatusUrl: string;
  bankJwksUrl: string;
  /** X-Client-Id the Bank uses on pulls and callbacks. */
  bankClientId: string;
  /** Bearer token the Bank must present on the pull. */
  pullToken: string;
  tlsCert: string | null;
  tlsKey: string | null;
  tlsCa: string | null;
  pollInitialMs: number;
  pollMaxMs: number;
  pollFactor: number;
  timestampWindowS: number;
}

export class ConnectorConfigError extends Error {}

const DEFAULT_BANK_URL = 'http://localhost:8080';

export const CONNECTOR_DEFAULTS: ConnectorConfig = {
  port: 9090,
  host: '0.0.0.0',
  dataDir: './data/connector',
  logLevel: 'info',
  credentialsFile: 'fixtures/demo-connector/credentials.json',
  ordersFixture: 'fixtures/connector-orders.json',
  bankUrl: DEFAULT_BANK_URL,
  bankStatusUrl: DEFAULT_BANK_URL,
  bankJwksUrl: `${DEFAULT_BANK_URL}/.well-known/jwks.json`,
  bankClientId: 'sandbox-bank',
  pullToken: 'demo-pull-token',
  tlsCert: null,
  tlsKey: null,
  tlsCa: null,
  pollInitialMs: 30_000,
  pollMaxMs: 900_000,
  pollFactor: 2,
  timestampWindowS: 300,
};

/** Environment variable -> config key. */
export const CONNECTOR_ENV: Record<string, keyof ConnectorConfig> = {
  CONNECTOR_PORT: 'port',
  CONNECTOR_HOST: 'host',
  CONNECTOR_DATA_DIR: 'dataDir',
  CONNECTOR_LOG_LEVEL: 'logLevel',
  CREDENTIALS_FILE: 'credentialsFile',
  ORDERS_FIXTURE: 'ordersFixture',
  BANK_URL: 'bankUrl',
  BANK_STATUS_URL: 'bankStatusUrl',
  BANK_JWKS_URL: 'bankJwksUrl',
  BANK_CLIENT_ID: 'bankClientId',
  PULL_TOKEN: 'pullToken',
  CONNECTOR_TLS_CERT: 'tlsCert',
  CONNECTOR_TLS_KEY: 'tlsKey',
  CONNECTOR_TLS_CA: 'tlsCa',
  POLL_INITIAL_MS: 'pollInitialMs',
  POLL_MAX_MS: 'pollMaxMs',
  POLL_FACTOR: 'pollFactor',
  TIMESTAMP_WINDOW_S: 'timestampWindowS',
};

function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new Error(`expected a whole number, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`expected a number from ${min} to ${max}, got ${value}`);
    return value;
  };
}

function factor(raw: string): number {
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || Number(raw) < 1 || Number(raw) > 10) throw new Error(`expected a number from 1 to 10, got "${raw}"`);
  return Number(raw);
}

function text(raw: string): string {
  if (raw.trim() === '') throw new Error('must not be empty');
  return raw;
}

function optionalText(raw: string): string | null {
  return raw.trim() === '' ? null : raw;
}

/** An http(s) base URL, without a trailing slash. */
function baseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`expected an http:// or https:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`expected an http:// or https:// URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function oneOf(...values: string[]) {
  return (raw: string): string => {
    if (!values.includes(raw)) throw new Error(`expected one of ${values.join(', ')}, got "${raw}"`);
    return raw;
  };
}

const PARSERS: { [K in keyof ConnectorConfig]: (raw: string) => ConnectorConfig[K] } = {
  port: integer(0, 65535),
  host: text,
  dataDir: text,
  logLevel: oneOf('error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'),
  credentialsFile: text,
  ordersFixture: text,
  bankUrl: baseUrl,
  bankStatusUrl: baseUrl,
  bankJwksUrl: baseUrl,
  bankClientId: text,
  pullToken: text,
  tlsCert: optionalText,
  tlsKey: optionalText,
  tlsCa: optionalText,
  pollInitialMs: integer(1, 86_400_000),
  pollMaxMs: integer(1, 86_400_000),
  pollFactor: factor,
  timestampWindowS: integer(1, 86_400),
};

/** Builds the config from an environment; throws ConnectorConfigError naming every bad variable. */
export function loadConnectorConfig(env: NodeJS.ProcessEnv = process.env): ConnectorConfig {
  const config: Record<string, unknown> = { ...CONNECTOR_DEFAULTS };
  const problems: string[] = [];
  for (const [name, key] of Object.entries(CONNECTOR_ENV)) {
    const raw = env[name];
    if (raw === undefined) continue;
    try {
      config[key] = PARSERS[key](raw);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  const result = config as unknown as ConnectorConfig;
  // The status and JWKS URLs follow BANK_URL unless they are set themselves.
  if (env.BANK_STATUS_URL === undefined) result.bankStatusUrl = result.bankUrl;
  if (env.BANK_JWKS_URL === undefined) result.bankJwksUrl = `${result.bankUrl}/.well-known/jwks.json`;
  if ((result.tlsCert === null) !== (result.tlsKey === null)) {
    problems.push('CONNECTOR_TLS_CERT, CONNECTOR_TLS_KEY: set both (HTTPS with mTLS) or neither (plain HTTP)');
  }
  if (result.pollMaxMs < result.pollInitialMs) {
    problems.push(`POLL_MAX_MS: must be at least POLL_INITIAL_MS (${result.pollInitialMs}), got ${result.pollMaxMs}`);
  }
  if (problems.length > 0) throw new ConnectorConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return result;
}
