// Whole requests to everything else: health, readiness, JWKS and unknown routes with any method; /sandbox/*
// without the admin token; /sandbox/* with it, for what is not there.
import http from 'node:http';
import fc from 'fast-check';
import { demo } from '../../helpers/bank';
import { RequestArb, WireRequest } from './requests';
import { ADMIN_TOKEN, FuzzTarget } from './types';
import { garbage } from './values';

const KNOWN_ROUTES = ['/healthz', '/readyz', '/.well-known/jwks.json', '/oauth/token', '/payment-orders'];
/** Methods node:http sends, minus HEAD (no body to check) and CONNECT (a tunnel, not a request). */
export const METHODS = http.METHODS.filter((method) => method !== 'HEAD' && method !== 'CONNECT');

function isUnknownRoute(path: string): boolean {
  const plain = path.split('?')[0];
  const lower = plain.toLowerCase().replace(/\/+$/, '');
  if (KNOWN_ROUTES.includes(lower) || lower === '' || lower.startsWith('/sandbox')) return false;
  return !/^\/payment-orders\/[^/]+\/status$/.test(plain);
}

/** Health, readiness and JWKS with other methods; unknown routes with any method. */
export function otherRequests(): RequestArb {
  const segment = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{1,16}$/);
  const unknownPath = fc.oneof(
    fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
    fc.tuple(fc.constantFrom('/payment-orders', '/oauth', '/.well-known', '/healthz', '/api', '/v1', '/callbacks', '/readyz', '/payment-order', '/status'), fc.array(segment, { minLength: 1, maxLength: 3 })).map(([prefix, segments]) => `${prefix}/${segments.join('/')}`),
    fc.constantFrom('/..', '/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/payment-orders%2F', '/.env', '/favicon.ico', '/%00', '/healthz%00', '/readyz.json', '/.well-known/jwks', '/.well-known/openid-configuration', '/payment-orders/status', '/payment-orders/x/status/y', '//', '/%ZZ', '/index.html'),
  ).filter(isUnknownRoute);
  const arb = fc.oneof(
    fc.tuple(fc.constantFrom('/healthz', '/readyz', '/.well-known/jwks.json'), fc.constantFrom(...METHODS.filter((method) => method !== 'GET')), fc.option(fc.string({ maxLength: 200 }), { nil: undefined })).map(([path, method, body]) => (): WireRequest => ({
      kind: `${method} ${path}`, method, path, headers: [['content-type', 'application/json']], body: body === undefined ? undefined : Buffer.from(body), expect: ['route_not_found', 'method_not_allowed'],
    })),
    fc.tuple(fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'), fc.constantFrom('/oauth/token', '/payment-orders')).map(([method, path]) => (): WireRequest => ({
      kind: `${method} ${path}`, method, path, headers: [], expect: ['method_not_allowed'],
    })),
    fc.tuple(unknownPath, fc.constantFrom(...METHODS), fc.option(fc.uint8Array({ maxLength: 300 }), { nil: undefined })).map(([path, method, body]) => (): WireRequest => ({
      kind: `unknown route ${method}`, method, path, headers: [['x-client-id', demo.client_id]], body: body === undefined ? undefined : Buffer.from(body), expect: ['route_not_found', 'method_not_allowed'],
    })),
  );
  return { name: 'health, JWKS and unknown routes', arb };
}

/** /sandbox/* without a valid admin token (any method, any path below it). */
export function sandboxRequests(t: FuzzTarget): RequestArb {
  const sub = fc.oneof(
    fc.constantFrom('/orders', '/callbacks', '/poll', '/orders/x', '/callbacks?state=dead', '/orders?limit=5', '/', '', '/nope', '/orders/%ZZ', '/orders/..%2F..'),
    fc.stringMatching(/^\/[A-Za-z0-9._~%-]{0,20}$/),
  );
  const auth = fc.oneof(
    fc.constant<string | undefined>(undefined),
    fc.constantFrom('Bearer wrong', `Bearer ${ADMIN_TOKEN}x`, `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`, ADMIN_TOKEN, `Bearer  ${ADMIN_TOKEN} x`, 'Bearer'),
    fc.constant(null).map(() => `Bearer ${t.tokens.demo}`),
    garbage,
  );
  const arb = fc.tuple(sub, fc.constantFrom(...METHODS), auth).map(([path, method, authorization]) => (target: FuzzTarget): WireRequest => ({
    kind: `sandbox ${method} without admin`,
    method,
    path: `/sandbox${path}`,
    headers: authorization === undefined ? [] : [['authorization', authorization]],
    expect: target.adminToken === null ? ['auth_invalid'] : authorization === undefined ? ['auth_missing'] : ['auth_invalid', 'auth_missing'],
  }));
  return { name: '/sandbox/* without admin', arb };
}

/** /sandbox/* with the admin token, asking for things that are not there. */
export function adminBadRequests(t: FuzzTarget): RequestArb {
  const own = new Set([...t.seeds.demoRefs, ...t.seeds.otherRefs]);
  const reference = fc.oneof(fc.stringMatching(/^[A-Za-z0-9._~%-]{1,40}$/), fc.constantFrom('%ZZ', '%', '%E0%A4%A', 'a%00', '%2e%2e', '..')).filter((ref) => {
    try {
      return !own.has(decodeURIComponent(ref));
    } catch {
      return true;
    }
  });
  const admin: [string, string][] = [['authorization', `Bearer ${ADMIN_TOKEN}`]];
  const json = (body: string): [string, string][] => [...admin, ['content-type', 'application/json']];
  // Control-plane actions and the bodies they refuse (control-plane.md: 400 body_malformed / body_invalid).
  const actions = fc.constantFrom('/orders/demo-connector/NOPE/outcome', '/clients/demo-connector/clock', '/clients/demo-connector/clock/advance', '/reset', '/callbacks/redeliver', '/conformance-runs');
  const badBodies = fc.oneof(
    fc.constantFrom('{', '[]', '"x"', '{"status":"MAYBE"}', '{"seconds":-1}', '{"seconds":"1"}', '{"to":"yesterday"}', '{"client_id":7}', '{"state":"pending"}', '{"extra":true}', 'null'),
    fc.json().filter((text) => text.startsWith('{') && text !== '{}'),
  );
  const arb = fc.oneof(
    reference.map((ref) => (): WireRequest => ({ kind: 'admin: unknown order', method: 'GET', path: `/sandbox/orders/demo-connector/${ref}`, headers: admin, expect: ['not_found', 'route_not_found'] })),
    fc.string({ minLength: 1, maxLength: 10 }).filter((state) => !['pending', 'delivered', 'dead'].includes(state)).map((state) => (): WireRequest => ({
      kind: 'admin: bad callback state', method: 'GET', path: `/sandbox/callbacks?state=${encodeURIComponent(state)}`, headers: admin, expect: ['query_invalid'],
    })),
    fc.constantFrom('colour=red', 'limit=0', 'limit=99999', 'cursor=%25', 'since=yesterday', 'status=DONE', 'limit=1&limit=2').map((query) => (): WireRequest => ({
      kind: 'admin: bad list query', method: 'GET', path: `/sandbox/orders?${query}`, headers: admin, expect: ['query_invalid'],
    })),
    fc.tuple(actions, badBodies).map(([path, body]) => (): WireRequest => ({
      kind: 'admin: bad action body', method: 'POST', path: `/sandbox${path}`, headers: json(body), body: Buffer.from(body),
      expect: ['body_malformed', 'body_invalid', 'not_found'],
    })),
    fc.tuple(actions, fc.constantFrom('text/plain', 'application/x-www-form-urlencoded')).map(([path, type]) => (): WireRequest => ({
      kind: 'admin: action body not JSON', method: 'POST', path: `/sandbox${path}`, headers: [...admin, ['content-type', type]], body: Buffer.from('seconds=1'),
      expect: ['unsupported_media_type'],
    })),
    fc.tuple(fc.constantFrom('/clients/demo-connector/faults', '/clients/demo-connector'), badBodies).map(([path, body]) => (): WireRequest => ({
      kind: 'admin: bad fault profile or client change', method: path.endsWith('/faults') ? 'PUT' : 'PATCH', path: `/sandbox${path}`, headers: json(body), body: Buffer.from(body),
      expect: ['body_malformed', 'body_invalid'],
    })),
    reference.map((id) => (): WireRequest => ({
      kind: 'admin: unknown conformance run', method: 'GET', path: `/sandbox/conformance-runs/${id}`, headers: admin, expect: ['not_found', 'route_not_found'],
    })),
    fc.constantFrom('0', '-1', 'x', '99999999999', '1.5').map((id) => (): WireRequest => ({
      kind: 'admin: unknown message', method: 'POST', path: `/sandbox/callbacks/${id}/redeliver`, headers: admin, expect: ['not_found'],
    })),
    fc.tuple(fc.constantFrom('PUT', 'DELETE', 'PATCH', 'POST'), fc.constantFrom('/orders', '/callbacks', '/orders/x', '/nope')).map(([method, path]) => (): WireRequest => ({
      kind: `admin: ${method} ${path}`, method, path: `/sandbox${path}`, headers: admin, expect: ['route_not_found', 'method_not_allowed'],
    })),
  );
  return { name: '/sandbox/* with admin, bad requests', arb };
}
