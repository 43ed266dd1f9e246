// Composition root of the Bank: store, keys, registry, domain services and the HTTP app.
import path from 'node:path';
import { packageVersion } from '../wire/project-root';
import type express from 'express';
import type { Logger } from 'winston';
import { CallbackMessages } from './application/callback-messages';
import { CreateOrder } from './application/create-order';
import { OrderBook } from './application/order-book';
import { OutboxWriter } from './application/outbox-writer';
import { PulledOrders } from './application/pulled-orders';
import { ClientClocks } from './application/clocks';
import { TestClocks } from './application/test-clocks';
import { BankConfig } from './config';
import { Clock, systemClock } from '../wire/clock';
import { compileRules, Rule } from './domain/scenarios';
import { buildApp } from './http/app';
import { InboundServices } from './http/exchange';
import { createLogger } from '../wire/logger';
import { loadJsonFile } from '../wire/schemas';
import { ClientDefinition, ClientRegistry, RemoteJwksFactory } from './security/client-registry';
import { RemoteJwks } from './security/remote-jwks';
import { putStoredClients } from './application/client-registrations';
import { JwksFetcher } from './outbound/jwks-fetcher';
import { generateSigningJwk, SigningKey, signingKeyFromJwk } from '../wire/keys';
import { TokenService } from './security/tokens';
import { BankKeyRepository } from './store/bank-keys';
import { ClientRepository } from './store/clients';
import { Db, LATEST_MIGRATION, openBankDatabase, schemaVersion } from './store/db';
import { GroupCommit } from './store/group-commit';
import { IdempotencyRepository } from './store/idempotency';
import { NonceRepository } from './store/nonces';
import { ClientPauseRepository, TestClockRepository } from './store/client-controls';
import { CreateFailureRepository } from './store/create-failures';
import { OrderRepository } from './store/orders';
import { OutboxRepository } from './store/outbox';
import { PollStateRepository } from './store/poll-state';
import { createOutbound, Outbound } from './outbound/outbound';
import { ConnectorDirectory } from './outbound/connector-directory';
import { connectorSettings, ConnectorTls } from './outbound/connectors';
import { EventLog } from './application/event-log';
import { EventRepository } from './store/events';
import { Journal } from './application/journal';
import { JournalRepository } from './store/journal';
import { ConformanceRuns } from './application/conformance-runs';
import { ConformanceRunRepository } from './store/conformance-runs';
import { PublishedKeys } from './security/published-keys';
import { BankMetrics } from './observability/metrics';
import { markRouteBase } from './observability/request-metrics';
import { OutboxDepthRepository } from './store/outbox-depth';
import { requireAdmin } from './control/admin';
import { FaultProfiles } from './application/fault-profiles';
import { ClientFaultRepository } from './store/client-faults';
import { dropControlsOfDeletedClients } from './application/orphaned-controls';
import { DataDirLock, DirectoryOwner, lockDataDir, releasedOnFailure } from '../wire/data-dir-lock';

export interface BankOptions {
  clock?: Clock;
  logger?: Logger;
  /** TLS material for callbacks to https:// Connectors (the dev PKI wires it). */
  connectorTls?: ConnectorTls;
  /** Interval of the SSE heartbeat comment on /sandbox/events (default 15 s; tests shorten it). */
  sseHeartbeatMs?: number;
  /** The client definitions when the caller has already read config.clientsFile (main does, for the dev PKI). */
  clients?: ClientDefinition[];
  /** DATA_DIR's lock when the caller took it first (main does, before the dev PKI); the Bank releases it on close. */
  dataDirLock?: DataDirLock;
}

export interface Bank {
  config: BankConfig;
  app: express.Express;
  db: Db;
  book: OrderBook;
  pulledOrders: PulledOrders;
  clocks: ClientClocks;
  testClocks: TestClocks;
  signer: SigningKey;
  registry: ClientRegistry;
  tokens: TokenService;
  outbound: Outbound;
  clock: Clock;
  logger: Logger;
  /** Live events (control plane section 6). */
  events: EventLog;
  /** The exchange journal (control plane section 4). */
  journal: Journal;
  /** Conformance runs against clients' Connectors (conformance.md). */
  conformance: ConformanceRuns;
  /** What GET /metrics exposes. */
  metrics: BankMetrics;
  /** Drops expired nonces and idempotency records and prunes the journal; expired rows go a chunk at a time. */
  housekeeping(): Promise<void>;
  close(): void;
}

function resolveFile(file: string): string {
  return path.isAbsolute(file) ? file : path.resolve(process.cwd(), file);
}

/** The answer size limit of a conformance run's exchanges and how many runs are kept (docs/conformance.md); the deadline is CONFORMANCE_EXCHANGE_TIMEOUT_MS. */
const CONFORMANCE_DEFAULTS = { maxResponseBytes: 1024 * 1024, defaultWindowS: 15, runsKept: 50 };

/** The version in package.json (the reports name the Bank they came from). */
function bankVersion(): string {
  return packageVersion() ?? 'unknown';
}

/** A router built on its first request (the control plane: its modules load when /sandbox is first used). */
function builtOnFirstUse(build: () => express.Router): express.RequestHandler {
  let router: express.Router | null = null;
  return (req, res, next) => {
    router ??= build();
    router(req, res, next);
  };
}

export async function loadBankKey(keys: BankKeyRepository, clock: Clock, logger: Logger): Promise<SigningKey> {
  let jwk = keys.active();
  if (!jwk) {
    jwk = await generateSigningJwk();
    keys.save(jwk, clock.now());
    logger.info('generated the bank signing key', { kid: jwk.kid });
  }
  return signingKeyFromJwk(jwk);
}

export function loadRules(config: BankConfig) {
  if (!config.rulesFile) return [];
  const file = resolveFile(config.rulesFile);
  const { rules } = loadJsonFile<{ rules: Rule[] }>(file, 'rules');
  try {
    return compileRules(rules);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

export function loadClientDefinitions(config: BankConfig): ClientDefinition[] {
  return loadJsonFile<{ clients: ClientDefinition[] }>(resolveFile(config.clientsFile), 'clients').clients;
}

/** Opens the Bank on config.dataDir, which it holds until close (wire/data-dir-lock.ts). */
export async function createBank(config: BankConfig, options: BankOptions = {}): Promise<Bank> {
  const logger = options.logger ?? createLogger(config.logLevel, false, { format: config.logFormat });
  const lock = options.dataDirLock ?? lockBankDataDir(config.dataDir, logger);
  return releasedOnFailure(lock, (opened) => assembleBank(config, { ...options, logger }, lock, opened));
}

export const BANK_OWNER: DirectoryOwner = {
  name: 'Bank',
  setting: 'DATA_DIR',
  hazard: 'Two Banks on one store would send every callback twice and lose journal entries',
};

/** Takes DATA_DIR for a Bank, or throws DataDirInUse naming the process that holds it. */
export function lockBankDataDir(dataDir: string, logger: Logger): DataDirLock {
  return lockDataDir(dataDir, BANK_OWNER, (message, meta) => logger.warn(message, meta));
}

async function assembleBank(config: BankConfig, options: BankOptions & { logger: Logger }, lock: DataDirLock, opened: (close: () => void) => void): Promise<Bank> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  const clients = options.clients ?? loadClientDefinitions(config);
  // A jwks_uri client's keys are fetched on first need, by the fetcher made once the Bank's key is loaded.
  const remoteJwks: RemoteJwksFactory = (clientId, url) => new RemoteJwks(url, (target, id) => jwksFetcher.fetch(target, id), () => clock.now(), config.jwksCacheTtlS, logger, clientId);
  const registry = new ClientRegistry(clients, remoteJwks);
  const rules = loadRules(config);
  const db = openBankDatabase(config.dataDir, { warn: (message, meta) => logger.warn(message, meta) });
  opened(() => db.close());
  // Before any repository prepares its statements: writes outside a unit must commit an open group first.
  const writes = new GroupCommit(db);
  const events = new EventRepository(db);
  const eventLog = new EventLog(events, clock, logger, { retention: config.eventsRetention, heartbeatMs: options.sseHeartbeatMs });
  const journal = new Journal(
    new JournalRepository(db),
    clock,
    {
      enabled: config.journal === 'on', bodyLimit: config.journalBodyLimit, maxEntries: config.journalMaxEntries, maxAgeS: config.journalMaxAgeS,
      idsNamedUpTo: events.highestJournalIdNamed(),
    },
    logger,
  );
  // The file, merged with the registrations and changes made at run time (store/clients.ts: precedence).
  const clientRepository = new ClientRepository(db);
  putStoredClients(registry, clientRepository.loadWithFile(clients, clock.now()), logger);
  const signer = await loadBankKey(new BankKeyRepository(db), clock, logger);
  const tokens = new TokenService(signer, clock, config.issuer, config.tokenAudience, config.tokenTtlS);
  const nonces = new NonceRepository(db);
  const widened = nonces.followWindow(config.timestampWindowS);
  if (widened > 0) logger.info('TIMESTAMP_WINDOW_S is wider than at the last start: spent nonces are kept longer', { nonces: widened, window_s: config.timestampWindowS });
  const idempotency = new IdempotencyRepository(db);
  const orders = new OrderRepository(db);
  const outbox = new OutboxRepository(db);
  const identity = { bankClientId: config.bankClientId, signer, clock, journal };
  const jwksFetcher = new JwksFetcher({ bankClientId: config.bankClientId, signer, clock, timeoutMs: config.connectorTimeoutMs, tls: options.connectorTls ?? {}, allowPlainHttp: config.sandboxMode === 'relaxed', journal });
  const connectors = new ConnectorDirectory(identity, config.connectorTimeoutMs, config.dispatchConcurrency, connectorSettings(config, registry, options.connectorTls));
  const pauses = new ClientPauseRepository(db);
  const testClockRows = new TestClockRepository(db);
  dropControlsOfDeletedClients(db, clientRepository.deletedAtRuntime(), pauses, testClockRows, logger);
  for (const clientId of pauses.paused()) connectors.setPaused(clientId, true);
  const clocks = new ClientClocks(clock, testClockRows);
  // /metrics (docs/operations.md#metrics): the outgoing side is counted from the events it publishes.
  const metrics = new BankMetrics({ outbox: new OutboxDepthRepository(db), clocks, guard: requireAdmin(config) });
  const observedEvents = metrics.observing(eventLog);
  const outboxWriter = new OutboxWriter(outbox, clocks, config.reportPending, (clientId) => connectors.has(clientId));
  const book = new OrderBook(db, orders, new CreateFailureRepository(db), outboxWriter, clocks, rules, eventLog);
  const createOrder = new CreateOrder(writes, book, idempotency, clocks, config);
  const pulledOrders = new PulledOrders(book, new PollStateRepository(db), clock, logger);
  const messages = new CallbackMessages(db, outbox, clocks, {
    batchSize: config.batchSize,
    batchWindowMs: config.batchWindowMs,
    autoBatchThreshold: config.autoBatchThreshold,
    retry: { scheduleS: config.retryScheduleS, horizonS: config.retryHorizonS, jitter: 0.1 },
  }, observedEvents);
  const services: InboundServices = { config, clock, registry, tokens, nonces, writes };
  const readiness = () => {
    const checks: Record<string, boolean | string | number> = { database: false, migrations: false, keys: Boolean(signer.kid) };
    try {
      checks.schema_version = schemaVersion(db);
      checks.database = true;
      checks.migrations = checks.schema_version === LATEST_MIGRATION;
    } catch {
      checks.database = false;
    }
    return { ready: Boolean(checks.database && checks.migrations && checks.keys), checks };
  };
  const faults = new FaultProfiles(new ClientFaultRepository(db), clock, logger);
  const outbound = createOutbound({ config, connectors, book, outboxWriter, pulledOrders, messages, clocks, logger, events: observedEvents, faults });
  const testClocks = new TestClocks(clocks, book, idempotency, outbound.dispatcher, observedEvents, logger);
  // An advance a crash cut short finishes once its deliveries can go; it logs its own failure.
  outbound.afterStart(() => void testClocks.resumeUnfinished());
  const publishedKeys = new PublishedKeys(signer.publicJwk);
  const conformance = new ConformanceRuns({
    db, repo: new ConformanceRunRepository(db), connectors, book, journal, events: eventLog, signer, clock, logger,
    clientExists: (clientId) => registry.find(clientId) !== undefined,
    publishKey: (jwk) => publishedKeys.add(jwk),
    settings: { ...CONFORMANCE_DEFAULTS, exchangeTimeoutMs: config.conformanceExchangeTimeoutMs, bankClientId: config.bankClientId, bankVersion: bankVersion(), reportBodyLimit: config.journalBodyLimit, allowPlainHttp: config.sandboxMode === 'relaxed' },
  });
  const app = buildApp({
    services, logger, book, createOrder, readiness, journal, metrics, events: eventLog, pollFaults: faults,
    jwks: () => ({ keys: publishedKeys.all() }),
    extraRoutes: (router) =>
      router.use('/sandbox', markRouteBase, builtOnFirstUse(() => (require('./control-wiring') as typeof import('./control-wiring')).sandboxRouter({
        config, logger, book, connectors, poller: outbound.poller, events: eventLog, eventLog, journal,
        messages, testClocks, wakeDispatcher: outbound.wake, pauses, registry, faults, conformance, db, orders, outbox, clocks,
        clientRegistrations: { repository: clientRepository, connectorTls: options.connectorTls ?? {}, clock, jwksUriRefusal: (url) => jwksFetcher.refusal(url) },
      }))),
  });
  // Expired nonces are ~50,000 rows a minute at 850 creates/s, more after a busy spell (140,000 held the event loop
  // 1.2 s in one DELETE): they go a chunk at a time, requests served in between (store/chunked-delete.ts). The
  // journal's prune runs first and at once, as before (each flush prunes too, so it is incremental). A run still
  // going when the next is due: that one joins it.
  let housekeepingRun: Promise<void> | null = null;
  const housekeeping = (): Promise<void> => {
    if (housekeepingRun) return housekeepingRun;
    const run = (async () => {
      try {
        const journalCount = journal.prune();
        if (journalCount > 0) logger.debug('pruned the journal', { entries: journalCount });
        const now = clock.now();
        const nonceCount = await nonces.pruneInChunks(now);
        if (!db.open) return;
        const idemCount = await idempotency.pruneInChunks(now);
        if (nonceCount + idemCount > 0) logger.debug('pruned expired records', { nonces: nonceCount, idempotency_records: idemCount });
      } catch (error) {
        if (db.open) logger.warn('housekeeping failed', { error: (error as Error).message });
      }
    })();
    housekeepingRun = run;
    void run.then(() => {
      if (housekeepingRun === run) housekeepingRun = null;
    });
    return run;
  };
  return {
    config, app, db, book, pulledOrders, clocks, testClocks, signer, registry, tokens, outbound, clock, logger, housekeeping, events: eventLog, journal, conformance, metrics,
    close: () => {
      outbound.halt();
      jwksFetcher.close();
      if (db.open) journal.close();
      eventLog.close();
      if (db.open) db.close();
      lock.release();
    },
  };
}
