// Composition root of the Bank: store, keys, registry, domain services and the HTTP app.
import path from 'node:path';
import type express from 'express';
import type { Logger } from 'winston';
import { CallbackMessages } from './application/callback-messages';
import { CreateOrder } from './application/create-order';
import { OrderBook } from './application/order-book';
import { OrderQueries } from './application/order-queries';
import { OutboxWriter } from './application/outbox-writer';
import { PulledOrders } from './application/pulled-orders';
import { BankConfig } from './config';
import { Clock, systemClock } from '../wire/clock';
import { compileRules, Rule } from './domain/scenarios';
import { buildApp } from './http/app';
import { InboundServices } from './http/exchange';
import { createLogger } from '../wire/logger';
import { loadJsonFile } from '../wire/schemas';
import { ClientDefinition, ClientRegistry } from './security/client-registry';
import { generateSigningJwk, SigningKey, signingKeyFromJwk } from '../wire/keys';
import { TokenService } from './security/tokens';
import { BankKeyRepository } from './store/bank-keys';
import { ClientRepository } from './store/clients';
import { Db, LATEST_MIGRATION, openBankDatabase, schemaVersion } from './store/db';
import { IdempotencyRepository } from './store/idempotency';
import { NonceRepository } from './store/nonces';
import { CreateFailureRepository } from './store/create-failures';
import { OrderRepository } from './store/orders';
import { OutboxRepository } from './store/outbox';
import { PollStateRepository } from './store/poll-state';
import { createOutbound, Outbound } from './outbound/outbound';
import { ConnectorDirectory } from './outbound/connector-directory';
import { connectorSettings, ConnectorTls } from './outbound/connectors';
import { controlPlane } from './control';
import { NO_EVENTS } from './application/events';

export interface BankOptions {
  clock?: Clock;
  logger?: Logger;
  /** TLS material for callbacks to https:// Connectors (the dev PKI wires it). */
  connectorTls?: ConnectorTls;
}

export interface Bank {
  config: BankConfig;
  app: express.Express;
  db: Db;
  book: OrderBook;
  pulledOrders: PulledOrders;
  signer: SigningKey;
  registry: ClientRegistry;
  tokens: TokenService;
  outbound: Outbound;
  clock: Clock;
  logger: Logger;
  housekeeping(): void;
  close(): void;
}

function resolveFile(file: string): string {
  return path.isAbsolute(file) ? file : path.resolve(process.cwd(), file);
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

export async function createBank(config: BankConfig, options: BankOptions = {}): Promise<Bank> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const clients = loadClientDefinitions(config);
  const registry = new ClientRegistry(clients);
  const rules = loadRules(config);
  const db = openBankDatabase(config.dataDir);
  new ClientRepository(db).sync(clients, clock.now());
  const signer = await loadBankKey(new BankKeyRepository(db), clock, logger);
  const tokens = new TokenService(signer, clock, config.issuer, config.tokenAudience, config.tokenTtlS);
  const nonces = new NonceRepository(db);
  const idempotency = new IdempotencyRepository(db);
  const orders = new OrderRepository(db);
  const outbox = new OutboxRepository(db);
  const identity = { bankClientId: config.bankClientId, signer, clock };
  const connectors = new ConnectorDirectory(identity, config.connectorTimeoutMs, config.dispatchConcurrency, connectorSettings(config, registry, options.connectorTls));
  const outboxWriter = new OutboxWriter(outbox, clock, config.reportPending, (clientId) => connectors.has(clientId));
  const book = new OrderBook(db, orders, new CreateFailureRepository(db), outboxWriter, clock, rules);
  const createOrder = new CreateOrder(db, book, idempotency, config);
  const pulledOrders = new PulledOrders(book, new PollStateRepository(db), clock, logger);
  const messages = new CallbackMessages(db, outbox, clock, {
    batchSize: config.batchSize,
    batchWindowMs: config.batchWindowMs,
    autoBatchThreshold: config.autoBatchThreshold,
    retry: { scheduleS: config.retryScheduleS, horizonS: config.retryHorizonS, jitter: 0.1 },
  });
  const services: InboundServices = { config, clock, registry, tokens, nonces };
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
  const outbound = createOutbound({ config, connectors, book, outboxWriter, pulledOrders, messages, signer, clock, logger });
  const app = buildApp({
    services, logger, book, createOrder, readiness,
    jwks: () => ({ keys: [signer.publicJwk] }),
    extraRoutes: (router) =>
      router.use('/sandbox', controlPlane({ config, logger, book, queries: new OrderQueries(orders, outbox), connectors, poller: outbound.poller, events: NO_EVENTS })),
  });
  const housekeeping = () => {
    const now = clock.now();
    const nonceCount = nonces.prune(now);
    const idemCount = idempotency.prune(now);
    if (nonceCount + idemCount > 0) logger.debug('pruned expired records', { nonces: nonceCount, idempotency_records: idemCount });
  };
  return {
    config, app, db, book, pulledOrders, signer, registry, tokens, outbound, clock, logger, housekeeping,
    close: () => {
      outbound.halt();
      if (db.open) db.close();
    },
  };
}
