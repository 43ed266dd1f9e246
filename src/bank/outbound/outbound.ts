// Wires the outgoing half: outbox listener, Connector clients, poller (node-cron), settlement and dispatcher.
import type { ScheduledTask } from 'node-cron';
import type { Logger } from 'winston';
import { OrderBook } from '../application/order-book';
import { BankConfig } from '../config';
import { reportCopies } from '../domain/callbacks';
import { Clock } from '../../wire/clock';
import { SigningKey } from '../../wire/keys';
import { ClientRegistry } from '../security/client-registry';
import { Db } from '../store/db';
import { OutboxRepository } from '../store/outbox';
import { PollStateRepository } from '../store/poll-state';
import { ConnectorClient } from './connector-client';
import { connectorSettings, ConnectorTls } from './connectors';
import { Dispatcher } from './dispatcher';
import { Poller } from './poller';
import { SettlementScheduler } from './settlement';

export interface OutboundDeps {
  config: BankConfig;
  db: Db;
  book: OrderBook;
  registry: ClientRegistry;
  signer: SigningKey;
  clock: Clock;
  logger: Logger;
  /** The Bank's client certificate and the CA that verifies Connectors (dev PKI), unless a client overrides them. */
  tls?: ConnectorTls;
}

export interface Outbound {
  poller: Poller;
  dispatcher: Dispatcher;
  settlement: SettlementScheduler;
  outbox: OutboxRepository;
  pollState: PollStateRepository;
  connectors: ConnectorClient[];
  start(): void;
  /** Stops timers and new work at once (used when the store closes). */
  halt(): void;
  stop(timeoutMs: number): Promise<void>;
}

export function createOutbound(deps: OutboundDeps): Outbound {
  const { config, db, book, clock, logger } = deps;
  const outbox = new OutboxRepository(db);
  const pollState = new PollStateRepository(db);
  const identity = { bankClientId: config.bankClientId, signer: deps.signer, clock };
  const connectors = connectorSettings(config, deps.registry, deps.tls).map(
    (settings) => new ConnectorClient(settings, identity, config.connectorTimeoutMs, config.dispatchConcurrency),
  );
  const reporting = new Set(connectors.map((connector) => connector.settings.clientId));
  const dispatcher = new Dispatcher(outbox, connectors, clock, logger, {
    batchSize: config.batchSize,
    batchWindowMs: config.batchWindowMs,
    autoBatchThreshold: config.autoBatchThreshold,
    retry: { scheduleS: config.retryScheduleS, horizonS: config.retryHorizonS, jitter: 0.1 },
    concurrency: config.dispatchConcurrency,
    allowPlainHttp: config.sandboxMode === 'relaxed',
  });

  let wakeScheduled = false;
  const wake = () => {
    if (wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      void pump();
    });
  };
  // Keeps dispatching while passes find work, so a burst drains at full speed rather than one pass per interval.
  const pump = async () => {
    if (!db.open) return;
    try {
      while ((await dispatcher.runOnce()) > 0);
    } catch (error) {
      logger.error('dispatch pass failed', { error: (error as Error).message });
    }
  };

  book.onStatusChange((order, change) => {
    if (!reporting.has(order.clientId)) return;
    const copies = reportCopies(order, change, config.reportPending);
    if (copies === 0) return;
    outbox.enqueue({
      clientId: order.clientId,
      reference: order.reference,
      bankReference: order.bankReference,
      status: change.to,
      reasonCode: change.reasonCode,
      reasonMessage: change.reasonMessage,
      processedAt: change.at,
      copies,
      createdAt: clock.now(),
    });
    wake();
  });

  const poller = new Poller(db, book, pollState, connectors, clock, logger, config.pollStartOffset);
  const settlement = new SettlementScheduler(book, config.settleIntervalMs, logger, wake);
  let pollTask: ScheduledTask | null = null;
  let dispatchTimer: NodeJS.Timeout | null = null;

  return {
    poller, dispatcher, settlement, outbox, pollState, connectors,
    start() {
      settlement.start();
      dispatchTimer = setInterval(() => void pump(), config.dispatchIntervalMs);
      if (config.pollCron !== 'off' && connectors.some((connector) => connector.settings.poll)) {
        // Loaded only when a pull is scheduled.
        const cron = require('node-cron') as typeof import('node-cron');
        pollTask = cron.schedule(config.pollCron, () => poller.runCycle(), { noOverlap: true, name: 'pull' });
      }
      logger.info('outbound started', {
        connectors: connectors.map((connector) => ({ client_id: connector.settings.clientId, url: connector.settings.baseUrl, mode: connector.settings.callbackMode, poll: connector.settings.poll })),
        poll_cron: config.pollCron,
      });
    },
    halt() {
      void pollTask?.stop();
      settlement.stop();
      if (dispatchTimer) clearInterval(dispatchTimer);
      dispatcher.halt();
    },
    async stop(timeoutMs: number) {
      await pollTask?.stop();
      settlement.stop();
      if (dispatchTimer) clearInterval(dispatchTimer);
      const drained = dispatcher.stop();
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
      for (const connector of connectors) connector.close();
    },
  };
}
