// Wires the outgoing half: Connector clients, poller (on POLL_CRON, pull-schedule.ts), settlement and dispatcher, around the
// application's use cases (PulledOrders, CallbackMessages, the order book's settlement).
import { cronSlots, scheduleOnWallClock, WallClockSchedule } from './pull-schedule';
import type { Logger } from 'winston';
import { CallbackMessages } from '../application/callback-messages';
import { EventSink } from '../application/events';
import { FaultProfiles } from '../application/fault-profiles';
import { OrderBook } from '../application/order-book';
import { OutboxWriter } from '../application/outbox-writer';
import { PulledOrders } from '../application/pulled-orders';
import { BankConfig } from '../config';
import { ClientClocks } from '../application/clocks';
import { ConnectorDirectory } from './connector-directory';
import { Dispatcher, plainHttpRefusal } from './dispatcher';
import { Poller } from './poller';
import { SettlementScheduler } from './settlement';
import { within } from '../../wire/within';

export interface OutboundDeps {
  config: BankConfig;
  /** The Connectors to pull from and call back (changed at run time by the control plane). */
  connectors: ConnectorDirectory;
  book: OrderBook;
  outboxWriter: OutboxWriter;
  pulledOrders: PulledOrders;
  messages: CallbackMessages;
  clocks: ClientClocks;
  logger: Logger;
  /** Where the poller publishes `poll.completed`. */
  events?: EventSink;
  /** Clients' fault profiles, applied to their callbacks and pulls. */
  faults?: FaultProfiles;
}

export interface Outbound {
  poller: Poller;
  dispatcher: Dispatcher;
  settlement: SettlementScheduler;
  connectors: ConnectorDirectory;
  /** Runs a dispatch pass soon (after a redelivery, a resume). */
  wake(): void;
  start(): void;
  /** Runs `work` at the end of start, when deliveries can go (a test clock advance a crash cut short resumes). */
  afterStart(work: () => void): void;
  /** Stops timers and new work at once (used when the store closes). */
  halt(): void;
  stop(timeoutMs: number): Promise<void>;
}

export function createOutbound(deps: OutboundDeps): Outbound {
  const { config, book, clocks, logger } = deps;
  const { connectors } = deps;
  const allowPlainHttp = config.sandboxMode === 'relaxed';
  const dispatcher = new Dispatcher(deps.messages, connectors, clocks, logger, {
    concurrency: config.dispatchConcurrency,
    allowPlainHttp,
    faults: deps.faults,
  });
  let halted = false;

  let wakeScheduled = false;
  const wake = () => {
    if (wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      pump();
    });
  };
  // Each Connector's passes follow one another while they find work (Dispatcher.kick); nothing here waits for them.
  const pump = () => {
    if (!halted) dispatcher.kick();
  };

  deps.outboxWriter.onQueued(wake);

  const poller = new Poller(deps.pulledOrders, connectors, logger, config.pollStartOffset, deps.events, deps.faults, allowPlainHttp);
  const settlement = new SettlementScheduler(book, config.settleIntervalMs, logger, wake);
  let pullSchedule: WallClockSchedule | null = null;
  let dispatchTimer: NodeJS.Timeout | null = null;
  let started = false;
  const startedWork: (() => void)[] = [];
  // The pull is scheduled once some Connector polls, at start or when one is registered later.
  const ensurePollSchedule = () => {
    // Only for a Connector that can be pulled: a strict Bank pulls no http:// one, so it arms no schedule for it either.
    const pullable = connectors.all().some((connector) => connector.settings.poll && poller.pullRefusal(connector) === null);
    if (!started || halted || pullSchedule || config.pollCron === 'off' || !pullable) return;
    pullSchedule = scheduleOnWallClock({ slots: cronSlots(config.pollCron), run: () => poller.runCycle(), logger });
  };
  // A Connector that can never be called back is a setting, so it is said once per Connector and URL (at start, and
  // when the control plane registers or changes one), not only at each refused attempt.
  const warnedRefusals = new Map<string, string>();
  const warnRefusedCallbacks = () => {
    if (!started) return;
    const current = new Map(connectors.all().map((connector) => [connector.settings.clientId, connector.settings.baseUrl]));
    for (const clientId of warnedRefusals.keys()) if (current.get(clientId) !== warnedRefusals.get(clientId)) warnedRefusals.delete(clientId);
    for (const [clientId, url] of current) {
      const refusal = plainHttpRefusal(url, allowPlainHttp);
      if (!refusal || warnedRefusals.get(clientId) === url) continue;
      warnedRefusals.set(clientId, url);
      logger.warn('this Connector is neither pulled nor called back in strict mode (a pulled order must be called back)', { client_id: clientId, url, reason: refusal });
    }
  };
  connectors.onChange(ensurePollSchedule);
  connectors.onChange(warnRefusedCallbacks);

  return {
    poller, dispatcher, settlement, connectors, wake,
    start() {
      started = true;
      settlement.start();
      dispatchTimer = setInterval(pump, config.dispatchIntervalMs);
      ensurePollSchedule();
      logger.info('outbound started', {
        connectors: connectors.all().map((connector) => ({ client_id: connector.settings.clientId, url: connector.settings.baseUrl, mode: connector.settings.callbackMode, poll: connector.settings.poll })),
        poll_cron: config.pollCron,
      });
      warnRefusedCallbacks();
      for (const work of startedWork) work();
    },
    afterStart(work) {
      startedWork.push(work);
    },
    halt() {
      halted = true;
      pullSchedule?.stop();
      settlement.stop();
      if (dispatchTimer) clearInterval(dispatchTimer);
      dispatcher.halt();
    },
    async stop(timeoutMs: number) {
      halted = true;
      pullSchedule?.stop();
      settlement.stop();
      if (dispatchTimer) clearInterval(dispatchTimer);
      const drained = dispatcher.stop();
      await within(timeoutMs, drained);
      connectors.close();
    },
  };
}
