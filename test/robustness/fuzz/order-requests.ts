// Whole requests to the order endpoints: POST /payment-orders and GET /payment-orders/{orderId}/status, each a
// signed request broken by one mutation (exact expected code) or several (any client error).
import fc from 'fast-check';
import { bodyMutations } from './body-mutations';
import { headerMutations } from './header-mutations';
import { Mutation } from './mutation';
import { baseCreate, baseStatus, Draft, finalize, RequestArb, WireRequest } from './requests';
import { FuzzTarget } from './types';

/** Order ids (as sent in the path) that name no order of demo-connector. */
export function foreignOrderIds(t: FuzzTarget): fc.Arbitrary<string> {
  const own = new Set(t.seeds.demoRefs);
  const safe = (raw: string) => {
    try {
      return !own.has(decodeURIComponent(raw));
    } catch {
      return true;
    }
  };
  return fc.oneof(
    fc.constantFrom('..', '.', '%2e%2e', '%2E%2E', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', '%00', 'a%00b', '%ZZ', '%', '%E0%A4%A', '%C0%AF', '%FF', '%ED%A0%80', '~', '*', 'NaN', 'null', 'undefined', '__proto__', 'constructor', "'%20OR%201=1--", '%27', 'a;b', 'SELECT', '%F0%9F%92%A9'),
    fc.constant(null).map(() => encodeURIComponent(t.seeds.otherRefs[0] ?? 'none')),
    fc.constant(null).map(() => encodeURIComponent(`${t.seeds.demoRefs[0]}x`)),
    fc.constant(null).map(() => encodeURIComponent((t.seeds.demoRefs[0] ?? 'x').toLowerCase())),
    fc.string({ minLength: 1, maxLength: 60 }).map(encodeURIComponent),
    fc.stringMatching(/^[A-Za-z0-9._~%:@!$&'()*+,;=-]{1,80}$/),
    fc.integer({ min: 1000, max: 7000 }).map((length) => 'L'.repeat(length)),
  ).filter((id) => id.length > 0 && !id.includes('/') && !id.includes('?') && !id.includes('#') && safe(id));
}

function applied(base: (t: FuzzTarget) => Draft, mutations: Mutation[], exact: boolean) {
  return (t: FuzzTarget): WireRequest => {
    const draft = base(t);
    for (const mutation of mutations) mutation.apply(draft, t);
    draft.kind = `${draft.kind}: ${mutations.map((mutation) => mutation.name).join(' + ')}`;
    if (!exact) draft.expect = [];
    return finalize(t, draft);
  };
}

/** One mutation (exact expected code) or several at once (any client error). */
function mutated(base: (t: FuzzTarget) => Draft, mutation: fc.Arbitrary<Mutation>): fc.Arbitrary<(t: FuzzTarget) => WireRequest> {
  return fc.oneof(
    { weight: 4, arbitrary: mutation.map((one) => applied(base, [one], true)) },
    { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 4 }).map((many) => applied(base, many, false)) },
  );
}

export function createRequests(): RequestArb {
  const mutation = fc.oneof({ weight: 1, arbitrary: headerMutations('create') }, { weight: 1, arbitrary: bodyMutations() });
  return { name: 'POST /payment-orders', arb: mutated((t) => baseCreate(t, 'demo'), mutation) };
}

export function statusRequests(t: FuzzTarget): RequestArb {
  const ids = foreignOrderIds(t);
  const own = fc.constantFrom(...(t.seeds.demoRefs.length > 0 ? t.seeds.demoRefs : ['NONE'])).map(encodeURIComponent);
  const mutation = headerMutations('status');
  const arb = fc.oneof(
    // An order that is not this client's, otherwise a perfect request: 404 order_not_found (or 404 route for ../).
    { weight: 2, arbitrary: ids.map((id) => (target: FuzzTarget): WireRequest => {
      const draft = baseStatus(target, id);
      draft.kind = `status: foreign order id ${id.length > 40 ? `${id.slice(0, 40)}…` : id}`;
      draft.expect = target.mode === 'strict' ? ['mtls_required'] : ['order_not_found'];
      return finalize(target, draft);
    }) },
    // The client's own order, broken in the request itself.
    { weight: 4, arbitrary: fc.tuple(fc.oneof(own, ids), fc.oneof({ weight: 4, arbitrary: mutation.map((one) => [one]) }, { weight: 1, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) })).map(([id, mutations]) => (target: FuzzTarget) => {
      const request = applied((x) => baseStatus(x, id), mutations, mutations.length === 1)(target);
      if (target.mode === 'strict') request.expect = ['mtls_required'];
      return request;
    }) },
    // Another method on the status path.
    { weight: 1, arbitrary: fc.tuple(fc.oneof(own, ids), fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'LOCK', 'PURGE')).map(([id, method]) => (target: FuzzTarget) => {
      const draft = baseStatus(target, id);
      draft.method = method;
      draft.kind = `status: ${method}`;
      draft.expect = ['method_not_allowed'];
      return finalize(target, draft);
    }) },
    // Path shapes around the status route.
    { weight: 1, arbitrary: fc.constantFrom('/payment-orders/x/../status', '/payment-orders/../status/x', '/payment-orders//status', '/payment-orders/a/b/status', '/payment-orders/a/status/', '/payment-orders/a/status/x', '/payment-orders/%2e%2e/%2e%2e/status', '/payment-orders/x/STATUS', '/Payment-Orders/x/status').map((path) => (target: FuzzTarget) => {
      const draft = baseStatus(target, 'x');
      draft.path = path;
      draft.kind = `status: path ${path}`;
      draft.expect = ['route_not_found', 'order_not_found', 'mtls_required'];
      return finalize(target, draft);
    }) },
  );
  return { name: 'GET /payment-orders/{id}/status', arb };
}
