// Express 5 swaps the prototype of every request and response (Object.setPrototypeOf in app.handle), and from
// then on V8 adds each new property to them on its slow path: about 4 µs a property on this machine, where
// writing a property that already exists costs next to nothing (measured: express, router and the journal's
// capture added fifteen to every request, ~35 µs of a status poll; bench/README.md, issue 15). So the properties
// they add are created here first, before the swap, with the values they would find or set anyway.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: unknown) => void;

/** Prepares a response before express sees it (the Bank's journal capture), in the same early, fast place. */
export type EarlyHook = (req: IncomingMessage, res: ServerResponse) => void;

/** The router's own symbol for the matched route, when this copy of router has it where we look. */
const MATCHED_ROUTE: symbol | null = (() => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const symbol = (require('router/lib/symbols') as { matchedRoute?: unknown }).matchedRoute;
    return typeof symbol === 'symbol' ? symbol : null;
  } catch {
    return null;
  }
})();

/** A registered symbol (Symbol.for): the same in every copy of router. */
const PUBLISHED_ERRORS = Symbol.for('router.tracing.publishedErrors');

/** What express and router set on every request and response, pre-set to the values they read first. */
function presetProperties(req: IncomingMessage, res: ServerResponse): void {
  const request = req as unknown as Record<string | symbol, unknown>;
  // router: `req.baseUrl || ''`, `req.originalUrl || req.url`, parentParams = req.params; parseurl's cache.
  request.next = undefined;
  request.baseUrl = '';
  request.originalUrl = req.url;
  request._parsedUrl = undefined;
  request.params = undefined;
  request.route = undefined;
  request.body = undefined;
  // EventEmitter keeps its listener count on the prototype until the first listener; the same value, own.
  request._eventsCount = request._eventsCount ?? 0;
  if (MATCHED_ROUTE) request[MATCHED_ROUTE] = undefined;
  // router keeps the errors it has reported (a refusal is one) in a Set it creates on the first.
  request[PUBLISHED_ERRORS] = undefined;
  const response = res as unknown as Record<string, unknown>;
  // express: `if (!res.locals) res.locals = Object.create(null)`; node reads statusCode's default of 200.
  response.locals = Object.create(null);
  response.statusCode = res.statusCode;
  response.statusMessage = res.statusMessage;
}

/** Makes `app` create the properties of every request and response before express swaps their prototypes. */
export function withStableShapes(app: Express, early?: EarlyHook): Express {
  const application = app as unknown as { handle: Handle };
  const handle = application.handle;
  application.handle = function handleWithStableShapes(this: unknown, req, res, callback) {
    presetProperties(req, res);
    early?.(req, res);
    return handle.call(this, req, res, callback);
  };
  return app;
}
