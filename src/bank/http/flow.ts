// Wraps a flow: builds the Exchange, reads the raw body, runs the security pipeline, then the flow's handler.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'winston';
import { Exchange, FlowSpec, InboundServices } from './exchange';
import { runSecuritySteps, TRANSPORT_STEP } from './pipeline';
import { readRawBody } from './read-raw-body';
import { REQUEST_ID } from './steps/check_headers';

export interface FlowResult {
  status: number;
  /** Exact bytes to send (JSON unless contentType says otherwise); absent for an empty body. */
  body?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

export function requestIdOf(req: Request): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

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

function headerReader(req: Request): (name: string) => string | undefined {
  return (name) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

export function newExchange(req: Request, res: Response, logger: Logger, nowMs: number): Exchange {
  const requestId = res.locals.requestId as string;
  let child: Logger | null = null;
  const exchange: Exchange = {
    req, requestId, rawBody: Buffer.alloc(0), nowMs, header: headerReader(req),
    // Built on first use: most requests never log beyond the access line, and a child logger costs.
    get log(): Logger {
      child ??= logger.child({ request_id: requestId, client_id: exchange.client?.id });
      return child;
    },
  };
  return exchange;
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
