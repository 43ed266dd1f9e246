// Composition of the reference Connector: its store (with the fixture orders loaded), the Bank client, the
// Bank's JWKS cache, the HTTP(S) server and the reverse poller. What it shows a Connector team: with TLS
// configured, the Connector serves HTTPS and REQUIRES the Bank's client certificate (callbacks are mTLS,
// profile section 4), and uses its own certificate as the client certificate for reverse polling.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type express from 'express';
import type { Logger } from 'winston';
import { Clock, systemClock } from '../wire/clock';
import { drainable } from '../wire/drain';
import { within } from '../wire/within';
import { listen } from '../wire/http-edge';
import { createLogger, LogFormatSetting } from '../wire/logger';
import { TlsMaterial } from '../wire/signed-client';
import { buildConnectorApp } from './app';
import { BankClient, ConnectorCredentials, PaymentOrderBody } from './bank-client';
import { BankJwks } from './bank-jwks';
import { ConnectorConfig } from './config';
import { Flaws } from './flaws';
import { ReversePoller } from './reverse-poller';
import { ConnectorStore, isFinalStatus, openConnectorStore } from './store';
import { DataDirLock, DirectoryOwner, lockDataDir, releasedOnFailure } from '../wire/data-dir-lock';

const SHUTDOWN_GRACE_MS = 2_000;

export interface ConnectorOptions {
  clock?: Clock;
  logger?: Logger;
  /** false: no timer; drive reverse polling with reversePoller.tick() (tests). Default true. */
  startPoller?: boolean;
}

export interface ReferenceConnector {
  url: string;
  config: ConnectorConfig;
  app: express.Express;
  store: ConnectorStore;
  bankClient: BankClient;
  reversePoller: ReversePoller;
  close(): Promise<void>;
}

/** The Bank's log formats (JSON lines, or readable on a terminal), tagged service=reference-connector. */
export function connectorLogger(level: string, silent = false, format: LogFormatSetting = 'auto'): Logger {
  return createLogger(level, silent, { format, service: 'reference-connector' });
}

function readFile(file: string, what: string): Buffer {
  const resolved = path.resolve(process.cwd(), file);
  try {
    return fs.readFileSync(resolved);
  } catch (error) {
    throw new Error(`${what} ${resolved}: ${(error as Error).message}`);
  }
}

function readJson<T>(file: string, what: string): T {
  try {
    return JSON.parse(readFile(file, what).toString('utf8')) as T;
  } catch (error) {
    throw new Error(`${what} ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

export function loadCredentials(file: string): ConnectorCredentials {
  const credentials = readJson<ConnectorCredentials>(file, 'CREDENTIALS_FILE');
  if (!credentials.client_id || !credentials.client_secret || !credentials.private_jwk) {
    throw new Error(`CREDENTIALS_FILE ${file} needs client_id, client_secret and private_jwk`);
  }
  return credentials;
}

export function loadFixtureOrders(file: string): PaymentOrderBody[] {
  const orders = readJson<unknown>(file, 'ORDERS_FIXTURE');
  if (!Array.isArray(orders) || orders.some((order) => typeof order?.reference !== 'string' || Number.isNaN(Date.parse(order?.initiated_at)))) {
    throw new Error(`ORDERS_FIXTURE ${file} must be a JSON array of payment orders (contract 2.1)`);
  }
  return orders as PaymentOrderBody[];
}

function tlsMaterial(config: ConnectorConfig): TlsMaterial | null {
  if (!config.tlsCert || !config.tlsKey) return null;
  return {
    cert: readFile(config.tlsCert, 'CONNECTOR_TLS_CERT'),
    key: readFile(config.tlsKey, 'CONNECTOR_TLS_KEY'),
    ca: config.tlsCa ? readFile(config.tlsCa, 'CONNECTOR_TLS_CA') : undefined,
  };
}

/**
 * A push create whose answer a stop or a crash lost: the Bank may hold the order, and a final it answered 200 is
 * never called back. Its status is fetched by reverse polling (a 404 raises an alert: the Bank never got it).
 */
function reversePollLostCreates(store: ConnectorStore, nowMs: number, logger: Logger): void {
  for (const reference of store.takeLostCreates()) {
    if (isFinalStatus(store.order(reference)?.status ?? null)) continue;
    store.schedulePolling(reference, nowMs);
    logger.warn('a create sent before the last stop has no recorded answer: reverse polling scheduled', { reference });
  }
}

const CONNECTOR_OWNER: DirectoryOwner = {
  name: 'reference Connector',
  setting: 'CONNECTOR_DATA_DIR',
  hazard: "Two Connectors on one store would both answer the Bank's pulls and reverse-poll the same orders",
};

/** Starts the reference Connector on config.dataDir, which it holds until close (wire/data-dir-lock.ts). */
export async function startReferenceConnector(config: ConnectorConfig, options: ConnectorOptions = {}): Promise<ReferenceConnector> {
  const logger = options.logger ?? connectorLogger(config.logLevel, false, config.logFormat);
  const lock = lockDataDir(config.dataDir, CONNECTOR_OWNER, (message, meta) => logger.warn(message, meta));
  return releasedOnFailure(lock, (opened) => startOn(config, { ...options, logger }, lock, opened));
}

async function startOn(config: ConnectorConfig, options: ConnectorOptions & { logger: Logger }, lock: DataDirLock, opened: (close: () => void) => void): Promise<ReferenceConnector> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  const credentials = loadCredentials(config.credentialsFile);
  const fixture = loadFixtureOrders(config.ordersFixture);
  const tls = tlsMaterial(config);
  const flaws = new Flaws(config.flaws);
  if (flaws.list.length > 0) logger.warn('DELIBERATELY FLAWED connector: it breaks the contract on purpose (conformance proof only)', { flaws: flaws.list });

  const store = openConnectorStore(config.dataDir, config.pollInitialMs);
  opened(() => store.close());
  const loaded = store.transaction(() => fixture.filter((order) => store.insertOrder(order, 'fixture', clock.now())).length);
  reversePollLostCreates(store, clock.now(), logger);
  const bankClient = new BankClient(config, credentials, store, clock, logger, tls ?? {});
  opened(() => bankClient.close());
  const jwks = new BankJwks(() => bankClient.fetchJwks(), () => clock.now(), logger, flaws);
  const app = buildConnectorApp({ config, store, jwks, logger, flaws, now: () => clock.now(), push: (order) => bankClient.createOrder(order) });
  const policy = { initialMs: config.pollInitialMs, maxMs: config.pollMaxMs, factor: config.pollFactor };
  const reversePoller = new ReversePoller(store, bankClient, policy, clock, logger, flaws);

  // rejectUnauthorized: a caller without a certificate from CONNECTOR_TLS_CA never reaches the app.
  const server = tls
    ? https.createServer({ cert: tls.cert, key: tls.key, ca: tls.ca, requestCert: true, rejectUnauthorized: true, requireHostHeader: false }, app)
    : http.createServer({ requireHostHeader: false }, app);
  const stopping = drainable(server);
  const port = await listen(server, config.port, config.host, { port: 'CONNECTOR_PORT', host: 'CONNECTOR_HOST' });
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `${tls ? 'https' : 'http'}://${host}:${port}`;
  if (options.startPoller !== false) reversePoller.start(Math.min(1000, Math.max(10, Math.floor(config.pollInitialMs / 2))));
  logger.info('reference connector listening', {
    url,
    tls: Boolean(tls),
    bank_url: config.bankUrl,
    bank_status_url: config.bankStatusUrl,
    data_dir: config.dataDir,
    fixture_orders: fixture.length,
    fixture_orders_added: loaded,
    client_id: credentials.client_id,
    flaws: flaws.list,
  });

  return {
    url, config, app, store, bankClient, reversePoller,
    async close() {
      await reversePoller.stop();
      // Stop accepting, answer the requests in flight (each with Connection: close) for a moment, then cut the rest.
      await within(SHUTDOWN_GRACE_MS, stopping.drain());
      server.closeAllConnections();
      bankClient.close();
      store.close();
      lock.release();
    },
  };
}
