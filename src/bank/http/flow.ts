// Wraps a flow: builds the Exchange, reads the raw body, runs the security pipeline, then the flow's handler.
import { createHash, randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'winston';
import { Exchange, FlowSpec, InboundServices } from './exchange';
import type { RegisteredClient } from '../security/client-registry';
import type { AccessTokenClaims } from '../security/tokens';
import { runSecuritySteps, TRANSPORT_STEP } from './pipeline';
import { readRawBody } from './read-raw-body';

export interface FlowResult {
  status: number;
  /** Exact bytes to send (JSON unless contentType says otherwise); absent for an empty body. */
  body?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export { requestIdOf } from '../../wire/request-id';

export function jsonResult(status: number, value: unknown, headers?: Record<string, string>): FlowResult {
  return { status, body: Buffer.from(JSON.stringify(value)), headers };
}

export function sendResult(res: Response, result: FlowResult): void {
  res.status(result.status);
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if (result.body && result.body.length > 0) {
    res.setHeader('Content-Type', result.contentType ?? 'application/json');
    res.setHeader('Content-Length', String(result.body.length));
    res.end(result.body);
  } else {
    res.setHeader('Content-Length', '0');
    res.end();
  }
}

const EMPTY_BODY = Buffer.alloc(0);

/**
 * One inbound exchange. A class, not an object literal with a `log` getter: V8 gives each such literal its own
 * accessor pair, allocated in old space, and that pair's closure held the exchange and so the whole request. A dead
 * pair in old space is a root for every scavenge until the next full collection, so each request's objects were
 * copied and promoted instead of dying young (issue 15: 5-7 KB promoted a request, ~30 us of scavenging, and the
 * heap's growth after load; bench/README.md). Here the getter sits once on the prototype.
 */
class InboundExchange implements Exchange {
  rawBody: Buffer = EMPTY_BODY;
  // What the steps fill in later is declared now, so that every exchange keeps one shape.
  references?: readonly string[] = undefined;
  client?: RegisteredClient = undefined;
  token?: AccessTokenClaims = undefined;
  timestampMs?: number = undefined;
  dpopJti?: Exchange['dpopJti'] = undefined;
  private child: Logger | null = null;
  private hashed: { body: Buffer; sha256: Buffer } | null = null;

  constructor(readonly req: Request, readonly requestId: string, readonly nowMs: number, private readonly logger: Logger) {}

  /** Built on first use: most requests never log beyond the access line, and a child logger costs. */
  get log(): Logger {
    this.child ??= this.logger.child({ request_id: this.requestId, client_id: this.client?.id });
    return this.child;
  }

  get bodySha256(): Buffer {
    if (this.hashed?.body !== this.rawBody) this.hashed = { body: this.rawBody, sha256: createHash('sha256').update(this.rawBody).digest() };
    return this.hashed.sha256;
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

export function newExchange(req: Request, res: Response, logger: Logger, nowMs: number): Exchange {
  return new InboundExchange(req, res.locals.requestId as string, nowMs, logger);
}

/** Nothing is answered before the request's writes are committed (store/group-commit.ts). */
function committed(services: InboundServices): Promise<void> {
  return services.writes.committed() ?? Promise.resolve();
}

/** `spec` null: an endpoint outside the signed flows (token), which still gets the size limit and error handling. */
export function flowRoute(
  spec: FlowSpec | null,
  services: InboundServices,
  logger: Logger,
  handle: (exchange: Exchange) => FlowResult | Promise<FlowResult>,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const exchange = newExchange(req, res, logger, services.clock.now());
      res.locals.exchange = exchange;
      if (spec) TRANSPORT_STEP(exchange, services, spec);
      exchange.rawBody = await readRawBody(req, services.config.bodyLimitBytes);
      if (spec) {
        // Synchronous on the common path; a Promise only when a step waits (a jwks_uri client's key refetch).
        const pending = runSecuritySteps(exchange, services, spec);
        if (pending) await pending;
      }
      const result = await handle(exchange);
      await committed(services);
      sendResult(res, result);
    } catch (error) {
      // A refusal after the nonce step still spent the nonce: it too waits for the commit.
      await committed(services).catch(() => undefined);
      next(error);
    }
  };
}
