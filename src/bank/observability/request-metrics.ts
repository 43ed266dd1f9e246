// Requests as /metrics counts them: by route pattern (never the raw path, whose order ids would make the label
// set unbounded), method and status, with their latency; and refusals by problem code.
//
// On the hot path (a signed create) the cost is one listener on `close`, three Map lookups to reach the series
// bound once for that route, method and status, and two additions (tallies.ts: prom-client writes them at a scrape).
import type { NextFunction, Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { PROBLEM_TYPES } from '../../wire/problems';
import { CounterTally, HistogramTally } from './tallies';

/** The route label of a request no route matched (404 `route_not_found`, an OPTIONS answered by express). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * `res.locals` keys a route may set for the route label: `route`, the pattern of a route matched by hand
 * (express sets none); `routeBase`, the mount path of a router (express restores `req.baseUrl` when an error
 * leaves the router, so it is taken while inside, by `markRouteBase`).
 */
interface RouteLocals {
  route?: unknown;
  routeBase?: unknown;
  metricsStartedAt?: number;
  problemCode?: unknown;
}

/**
 * Put first among a mounted router's handlers: `/sandbox` routes are then labelled `/sandbox/orders/...`. In lower
 * case, as the mount path is written: express matches `/SANDBOX` too, and the request's spelling of it must not
 * become a label value of its own.
 */
export function markRouteBase(req: Request, res: Response, next: NextFunction): void {
  res.locals.routeBase = req.baseUrl.toLowerCase();
  next();
}

/** The method label of a request whose request line node's parser could not read. */
export const UNPARSED_METHOD = 'unparsed';

/** The status of a request the client gave up on before any answer went out (nginx's code for it). */
export const CLIENT_CLOSED_REQUEST = 499;

/** The status a response ended with, for the metrics and the access log (read on `close`). */
export function answeredStatus(res: Response): number {
  return res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST;
}

/**
 * The route pattern that answered: the express route (`/payment-orders`, `/sandbox/orders/:client_id/:reference`),
 * the pattern a hand-matched route named, `<mount>/*` inside a router before any of its routes matched (the admin
 * check), or `unmatched`.
 */
export function routeLabel(req: Request, res: Response): string {
  const locals = res.locals as RouteLocals;
  if (typeof locals.route === 'string') return locals.route;
  const base = typeof locals.routeBase === 'string' ? locals.routeBase : '';
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return base === '' ? path : base + path;
  return base === '' ? UNMATCHED_ROUTE : `${base}/*`;
}

/** Seconds: a signed create takes about a millisecond, an SSE stream as long as it stays open. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RequestSeries {
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}

/** route -> method -> status -> the series bound for them, made on first use. */
type SeriesCache = Map<string, Map<string, Map<number, RequestSeries>>>;

export class RequestMetrics {
  readonly requests: CounterTally;
  readonly duration: HistogramTally;
  readonly refusals: CounterTally;
  private readonly series: SeriesCache = new Map();
  private readonly refusalSeries = new Map<string, { inc(): void }>();
  /** Express middleware: install before every other, so the latency covers the whole answer. */
  readonly middleware: (req: Request, res: Response, next: NextFunction) => void;

  constructor(prefix: string) {
    this.requests = new CounterTally({
      name: `${prefix}http_requests_total`,
      help: 'HTTP requests answered, by route pattern, method and status.',
      labelNames: ['route', 'method', 'status'],
    });
    this.duration = new HistogramTally({
      name: `${prefix}http_request_duration_seconds`,
      help: 'Time from the request reaching the Bank to the last byte of its answer, by route pattern, method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
    });
    this.refusals = new CounterTally({
      name: `${prefix}http_refusals_total`,
      help: 'Answers with problem details (RFC 9457, or the OAuth error of the token endpoint), by problem code.',
      labelNames: ['code'],
    });
    // One listener function for every response (no closure per request): `this` is the response.
    const metrics = this;
    function answered(this: Response): void {
      metrics.record(this);
    }
    // On `close`, which follows every response: `finish` never comes for one the client ends (an event stream).
    this.middleware = (_req, res, next) => {
      (res.locals as RouteLocals).metricsStartedAt = performance.now();
      res.on('close', answered);
      next();
    };
  }

  /**
   * A request node's HTTP parser refused (answered before express, server.ts): counted like an unmatched route. Its
   * method is unknown, since the request line may be what failed to parse.
   */
  countUnparsed(code: string, status: number): void {
    const series = this.seriesOf(UNMATCHED_ROUTE, UNPARSED_METHOD, status);
    series.requests.inc();
    series.duration.observe(0);
    this.refusalOf(code).inc();
  }

  private record(res: Response): void {
    const locals = res.locals as RouteLocals;
    const seconds = (performance.now() - (locals.metricsStartedAt ?? performance.now())) / 1000;
    const series = this.seriesOf(routeLabel(res.req, res), res.req.method, answeredStatus(res));
    series.requests.inc();
    series.duration.observe(seconds);
    if (typeof locals.problemCode === 'string') this.refusalOf(locals.problemCode).inc();
  }

  private seriesOf(route: string, method: string, status: number): RequestSeries {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      const labels = [route, method, String(status)];
      series = { requests: this.requests.labels(...labels), duration: this.duration.labels(...labels) };
      byStatus.set(status, series);
    }
    return series;
  }

  /** Problem codes are a closed list (wire/problems.ts); anything else would be a bug, counted as `unknown`. */
  private refusalOf(code: string): { inc(): void } {
    const label = Object.prototype.hasOwnProperty.call(PROBLEM_TYPES, code) ? code : 'unknown';
    let series = this.refusalSeries.get(label);
    if (!series) this.refusalSeries.set(label, (series = this.refusals.labels(label)));
    return series;
  }
}
