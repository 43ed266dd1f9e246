// Stable shapes (src/wire/stable-shapes.ts): no property is added to a request or a response after express
// has swapped its prototype, on any kind of exchange (V8 adds those on its slow path; issue 15). The swap is
// observed through Object.setPrototypeOf, the own keys compared when the response closes.
import { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { Bank } from '../../src/bank/bank';
import { withStableShapes } from '../../src/wire/stable-shapes';
import { DemoClient, sampleOrder, startBank, uniqueReference } from '../helpers/bank';
import { getStatus, postCreate, rawRequest, signedCreateHeaders, signedStatusHeaders, statusTarget } from '../helpers/wire';

type Keyed = Record<string | symbol, unknown>;

/** The keys each request and response gained after its prototype swap, by method and path. */
function watchSwaps(): { added: Map<string, string[]>; restore(): void } {
  const added = new Map<string, string[]>();
  const original = Object.setPrototypeOf;
  const spy = jest.spyOn(Object, 'setPrototypeOf').mockImplementation((target: unknown, proto: object | null) => {
    if (target instanceof ServerResponse) {
      const res = target;
      const before = new Set(Reflect.ownKeys(res));
      const req = (res as unknown as { req: IncomingMessage }).req;
      const requestBefore = new Set(Reflect.ownKeys(req));
      res.on('close', () => {
        const label = `${req.method} ${((req as unknown as Keyed).originalUrl as string | undefined) ?? req.url}`;
        const gained = [
          ...Reflect.ownKeys(req).filter((key) => !requestBefore.has(key)).map((key) => `req.${String(key)}`),
          ...Reflect.ownKeys(res).filter((key) => !before.has(key)).map((key) => `res.${String(key)}`),
        ];
        added.set(label.split('?')[0], gained);
      });
    }
    return original(target, proto);
  });
  return { added, restore: () => spy.mockRestore() };
}

describe('stable shapes', () => {
  let bank: Bank;
  let token: string;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
    token = await new DemoClient(bank).token();
  });
  afterAll(() => bank.close());

  it('the Bank adds no property to a request or response after express swaps its prototype', async () => {
    const reference = uniqueReference('SHAPE');
    const body = JSON.stringify(sampleOrder({ reference }));
    const headers = signedCreateHeaders(bank, token, body);
    const target = statusTarget(reference);
    const statusHeaders = signedStatusHeaders(bank, token, target);
    const watch = watchSwaps();
    try {
      expect((await postCreate(bank, headers, body)).status).toBe(200);
      expect((await getStatus(bank, target, statusHeaders)).status).toBe(200);
      // A refusal, a route nobody serves, the control plane with a JSON body, health.
      expect((await postCreate(bank, headers, body)).status).toBe(401);
      expect((await rawRequest(bank.app, { method: 'GET', path: '/no-such-route', headers: {} })).status).toBe(404);
      await rawRequest(bank.app, { method: 'POST', path: '/sandbox/clients', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect((await rawRequest(bank.app, { method: 'GET', path: '/readyz', headers: {} })).status).toBe(200);
    } finally {
      watch.restore();
    }
    expect(watch.added.size).toBe(5);
    for (const [label, gained] of watch.added) expect([label, gained]).toEqual([label, []]);
  });

  it('without it, express and router add their properties after the swap (what the test above would catch)', async () => {
    const app = express();
    app.get('/plain', (_req, res) => {
      res.json({ ok: true });
    });
    const watch = watchSwaps();
    try {
      await rawRequest(app, { method: 'GET', path: '/plain', headers: {} });
    } finally {
      watch.restore();
    }
    expect(watch.added.get('GET /plain')).toEqual(expect.arrayContaining(['req.next', 'req.baseUrl', 'res.locals']));
  });

  it('keeps what express, router and handlers see: params, baseUrl, originalUrl, locals, route, status', async () => {
    const app = withStableShapes(express());
    const router = express.Router();
    router.get('/items/:id', (req, res) => {
      res.locals.seen = 'yes';
      res.status(201).json({ id: req.params.id, baseUrl: req.baseUrl, originalUrl: req.originalUrl, route: req.route?.path, locals: res.locals.seen });
    });
    app.use('/api', router);
    const answer = await rawRequest(app, { method: 'GET', path: '/api/items/42?x=1', headers: {} });
    expect(answer.status).toBe(201);
    expect(answer.json()).toEqual({ id: '42', baseUrl: '/api', originalUrl: '/api/items/42?x=1', route: '/items/:id', locals: 'yes' });
  });
});
