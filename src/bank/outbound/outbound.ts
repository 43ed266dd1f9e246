// Wires the outgoing half: Connector clients, poller (node-cron), settlement and dispatcher, around the
// application's use cases (PulledOrders, CallbackMessages, the order book's settlement).
import type { ScheduledTask } from 'node-cron';
import type { Logger } from 'winston';
import { CallbackMessages } from '../application/callback-messages';
import { OrderBook } from '../application/order-book';
import { OutboxWriter } from '../application/outbox-writer';
import { PulledOrders } from '../application/pulled-orders';
import { BankConfig } from '../config';
import { Clock } from '../../wire/clock';
import { SigningKey } from '../../wire/keys';
import { ConnectorDirectory } from './connector-directory';
import { Dispatcher } from './dispatcher';
import { Poller } from './poller';
import { SettlementScheduler } from './settlement';

export interface OutboundDeps {
  config: BankConfig;
  /** The Connectors to pull from and call back (changed at run time by the control plane). */
  connectors: ConnectorDirectory;
  book: OrderBook;
  outboxWriter: OutboxWriter;
  pulledOrders: PulledOrders;
  messages: CallbackMessages;
  signer: SigningKey;
  clock: Clock;
  logger: Logger;
}

export interface Outbound {
  poller: Poller;
  dispatcher: Dispatcher;
  settlement: SettlementScheduler;
  connectors: ConnectorDirectory;
  start(): void;
  /** Stops timers and new work at once (used when the store closes). */
  halt(): void;
  stop(timeoutMs: number): Promise<void>;
}

export function createOutbound(deps: OutboundDeps): Outbound {
  const { config, book, clock, logger } = deps;
  const { connectors } = deps;
  const dispatcher = new Dispatcher(deps.messages, connectors, clock, logger, {
    concurrency: config.dispatchConcurrency,
    allowPlainHttp: config.sandboxMode === 'relaxed',
  });
  let halted = false;

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
    if (halted) return;
    try {
      while ((await dispatcher.runOnce()) > 0);
    } catch (error) {
      logger.error('dispatch pass failed', { error: (error as Error).message });
    }
  };

  deps.outboxWriter.onQueued(wake);

  const poller = new Poller(deps.pulledOrders, connectors, logger, config.pollStartOffset);
  const settlement = new SettlementScheduler(book, config.settleIntervalMs, logger, wake);
  let pollTask: ScheduledTask | null = null;
  let dispatchTimer: NodeJS.Timeout | null = null;
  let started = false;
  // The pull is scheduled once some Connector polls, at start or when one is registered later.
  const ensurePollSchedule = () => {
    if (!started || halted || pollTask || config.pollCron === 'off' || !connectors.all().some((connector) => connector.settings.poll)) return;
    const cron = require('node-cron') as typeof import('node-cron');
    pollTask = cron.schedule(config.pollCron, () => poller.runCycle(), { noOverlap: true, name: 'pull' });
  };
  connectors.onChange(ensurePollSchedule);

  return {
    poller, dispatcher, settlement, connectors,
    start() {
      started = true;
      settlement.start();
      dispatchTimer = setInterval(() => void pump(), config.dispatchIntervalMs);
      ensurePollSchedule();
      logger.info('outbound started', {
        connectors: connectors.all().map((connector) => ({ client_id: connector.settings.clientId, url: connector.settings.baseUrl, mode: connector.settings.callbackMode, poll: connector.settings.poll })),
        poll_cron: config.pollCron,
      });
    },
    halt() {
      halted = true;
      void pollTask?.stop();
      settlement.stop();
      if (dispatchTimer) clearInterval(dispatchTimer);
      dispatcher.halt();
    },
    async stop(timeoutMs: number) {
      halted = true;
      await pollTask?.stop();
      settlement.stop();
      if (dispatchTimer) clearInterval(dispatchTimer);
      const drained = dispatcher.stop();
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
      connectors.close();
    },
  };
}
