// The control plane under /sandbox (control-plane.md): how a person or a CI job steers the Bank. Each area is a
// small module that adds its routes; every route calls the application layer's use cases, so nothing here
// bypasses a transaction, the outbox or the journal.
import express, { NextFunction, Request, Response } from 'express';
import type { Logger } from 'winston';
import { ProblemError } from '../../wire/problems';
import { CallbackMessages } from '../application/callback-messages';
import { EventSink } from '../application/events';
import { EventLog } from '../application/event-log';
import { Journal } from '../application/journal';
import { ResetStore } from '../application/reset';
import { TestClocks } from '../application/test-clocks';
import { ClientPauseRepository } from '../store/client-controls';
import { ClientRegistry } from '../security/client-registry';
import { OrderBook } from '../application/order-book';
import { OrderQueries } from '../application/order-queries';
import { BankConfig } from '../config';
import { ConnectorDirectory } from '../outbound/connector-directory';
import { Poller } from '../outbound/poller';
import { requireAdmin } from './admin';
import { clockArea } from './clock';
import { clientsArea } from './clients';
import { ClientRegistrations } from '../application/client-registrations';
import { ordersArea } from './orders';
import { eventsArea } from './events';
import { journalArea } from './journal';
import { faultsArea } from './faults';
import { conformanceArea } from './conformance';
import { ConformanceRuns } from '../application/conformance-runs';
import { FaultProfiles } from '../application/fault-profiles';
import { readRawBody } from '../http/read-raw-body';
import { isEncoded } from '../http/steps/check_size_and_media_type';

/** Everything the control-plane areas act through. */
export interface ControlDeps {
  config: BankConfig;
  logger: Logger;
  book: OrderBook;
  queries: OrderQueries;
  connectors: ConnectorDirectory;
  poller: Poller;
  events: EventSink;
  /** The event log itself: the SSE stream and `wait` subscribe to it. */
  eventLog: EventLog;
  /** The exchange journal; `journalFor(clientId, reference)` lists what touched one order. */
  journal: Journal;
  messages: CallbackMessages;
  testClocks: TestClocks;
  /** Runs a dispatch pass soon (after a redelivery or a resume). */
  wakeDispatcher: () => void;
  pauses: ClientPauseRepository;
  reset: ResetStore;
  registry: ClientRegistry;
  /** Clients at run time: register, change, delete (section 1). */
  clients: ClientRegistrations;
  /** Clients' fault profiles (conformance.md section 4). */
  faults: FaultProfiles;
  /** Conformance runs (conformance.md section 1). */
  conformance: ConformanceRuns;
}

/** One area of the control plane: adds its routes to the /sandbox router. */
export type ControlArea = (router: express.Router, deps: ControlDeps) => void;

const AREAS: readonly ControlArea[] = [ordersArea, clockArea, journalArea, eventsArea, clientsArea, faultsArea, conformanceArea];

/** 256 KiB. */
const BODY_LIMIT_BYTES = 256 * 1024;

/** A body is JSON or nothing: another media type (or a Content-Encoding) is 415 before any handler runs. */
function jsonOnly(req: Request, _res: Response, next: NextFunction): void {
  const length = Number(req.headers['content-length'] ?? 0);
  const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !/^application\/json\s*(;.*)?$/i.test(req.headers['content-type'] ?? '')) {
    throw new ProblemError('unsupported_media_type', 'a /sandbox request body must be application/json');
  }
  // The body is read as the bytes sent (read-raw-body.ts), never inflated: like POST /payment-orders.
  const encoding = req.headers['content-encoding'];
  if (hasBody && isEncoded(encoding)) {
    throw new ProblemError('unsupported_media_type', `Content-Encoding "${encoding}" is not accepted: send the JSON body uncompressed`);
  }
  next();
}

/**
 * The body as raw bytes (read-raw-body.ts, like POST /payment-orders): a Content-Length over the limit is 413
 * `body_too_large` before a byte is read, a chunked body as soon as it passes the limit, with `Connection: close`
 * (the connection ends after the answer instead of taking in the rest).
 */
async function rawBody(req: Request, _res: Response, next: NextFunction): Promise<void> {
  req.body = await readRawBody(req, BODY_LIMIT_BYTES);
  next();
}

function bodyProblems(error: unknown, _req: Request, _res: Response, next: NextFunction): void {
  // express decodes route params before any handler runs: a malformed %-escape names nothing.
  if (error instanceof URIError) return next(new ProblemError('not_found', 'a path segment is not a valid percent-encoded string'));
  next(error);
}

export function controlPlane(deps: ControlDeps): express.Router {
  const router = express.Router();
  router.use(requireAdmin(deps.config));
  router.use(jsonOnly, rawBody);
  for (const area of AREAS) area(router, deps);
  router.use(bodyProblems);
  return router;
}
