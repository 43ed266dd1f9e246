// Read-only inspection endpoints and the "poll now" trigger, behind ADMIN_TOKEN (or open in relaxed mode only).
import express, { NextFunction, Request, Response } from 'express';
import { BankConfig } from '../../config';
import { CallbackState, OrderQueries } from '../../application/order-queries';
import { Order } from '../../domain/order';
import { Poller } from '../../outbound/poller';
import { ProblemError } from '../../../wire/problems';
import { sameSecret } from '../../../wire/secrets';

export function requireAdmin(config: BankConfig) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!config.adminToken) {
      if (config.sandboxMode === 'relaxed') return next();
      throw new ProblemError('auth_invalid', '/sandbox endpoints are disabled: set ADMIN_TOKEN, or run with SANDBOX_MODE=relaxed');
    }
    const header = req.headers.authorization;
    if (!header) throw new ProblemError('auth_missing', 'send Authorization: Bearer <ADMIN_TOKEN>');
    const match = /^Bearer (\S+)$/i.exec(header);
    if (!match || !sameSecret(match[1], config.adminToken)) throw new ProblemError('auth_invalid', 'the admin token is not valid');
    next();
  };
}

function orderView(order: Order) {
  const { payload, ...rest } = order;
  return { ...rest, order: JSON.parse(payload) as unknown };
}

function boundedInt(value: unknown, fallback: number, max: number): number {
  const parsed = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : fallback;
  return Math.min(parsed, max);
}

export function sandboxRoutes(config: BankConfig, queries: OrderQueries, poller: Poller): express.Router {
  const router = express.Router();
  router.use(requireAdmin(config));
  router.get('/orders', (req, res) => {
    const limit = boundedInt(req.query.limit, 100, 1000);
    const offset = boundedInt(req.query.offset, 0, Number.MAX_SAFE_INTEGER);
    const { total, orders } = queries.page(limit, offset);
    res.json({ total, limit, offset, orders: orders.map(orderView) });
  });
  router.get('/orders/:reference', (req, res) => {
    const clientId = typeof req.query.client_id === 'string' ? req.query.client_id : null;
    const matches = queries.byReference(req.params.reference).filter((order) => clientId === null || order.clientId === clientId);
    if (matches.length === 0) throw new ProblemError('order_not_found', `no order "${req.params.reference}"`);
    if (matches.length > 1) throw new ProblemError('header_invalid', 'several clients use this reference: add ?client_id=');
    const order = matches[0];
    res.json({ ...orderView(order), ...queries.trail(order) });
  });
  router.get('/callbacks', (req, res) => {
    const state = typeof req.query.state === 'string' ? req.query.state : null;
    if (state !== null && !['pending', 'delivered', 'dead'].includes(state)) {
      throw new ProblemError('header_invalid', 'state must be pending, delivered or dead');
    }
    res.json({ callbacks: queries.callbacks(state as CallbackState | null, boundedInt(req.query.limit, 100, 1000)) });
  });
  router.post('/poll', async (_req, res) => {
    const reports = await poller.runCycle();
    res.json({ reports });
  });
  // express decodes :reference before any handler runs: a malformed %-escape names no order (as on the status route).
  router.use((error: unknown, _req: Request, _res: Response, next: NextFunction) => next(error instanceof URIError ? new ProblemError('order_not_found', 'the order reference is not a valid percent-encoded string') : error));
  return router;
}
