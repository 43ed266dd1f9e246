// Reference Connector configuration: one table of settings, every value overridable by the environment variable
// named beside it. What it shows a Connector team: keep the Bank's URLs, the pull token, TLS material and the
// reverse-polling backoff (contract section 8: short first interval, exponential growth, configurable cap)
// outside the code, and refuse to start on a bad value with a message that names the variable.
// The parsers and the loader are the exchange's shared ones (wire/settings).
import { baseUrl, decimal, defaultsOf, integer, loadSettings, LOG_LEVELS, oneOf, optionalText, SettingOf, text } from '../wire/settings';
import { Flaw, FLAW_NAMES, parseFlaws } from './flaws';
import { LOG_FORMATS, LogFormatSetting } from '../wire/logger';

export interface ConnectorConfig {
  port: number;
  host: string;
  dataDir: string;
  logLevel: string;
  logFormat: LogFormatSetting;
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
  /** Retries of a create after a 5xx, a 429, a 409 idempotency_in_progress or no answer (same key, same body bytes). */
  createRetries: number;
  /** Wait before the first create retry; each next wait doubles. */
  createRetryInitialMs: number;
  /** Deliberate flaws for the conformance suite's proof (flaws.ts); empty in any real use. */
  flaws: Flaw[];
}

const DEFAULT_BANK_URL = 'http://localhost:8080';

export const CONNECTOR_SETTINGS = [
  { key: 'port', env: 'CONNECTOR_PORT', default: 9090, doc: 'Listener port (0 picks a free port).', parse: integer(0, 65535) },
  { key: 'host', env: 'CONNECTOR_HOST', default: '0.0.0.0', doc: 'Address the listener binds to.', parse: text },
  { key: 'dataDir', env: 'CONNECTOR_DATA_DIR', default: './data/connector', doc: 'Directory of the SQLite file (`:memory:` for a throwaway store).', parse: text },
  { key: 'logLevel', env: 'CONNECTOR_LOG_LEVEL', default: 'info', doc: `winston level: ${LOG_LEVELS.join(', ')}.`, parse: oneOf(...LOG_LEVELS) },
  { key: 'logFormat', env: 'CONNECTOR_LOG_FORMAT', default: 'auto', doc: '`json`, `pretty` (one readable line per event) or `auto`: pretty on a terminal, JSON otherwise.', parse: oneOf(...LOG_FORMATS) },
  { key: 'credentialsFile', env: 'CREDENTIALS_FILE', default: 'fixtures/demo-connector/credentials.json', doc: 'client_id, client_secret and private_jwk this Connector uses toward the Bank.', parse: text },
  { key: 'ordersFixture', env: 'ORDERS_FIXTURE', default: 'fixtures/connector-orders.json', doc: 'Payment orders (contract 2.1) the pull serves.', parse: text },
  { key: 'bankUrl', env: 'BANK_URL', default: DEFAULT_BANK_URL, doc: "The Bank's base URL for the token and the create.", parse: baseUrl },
  { key: 'bankStatusUrl', env: 'BANK_STATUS_URL', default: DEFAULT_BANK_URL, doc: 'Base URL of reverse polling (the mTLS listener); follows BANK_URL unless set.', parse: baseUrl },
  { key: 'bankJwksUrl', env: 'BANK_JWKS_URL', default: `${DEFAULT_BANK_URL}/.well-known/jwks.json`, doc: "The Bank's JWKS; follows BANK_URL unless set.", parse: baseUrl },
  { key: 'bankClientId', env: 'BANK_CLIENT_ID', default: 'sandbox-bank', doc: '`X-Client-Id` (and client certificate CN) the Bank uses on pulls and callbacks.', parse: text },
  { key: 'pullToken', env: 'PULL_TOKEN', default: 'demo-pull-token', doc: 'Bearer token the Bank must present on the pull.', parse: text },
  { key: 'tlsCert', env: 'CONNECTOR_TLS_CERT', default: null, doc: 'Server (and reverse-polling client) certificate, PEM; with CONNECTOR_TLS_KEY it serves HTTPS with mTLS.', parse: optionalText },
  { key: 'tlsKey', env: 'CONNECTOR_TLS_KEY', default: null, doc: 'Private key (PEM) of CONNECTOR_TLS_CERT.', parse: optionalText },
  { key: 'tlsCa', env: 'CONNECTOR_TLS_CA', default: null, doc: "CA (PEM) the Bank's certificates chain to.", parse: optionalText },
  { key: 'pollInitialMs', env: 'POLL_INITIAL_MS', default: 30_000, doc: 'First reverse-polling interval.', parse: integer(1, 86_400_000) },
  { key: 'pollMaxMs', env: 'POLL_MAX_MS', default: 900_000, doc: 'Cap of the reverse-polling interval.', parse: integer(1, 86_400_000) },
  { key: 'pollFactor', env: 'POLL_FACTOR', default: 2, doc: 'Growth of the reverse-polling interval after each poll.', parse: decimal(1, 10) },
  { key: 'timestampWindowS', env: 'TIMESTAMP_WINDOW_S', default: 300, doc: 'Accepted clock skew for the Bank\'s `X-Timestamp`, in seconds.', parse: integer(1, 86_400) },
  { key: 'createRetries', env: 'CREATE_RETRIES', default: 3, doc: 'Retries of a create answered 5xx, 429 or 409 idempotency_in_progress, or not answered (network error, time-out), with the same X-Idempotency-Key and body; 0 never retries.', parse: integer(0, 10) },
  { key: 'createRetryInitialMs', env: 'CREATE_RETRY_INITIAL_MS', default: 500, doc: 'Wait before the first create retry, doubled before each next one; a longer Retry-After (429, 503, 409 idempotency_in_progress) is waited instead.', parse: integer(1, 60_000) },
  { key: 'flaws', env: 'CONNECTOR_FLAWS', default: [] as Flaw[], doc: `Deliberately broken behaviours, comma-separated, to prove the conformance suite catches them (never in real use): ${FLAW_NAMES.join(', ')}.`, parse: parseFlaws },
] as const satisfies readonly SettingOf<ConnectorConfig>[];

export const CONNECTOR_DEFAULTS: ConnectorConfig = defaultsOf<ConnectorConfig>(CONNECTOR_SETTINGS);

/** The status and JWKS URLs follow BANK_URL unless they are set themselves. */
function followBankUrl(config: ConnectorConfig, env: NodeJS.ProcessEnv): void {
  if (env.BANK_STATUS_URL === undefined) config.bankStatusUrl = config.bankUrl;
  if (env.BANK_JWKS_URL === undefined) config.bankJwksUrl = `${config.bankUrl}/.well-known/jwks.json`;
}

function checkTogether(config: ConnectorConfig): string[] {
  const problems: string[] = [];
  if ((config.tlsCert === null) !== (config.tlsKey === null)) {
    problems.push('CONNECTOR_TLS_CERT, CONNECTOR_TLS_KEY: set both (HTTPS with mTLS) or neither (plain HTTP)');
  }
  if (config.pollMaxMs < config.pollInitialMs) {
    problems.push(`POLL_MAX_MS: must be at least POLL_INITIAL_MS (${config.pollInitialMs}), got ${config.pollMaxMs}`);
  }
  return problems;
}

/** Builds the config from an environment; throws ConfigError naming every bad variable. */
export function loadConnectorConfig(env: NodeJS.ProcessEnv = process.env): ConnectorConfig {
  return loadSettings<ConnectorConfig>(CONNECTOR_SETTINGS, env, { derive: followBankUrl, check: checkTogether });
}
