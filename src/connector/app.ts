// The reference Connector's HTTP surface (contract 4.2): the pull the Bank calls, the two callbacks the Bank
// sends, plus /healthz and /state for the demo. What it shows a Connector team:
// - the pull is a pure query over the Connector's orders: offset is an inclusive initiated_at cursor that the
//   Bank controls, and the Connector keeps no consumption state;
// - a callback is verified, checked for idempotency by X-Idempotency-Key, validated, then applied in ONE
//   transaction: all of it or nothing (a batch with one bad item is rejected whole);
// - a final status never changes, the same final is applied once, PENDING after a final is ignored;
// - every answer carries an X-Request-Id (the caller's when wire/request-id.ts takes it, else a new one), and
//   what the body reader refuses (too large, an unsupported Content-Encoding, bytes that do not decode, a client
//   gone mid-body) is a problem like any other, never a 500.
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'winston';
import type { CreateResult, PaymentOrderBody } from './bank-client';
import { withStableShapes } from '../wire/stable-shapes';
import { missingHost, routeNotFound } from '../wire/http-edge';
import { parseInstant } from '../wire/rfc3339';
import { BankJwks } from './bank-jwks';
import { ConnectorConfig } from './config';
import { Flaws } from './flaws';
import { Problem, problemHandler } from './problems';
import { CONTRACT_RULES, parseBatchCallback, parseUnitCallback, StatusItem, StatusRules, validItemsOfBatch } from './status-objects';
import { ConnectorStore, sha256Hex, StatusVia } from './store';
import { verifyBankRequest } from './verify-bank-request';
import { requestIdOf } from '../wire/request-id';

export interface ConnectorAppDeps {
  config: ConnectorConfig;
  store: ConnectorStore;
  jwks: BankJwks;
  logger: Logger;
  now?: () => number;
  /** Pushes an order to the Bank (create); exposed as POST /orders so a demo or a test can trigger it. */
  push?: (order: PaymentOrderBody) => Promise<CreateResult>;
  /** Deliberate flaws (flaws.ts); default: those of config.flaws. */
  flaws?: Flaws;
}

const BODY_LIMIT = '1mb';
/** The Content-Encodings the body reader (express.raw) decodes, besides identity. */
const ACCEPTED_ENCODINGS = 'gzip, deflate, br';
const PULL_STATUSES = ['READY', 'INITIATED', 'PENDING'];
/**
 * Contract 4.2.1 states INITIATED or PENDING for the pull and its example sends READY; this Connector keeps an order
 * waiting for the Bank as READY, so a pull for INITIATED gets the same orders (docs/profile-decisions.md).
 */
const STORED_PULL_STATUS: Record<string, string> = { INITIATED: 'READY' };
/** A page size no store holds (SQLite's LIMIT takes a 64-bit integer). */
const EVERY_ORDER = Number.MAX_SAFE_INTEGER;

type Handler = (req: Request, res: Response) => Promise<void> | void;

/** Passes async errors to the problem handler. */
const route = (handler: Handler) => (req: Request, res: Response, next: NextFunction) => {
  Promise.resolve(handler(req, res)).catch(next);
};

const rawBodyOf = (req: Request): Buffer => (Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));

function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = Date.now();
    const requestId = requestIdOf(req);
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      logger.info('request', {
        request_id: requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Date.now() - started,
        idempotency_key: req.headers['x-idempotency-key'],
        code: res.locals.problemCode,
      });
    });
    next(missingHost(req));
  };
}

/** What body-parser (express.raw) fails with: an http-errors error, with a `type` for the cases it names. */
interface BodyReadError {
  type?: string;
  status?: number;
  code?: string;
}

/**
 * express.raw, with its refusals turned into problems: 413 body_too_large, 415 unsupported_media_type for a
 * Content-Encoding it cannot decode (with Accept-Encoding, RFC 9110 15.5.16), 400 body_malformed for bytes that do
 * not decode (gzip that is not gzip) or do not match Content-Length. A client that went away mid-body is the
 * client's doing: logged once at info, no stack, and answered nothing (there is no one to answer). With a
 * Content-Encoding the reader never hears of it (it reads the decoder, not the request), hence the close listener.
 */
function rawBodyReader(logger: Logger): RequestHandler {
  const read = express.raw({ type: () => true, limit: BODY_LIMIT });
  return (req, res, next) => {
    let wentAway = false;
    const logWentAway = () => {
      if (wentAway) return;
      wentAway = true;
      logger.info('client went away before its body was complete', { request_id: res.locals.requestId, method: req.method, path: req.path });
    };
    const onClose = () => {
      if (!req.complete) logWentAway();
    };
    req.once('close', onClose);
    read(req, res, (error?: unknown) => {
      req.off('close', onClose);
      if (!error) return next();
      const { type, status, code } = error as BodyReadError;
      if (type === 'entity.too.large') return next(new Problem('body_too_large', `the body exceeds the ${BODY_LIMIT} limit`));
      if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
        res.setHeader('Accept-Encoding', ACCEPTED_ENCODINGS);
        return next(new Problem('unsupported_media_type', `unsupported Content-Encoding: send the body unencoded (identity) or as ${ACCEPTED_ENCODINGS}`));
      }
      if (wentAway || type === 'request.aborted' || code === 'ECONNRESET' || code === 'ECONNABORTED' || req.socket.destroyed) {
        logWentAway();
        return next(new Problem('body_malformed', 'the connection closed before the body was complete'));
      }
      if (typeof status === 'number' && status >= 400 && status < 500) {
        const encoding = req.headers['content-encoding'];
        const what = type === 'request.size.invalid' ? 'the body does not match its Content-Length' : `the body could not be decoded${encoding ? ` as its Content-Encoding (${String(encoding).slice(0, 20)})` : ''}`;
        return next(new Problem('body_malformed', what));
      }
      next(error);
    });
  };
}

/** status, limit and offset are all required (contract 4.2.1). */
function pullQuery(req: Request): { status: string; limit: number; offset: string; offsetMs: number } {
  const query = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
  const status = query.get('status');
  const limit = query.get('limit');
  const offset = query.get('offset');
  if (!status || !PULL_STATUSES.includes(status)) throw new Problem('query_invalid', `status is required, one of ${PULL_STATUSES.join(', ')}`);
  if (!limit || !/^[1-9][0-9]{0,8}$/.test(limit)) throw new Problem('query_invalid', 'limit is required, a whole number from 1');
  const offsetMs = parseInstant(offset);
  if (offset === null || offsetMs === null) throw new Problem('query_invalid', 'offset is required, an RFC 3339 UTC instant ending in Z');
  return { status, limit: Number(limit), offset, offsetMs };
}

export function buildConnectorApp(deps: ConnectorAppDeps): express.Express {
  const { store, logger } = deps;
  const now = deps.now ?? Date.now;
  const flaws = deps.flaws ?? new Flaws(deps.config.flaws);
  const verifyDeps = { config: deps.config, store, jwks: deps.jwks, now, flaws };
  let statusRules: StatusRules = CONTRACT_RULES;
  if (flaws.has('accepts_failed_without_reason')) statusRules = { failedNeedsReason: false }; // FLAW accepts_failed_without_reason: FAILED without a reason passes
  // express's per-request properties created before it swaps the prototypes (wire/stable-shapes.ts says why).
  const app = withStableShapes(express());
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(accessLog(logger));
  // Keep the raw bytes: the signature covers them, and they must never be re-serialised to verify it.
  app.use(rawBodyReader(logger));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/state', (_req, res) => {
    res.json(store.snapshot());
  });

  app.get(
    '/payment-orders',
    route(async (req, res) => {
      await verifyBankRequest(req, rawBodyOf(req), 'pull', verifyDeps);
      const { status, limit, offset, offsetMs } = pullQuery(req);
      let from = offsetMs; // inclusive: orders at exactly the offset's instant come back
      if (flaws.has('exclusive_offset')) from = offsetMs + 1; // FLAW exclusive_offset: leaves out the orders at the offset's instant
      const stored = STORED_PULL_STATUS[status] ?? status;
      let page = store.pullPage(stored, from, limit);
      if (flaws.has('ignores_limit')) page = store.pullPage(stored, from, EVERY_ORDER); // FLAW ignores_limit: every matching order, whatever the limit
      if (page.orders.length === 0) {
        res.status(204).end();
        return;
      }
      // content: the payment orders exactly as contract 2.1 defines them, nothing added.
      const content = page.orders.map((order) => JSON.parse(order.payload) as unknown);
      res.json({ offset, limit, size: content.length, total_elements: page.total, content });
    }),
  );

  /** Idempotency, validation and application of one callback, all inside one SQLite transaction. */
  function receiveCallback(kind: 'unit' | 'batch', req: Request, res: Response): void {
    const rawBody = rawBodyOf(req);
    const key = String(req.headers['x-idempotency-key']);
    const bodySha = sha256Hex(rawBody);
    const via: StatusVia = kind === 'unit' ? 'callback' : 'batch';
    const result = store.transaction(() => {
      const seen = store.callbackKey(key);
      if (seen) {
        if (seen.body_sha256 !== bodySha || seen.kind !== kind) throw new Problem('idempotency_key_reused', `X-Idempotency-Key ${key} was already used with another body`);
        return { replayed: true, applied: 0, unchanged: 0 };
      }
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw new Problem('body_malformed', 'the body is not JSON');
      }
      // One invalid item rejects a whole batch (contract 2.5).
      let parsed = kind === 'unit' ? parseUnitCallback(body, statusRules) : parseBatchCallback(body, key, statusRules);
      if (kind === 'batch' && flaws.has('applies_partial_batch')) parsed = validItemsOfBatch(body, key, statusRules); // FLAW applies_partial_batch: keeps a bad batch's valid items
      if (!parsed.value) throw new Problem('body_invalid', 'the status update does not match the contract', parsed.errors);
      if (parsed.errors.length > 0) logger.warn('FLAW applies_partial_batch: invalid batch items dropped, the valid ones applied', { idempotency_key: key, errors: parsed.errors });
      const items: StatusItem[] = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
      let applied = 0;
      items.forEach((item, index) => {
        const at = kind === 'unit' ? '' : `/orders/${index}`;
        const outcome = store.applyStatus(item.reference, { status: item.status, bankReference: item.bankReference, reasonCode: item.reasonCode, reasonMessage: item.reasonMessage }, via, now());
        // Throwing rolls back everything this callback applied so far: no partial acceptance.
        if (outcome.outcome === 'unknown') throw new Problem('order_not_found', outcome.detail ?? 'unknown order', [{ path: `${at}/reference`, message: 'unknown order' }]);
        if (outcome.outcome === 'conflict') throw new Problem('final_status_conflict', `${kind === 'batch' ? 'batch rejected: ' : ''}${outcome.detail}`, [{ path: `${at}/status`, message: outcome.detail ?? 'conflict' }]);
        if (outcome.outcome === 'apply') applied += 1;
      });
      store.recordCallbackKey(key, kind, 200, bodySha, now());
      return { replayed: false, applied, unchanged: items.length - applied };
    });
    logger.info(result.replayed ? 'callback replayed: already processed, nothing re-applied' : 'callback accepted', { kind, idempotency_key: key, ...result });
    res.json({ received: true, ...result });
  }

  app.post(
    '/callbacks/orders/status',
    route(async (req, res) => {
      await verifyBankRequest(req, rawBodyOf(req), 'callback', verifyDeps);
      receiveCallback('unit', req, res);
    }),
  );

  app.post(
    '/callbacks/orders/status/batch',
    route(async (req, res) => {
      await verifyBankRequest(req, rawBodyOf(req), 'callback', verifyDeps);
      receiveCallback('batch', req, res);
    }),
  );

  // Not part of the contract: lets an operator (or the demo) make this Connector push an order to the Bank.
  const push = deps.push;
  if (push) {
    app.post(
      '/orders',
      route(async (req, res) => {
        let order: PaymentOrderBody;
        try {
          order = JSON.parse(rawBodyOf(req).toString('utf8')) as PaymentOrderBody;
        } catch {
          throw new Problem('body_malformed', 'the body is not JSON');
        }
        if (typeof order?.reference !== 'string') throw new Problem('body_invalid', 'a payment order with a reference is required');
        const result = await push(order);
        res.json({ reference: order.reference, bank_http_status: result.httpStatus, bank_body: result.body, status: result.status, error: result.error });
      }),
    );
  }

  app.use(routeNotFound);
  app.use(problemHandler(logger));
  return app;
}
