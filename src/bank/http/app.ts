// The Bank's HTTP surface: routes, request ids, access log and problem rendering.
import express, { NextFunction, Request, Response } from 'express';
import type { Logger } from 'winston';
import { OrderBook } from '../application/order-book';
import { CreateOrder } from '../application/create-order';
import { createOrderHandler } from './create/handler';
import { Exchange, FlowSpec, InboundServices } from './exchange';
import { flowRoute, requestIdOf } from './flow';
import { healthRoutes, ReadinessProbe } from './health/routes';
import { AUTH_CHALLENGE, PROBLEM_CONTENT_TYPE, problemBody, ProblemError } from '../../wire/problems';
import { RateLimiter } from './rate-limiter';
import { orderStatusHandler, PollFaults } from './status/handler';
import { tokenHandler } from './token/handler';
import { oauthErrorBody, TOKEN_NO_STORE } from './token/oauth-errors';
import { Jwks } from '../../wire/keys';
import { methodNotAllowed, missingHost, requestPath, routeNotFound } from '../../wire/http-edge';
import { EventSink } from '../application/events';
import { Journal } from '../application/journal';
import { journalCapture } from './journal';
import { withStableShapes } from '../../wire/stable-shapes';
import { openApiRoutes } from './openapi/routes';
import { dashboardRoutes } from './dashboard';
import type { HttpMetrics } from '../observability/metrics';
import { answeredStatus } from '../observability/request-metrics';

const STATUS_PATH = /^\/payment-orders\/([^/]+)\/status$/;

export interface AppDeps {
  services: InboundServices;
  logger: Logger;
  book: OrderBook;
  createOrder: CreateOrder;
  jwks: () => Jwks;
  readiness: ReadinessProbe;
  /** Extra routers mounted before the 404 fallback (sandbox endpoints). */
  extraRoutes?: (app: express.Express) => void;
  /** Records every exchange (control-plane.md section 4). */
  journal?: Journal;
  /** Hears of every refusal (`request.refused`). */
  events?: EventSink;
  /** GET /metrics, and the request counts behind it. */
  metrics?: HttpMetrics;
  /** Clients' fault profiles: status polls they throttle (conformance.md section 4). */
  pollFaults?: PollFaults;
}

export function flowSpecs(services: InboundServices): { create: FlowSpec; status: FlowSpec } {
  const { config } = services;
  return {
    create: {
      flow: 'create',
      requiredHeaders: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key', 'content-type'],
      authMethods: ['bearer', 'dpop'],
      hasBody: true,
      requiresMtls: false,
      rateLimiter: new RateLimiter(config.createRatePerS, config.createRateBurst),
    },
    status: {
      flow: 'status',
      requiredHeaders: ['x-client-id', 'x-timestamp', 'x-nonce'],
      authMethods: ['bearer', 'dpop', 'api_key'],
      hasBody: false,
      requiresMtls: true,
      rateLimiter: new RateLimiter(config.statusRatePerS, config.statusRateBurst),
    },
  };
}

function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const refusal = missingHost(req);
    if (!logger.isLevelEnabled('info')) return next(refusal);
    // Taken now: a mounted router (/sandbox, the token endpoint's) strips its prefix from req.path while it runs.
    const path = requestPath(req);
    // On `close`, which follows every response: `finish` never comes for one the client ends (an event stream).
    res.on('close', () => {
      const exchange = res.locals.exchange as Exchange | undefined;
      logger.info('request', {
        request_id: requestId,
        method: req.method,
        path,
        status: answeredStatus(res),
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        client_id: exchange?.client?.id,
        code: res.locals.problemCode,
      });
    });
    next(refusal);
  };
}

/** How a problem is written: RFC 9457 problem+json, or RFC 6749 §5.2 JSON on the token endpoint. */
type ProblemFormat = (problem: ProblemError, req: Request, requestId: string) => { contentType: string; body: unknown; challenge?: string; headers?: Record<string, string> };

const problemJson: ProblemFormat = (problem, req, requestId) => ({
  contentType: PROBLEM_CONTENT_TYPE,
  body: problemBody(problem, requestPath(req), requestId),
  // RFC 9110 §15.5.2: every 401 names the schemes that would work, unless the step named one already.
  challenge: AUTH_CHALLENGE,
});

const oauthJson: ProblemFormat = (problem, _req, requestId) => ({ contentType: 'application/json', body: oauthErrorBody(problem, requestId), headers: { ...TOKEN_NO_STORE } });

/** The client a refused request came from: the authenticated one, else the X-Client-Id it claimed, else null. */
function refusedClientId(req: Request, res: Response): string | null {
  const exchange = res.locals.exchange as Exchange | undefined;
  const claimed = req.headers['x-client-id'];
  return exchange?.client?.id ?? (typeof claimed === 'string' ? claimed : null);
}

/** `request.refused` for the live events: the code, and the ids to find the exchange in the journal. */
function publishRefusal(events: EventSink | undefined, problem: ProblemError, req: Request, res: Response, requestId: string): void {
  if (!events) return;
  const clientId = refusedClientId(req, res);
  const data: Record<string, unknown> = { code: problem.code, method: req.method, path: requestPath(req), request_id: requestId };
  if (typeof res.locals.journalId === 'number') data.journal_id = res.locals.journalId;
  events.publish('request.refused', clientId, data);
}

function renderProblem(logger: Logger, format: ProblemFormat = problemJson, events?: EventSink) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const requestId = (res.locals.requestId as string | undefined) ?? requestIdOf(req);
    let problem: ProblemError;
    if (error instanceof ProblemError) {
      problem = error;
      logger.info('request rejected', { request_id: requestId, client_id: refusedClientId(req, res) ?? undefined, code: problem.code, detail: problem.detail });
    } else {
      problem = new ProblemError('internal', 'the bank failed to process this request; it has been logged under this request_id');
      logger.error('unhandled error', { request_id: requestId, error: (error as Error)?.stack ?? String(error) });
    }
    res.locals.problemCode = problem.code;
    publishRefusal(events, problem, req, res, requestId);
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(problem.options.headers ?? {})) res.setHeader(name, value);
    const { contentType, body, challenge, headers } = format(problem, req, requestId);
    for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
    if (problem.status === 401 && challenge && !res.hasHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', challenge);
    const bytes = Buffer.from(JSON.stringify(body));
    res.status(problem.status).setHeader('Content-Type', contentType);
    res.setHeader('Content-Length', String(bytes.length));
    res.end(bytes);
  };
}

export function buildApp(deps: AppDeps): express.Express {
  const { services, logger } = deps;
  const specs = flowSpecs(services);
  // The journal's capture starts before express, with the other properties every exchange gets.
  const app = withStableShapes(express(), deps.journal ? journalCapture(deps.journal, services.clock) : undefined);
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.metrics) app.use(deps.metrics.countRequests);
  app.use(accessLog(logger));
  // The signed flows first: every request walks the routes in order, and these are the ones under load.
  app.post('/payment-orders', flowRoute(specs.create, services, logger, createOrderHandler(deps.createOrder)));
  app.all('/payment-orders', methodNotAllowed('POST'));
  // Matched by hand, not as an express route: express decodes route params before any handler runs, so a
  // malformed %-escape would fail ahead of the mTLS check. The handler decodes the id itself.
  const statusRoute = flowRoute(specs.status, services, logger, orderStatusHandler(deps.book, deps.pollFaults));
  app.use((req, res, next) => {
    const match = STATUS_PATH.exec(req.path);
    if (!match) return next();
    res.locals.route = '/payment-orders/:id/status';
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed('GET')();
    res.locals.rawOrderId = match[1];
    return statusRoute(req, res, next);
  });
  healthRoutes(app, deps.readiness);
  openApiRoutes(app, { httpPort: services.config.port, httpsPort: services.config.httpsPort });
  dashboardRoutes(app, services.config);
  if (deps.metrics) app.get('/metrics', ...deps.metrics.endpoint);
  app.get('/.well-known/jwks.json', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(deps.jwks());
  });
  app.post('/oauth/token', flowRoute(null, services, logger, tokenHandler(services)));
  app.all('/oauth/token', methodNotAllowed('POST'));
  app.use('/oauth/token', renderProblem(logger, oauthJson, deps.events));
  deps.extraRoutes?.(app);
  app.use(routeNotFound);
  app.use(renderProblem(logger, problemJson, deps.events));
  return app;
}
