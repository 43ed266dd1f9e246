// One documented defaults object; every value can be overridden by the environment variable named beside it.
// A bad value stops startup with a message that names the variable (the parsers and the loader: wire/settings).
import { decimalList, defaultsOf, flag, instant, integer, list, loadSettings, LOG_LEVELS, oneOf, optionalText, SettingOf, text } from '../wire/settings';
import { LOG_FORMATS, LogFormatSetting } from '../wire/logger';

export { ConfigError } from '../wire/settings';

export interface BankConfig {
  port: number;
  httpsPort: number;
  host: string;
  dataDir: string;
  logLevel: string;
  logFormat: LogFormatSetting;
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
  tokenAudience: string;
  bankClientId: string;
  connectorUrl: string | null;
  connectorToken: string | null;
  connectorTimeoutMs: number;
  conformanceExchangeTimeoutMs: number;
  jwksCacheTtlS: number;
  pollCron: string;
  pollStatus: string;
  pollLimit: number;
  pollStartOffset: string;
  callbackMode: 'unit' | 'batch' | 'auto';
  batchSize: number;
  batchWindowMs: number;
  autoBatchThreshold: number;
  retryScheduleS: number[];
  retryHorizonS: number;
  reportPending: boolean;
  dispatchIntervalMs: number;
  dispatchConcurrency: number;
  settleIntervalMs: number;
  shutdownTimeoutMs: number;
  pkiDir: string | null;
  tlsServerNames: string[];
  tlsCaFile: string | null;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  tlsClientCertFile: string | null;
  tlsClientKeyFile: string | null;
  eventsRetention: number;
  journal: 'on' | 'off';
  journalBodyLimit: number;
  journalMaxEntries: number;
  journalMaxAgeS: number;
  fastStart: 'on' | 'off';
  idleCollection: 'on' | 'off';
}

function cronExpression(raw: string): string {
  if (raw === 'off') return raw;
  const cron = require('node-cron') as typeof import('node-cron');
  if (!cron.validate(raw)) throw new Error(`expected a node-cron expression (5 or 6 fields) or "off", got "${raw}"`);
  return raw;
}

export const SETTINGS = [
  { key: 'port', env: 'PORT', default: 8080, doc: 'Plain-HTTP listener port (0 picks a free port).', parse: integer(0, 65535) },
  { key: 'httpsPort', env: 'HTTPS_PORT', default: 8443, doc: 'HTTPS (mTLS) listener port.', parse: integer(0, 65535) },
  { key: 'host', env: 'HOST', default: '0.0.0.0', doc: 'Address the listeners bind to.', parse: text },
  { key: 'dataDir', env: 'DATA_DIR', default: './data', doc: 'Directory for the SQLite file, keys and the dev PKI (`:memory:` for a throwaway store).', parse: text },
  { key: 'logLevel', env: 'LOG_LEVEL', default: 'info', doc: `winston level: ${LOG_LEVELS.join(', ')}.`, parse: oneOf(...LOG_LEVELS) },
  { key: 'logFormat', env: 'LOG_FORMAT', default: 'auto', doc: '`json` (one JSON object per line), `pretty` (one readable line per event: time, level, message, key=value) or `auto`: pretty when standard output is a terminal, JSON otherwise.', parse: oneOf(...LOG_FORMATS) },
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
  { key: 'tokenAudience', env: 'TOKEN_AUDIENCE', default: 'sandbox-bank', doc: '`aud` of the access tokens (RFC 9068): the Bank\'s resource identifier; a token with another `aud` is refused.', parse: text },
  { key: 'bankClientId', env: 'BANK_CLIENT_ID', default: 'sandbox-bank', doc: '`X-Client-Id` the Bank sends on pulls and callbacks.', parse: text },
  { key: 'connectorUrl', env: 'CONNECTOR_URL', default: null, doc: "Overrides the demo client's connector base URL (or the first client's when there is no demo-connector).", parse: optionalText },
  { key: 'connectorToken', env: 'CONNECTOR_TOKEN', default: null, doc: 'Static Bearer token the Bank sends on the pull, for clients without their own `connector.token` or `connector.token_url` (client_credentials).', parse: optionalText },
  { key: 'connectorTimeoutMs', env: 'CONNECTOR_TIMEOUT_MS', default: 10_000, doc: 'Timeout of each outgoing call to a Connector (without a byte from it); answers are limited to 32 MiB.', parse: integer(1, 600_000) },
  { key: 'conformanceExchangeTimeoutMs', env: 'CONFORMANCE_EXCHANGE_TIMEOUT_MS', default: 5_000, doc: 'Deadline of each exchange of a conformance run with a Connector, answer body included; a Connector that hangs or trickles past it fails that case.', parse: integer(100, 600_000) },
  { key: 'jwksCacheTtlS', env: 'JWKS_CACHE_TTL_S', default: 300, doc: "How long a client's key set fetched from its `jwks_uri` is cached when the answer has no `Cache-Control: max-age`, in seconds (an unknown `kid` still refetches once per kid and minute).", parse: integer(0, 86_400) },
  { key: 'pollCron', env: 'POLL_CRON', default: '*/10 * * * * *', doc: 'node-cron schedule of the pull (6 fields = with seconds); `off` disables the scheduled pull.', parse: cronExpression },
  { key: 'pollStatus', env: 'POLL_STATUS', default: 'READY', doc: '`status` query parameter of the pull.', parse: oneOf('READY', 'INITIATED', 'PENDING') },
  { key: 'pollLimit', env: 'POLL_LIMIT', default: 100, doc: '`limit` of each pull page.', parse: integer(1, 10_000) },
  { key: 'pollStartOffset', env: 'POLL_START_OFFSET', default: '1970-01-01T00:00:00Z', doc: 'Cursor of the very first pull from a Connector.', parse: instant },
  { key: 'callbackMode', env: 'CALLBACK_MODE', default: 'auto', doc: '`unit`, `batch` or `auto` (batch when more than AUTO_BATCH_THRESHOLD are due); a client may override it.', parse: oneOf('unit', 'batch', 'auto') },
  { key: 'batchSize', env: 'BATCH_SIZE', default: 100, doc: 'Most orders in one batch callback.', parse: integer(1, 10_000) },
  { key: 'batchWindowMs', env: 'BATCH_WINDOW_MS', default: 1000, doc: 'How long a partial batch may wait for more orders.', parse: integer(0, 3_600_000) },
  { key: 'autoBatchThreshold', env: 'AUTO_BATCH_THRESHOLD', default: 10, doc: 'In `auto` mode, more due orders than this go as a batch.', parse: integer(1, 100_000) },
  { key: 'retryScheduleS', env: 'RETRY_SCHEDULE', default: [5, 30, 120, 600, 1800, 3600, 7200], doc: 'Seconds before each retry of a callback; the last value repeats until RETRY_HORIZON_S.', parse: decimalList('seconds') },
  { key: 'retryHorizonS', env: 'RETRY_HORIZON_S', default: 86_400, doc: 'A callback is marked dead when its next retry would start more than this many seconds after the message was built.', parse: integer(1, 30 * 86_400) },
  { key: 'reportPending', env: 'REPORT_PENDING', default: true, doc: 'Send a PENDING callback when an order enters PENDING.', parse: flag },
  { key: 'dispatchIntervalMs', env: 'DISPATCH_INTERVAL_MS', default: 200, doc: 'How often the callback dispatcher looks for due work.', parse: integer(1, 60_000) },
  { key: 'dispatchConcurrency', env: 'DISPATCH_CONCURRENCY', default: 16, doc: 'Callbacks in flight at once per Connector.', parse: integer(1, 1024) },
  { key: 'settleIntervalMs', env: 'SETTLE_INTERVAL_MS', default: 500, doc: 'How often due PENDING orders are settled.', parse: integer(1, 60_000) },
  { key: 'pkiDir', env: 'PKI_DIR', default: null, doc: 'Where the dev PKI lives (default `<DATA_DIR>/pki`).', parse: optionalText },
  { key: 'tlsServerNames', env: 'TLS_SERVER_NAMES', default: [], doc: "Extra DNS names / IPs (comma-separated) for the Bank's dev server certificate.", parse: list },
  { key: 'tlsCaFile', env: 'TLS_CA_FILE', default: null, doc: 'External CA (PEM) that client certificates and Connector servers must chain to; with TLS_CERT_FILE and TLS_KEY_FILE it replaces the dev PKI.', parse: optionalText },
  { key: 'tlsCertFile', env: 'TLS_CERT_FILE', default: null, doc: "External server certificate (PEM) of the Bank's HTTPS listener.", parse: optionalText },
  { key: 'tlsKeyFile', env: 'TLS_KEY_FILE', default: null, doc: 'Private key (PEM) of TLS_CERT_FILE.', parse: optionalText },
  { key: 'tlsClientCertFile', env: 'TLS_CLIENT_CERT_FILE', default: null, doc: 'External client certificate (PEM) the Bank presents on callbacks (with an external CA).', parse: optionalText },
  { key: 'tlsClientKeyFile', env: 'TLS_CLIENT_KEY_FILE', default: null, doc: 'Private key (PEM) of TLS_CLIENT_CERT_FILE.', parse: optionalText },
  { key: 'shutdownTimeoutMs', env: 'SHUTDOWN_TIMEOUT_MS', default: 10_000, doc: 'On SIGTERM or SIGINT, how long to wait for the requests and deliveries in flight (live event streams and waits end at once).', parse: integer(0, 600_000) },
  { key: 'eventsRetention', env: 'EVENTS_RETENTION', default: 10_000, doc: 'Live events kept for `Last-Event-ID` resumption of `GET /sandbox/events` (the newest this many).', parse: integer(1, 10_000_000) },
  { key: 'journal', env: 'JOURNAL', default: 'on', doc: '`on` or `off`: record every exchange, in and out, in the journal (`/sandbox/journal`), secrets masked.', parse: oneOf('on', 'off') },
  { key: 'journalBodyLimit', env: 'JOURNAL_BODY_LIMIT', default: 16_384, doc: 'Bytes of each request and response body the journal keeps; longer bodies are cut and marked `truncated`.', parse: integer(0, 16 * 1024 * 1024) },
  { key: 'journalMaxEntries', env: 'JOURNAL_MAX_ENTRIES', default: 10_000, doc: 'Journal entries kept; the oldest go first.', parse: integer(1, 10_000_000) },
  { key: 'journalMaxAgeS', env: 'JOURNAL_MAX_AGE_S', default: 86_400, doc: 'Journal entries older than this many seconds are pruned.', parse: integer(1, 365 * 86_400) },
  { key: 'fastStart', env: 'FAST_START', default: 'on', doc: '`on` or `off`: start from the single file `npm run build` bundles the Bank into, with its V8 code cache (`dist/bank/server.bundle.js`, `.bundle.cache`), about a quarter sooner to the first answer; `off` loads `dist/` module by module (profiles and stack traces then name the files). A bundle older than `dist/` is never used.', parse: oneOf('on', 'off') },
  { key: 'idleCollection', env: 'IDLE_COLLECTION', default: 'on', doc: '`on` or `off`: when the Bank falls quiet after a busy spell (its event loop under 5 % busy for 5 s in a row, after at least 2 s of work since the last time), run two full garbage collections 5 s apart, so that its memory returns to about its idle size (docs/architecture.md, "Memory"). Needs node\'s `--expose-gc`, which `npm start` passes.', parse: oneOf('on', 'off') },
] as const satisfies readonly SettingOf<BankConfig>[];

export const DEFAULTS: BankConfig = defaultsOf<BankConfig>(SETTINGS);

/** TLS_CA_FILE, TLS_CERT_FILE and TLS_KEY_FILE go together. */
function checkExternalTls(config: BankConfig): string[] {
  const external = [config.tlsCaFile, config.tlsCertFile, config.tlsKeyFile];
  if (external.some((value) => value !== null) && external.some((value) => value === null)) {
    return ['TLS_CA_FILE, TLS_CERT_FILE and TLS_KEY_FILE: set all three to use an external CA, or none for the dev PKI'];
  }
  return [];
}

/** Builds the config from an environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<BankConfig> = {}): BankConfig {
  return { ...loadSettings<BankConfig>(SETTINGS, env, { check: checkExternalTls }), ...overrides };
}
