// Requests: valid orders, drafts (a signed request described by its parts, signed at the end, then edited), the
// wire form every sender takes, and the request-generator shape.
import { randomUUID, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { signDetached } from '../../../src/wire/jws';
import { PublicJwk, signingKeyFromJwk } from '../../../src/wire/keys';
import { SignedFlow, signatureBase } from '../../../src/wire/signature-base';
import { demo, isoNow, newNonce, sampleOrder } from '../../helpers/bank';
import { FuzzTarget } from './types';

export function order(overrides: Record<string, unknown> = {}, amount = '100.00'): Record<string, unknown> {
  const reference = `FZ-${randomBytes(9).toString('base64url').replace(/[_-]/g, 'x')}`;
  return sampleOrder({ reference, type: 'CREDIT_TRANSFER', metadata: { initiator: 'fuzz' }, ...overrides }, amount);
}

export type Who = 'demo' | 'other';

export type HeaderEdit = { op: 'drop'; name: string } | { op: 'set'; name: string; value: string } | { op: 'dup'; name: string; value?: string };

export interface Draft {
  kind: string;
  flow: 'create' | 'status';
  method: string;
  /** Request target as sent. */
  path: string;
  /** What the signature covers (defaults: method, path, body). */
  signMethod?: string;
  signTarget?: string;
  signBody?: Buffer;
  fields: Record<string, string>;
  body: Buffer;
  jwk: PublicJwk;
  authorization?: string;
  contentType?: string;
  requestId?: string;
  edits: HeaderEdit[];
  sigEdit?: (signature: string) => string;
  /** Codes the answer may carry; empty = any client error. */
  expect: string[];
  /** Needs exact header control (repeats, no default Content-Type): never through supertest. */
  rawOnly?: boolean;
}

export function baseCreate(t: FuzzTarget, who: Who = 'demo', body: Record<string, unknown> = order()): Draft {
  const clientId = who === 'demo' ? demo.client_id : t.other.client_id;
  return {
    kind: 'create',
    flow: 'create',
    method: 'POST',
    path: '/payment-orders',
    fields: {
      'x-client-id': clientId,
      'x-request-id': `fz-${randomUUID()}`,
      'x-timestamp': isoNow(t.bank.clock),
      'x-nonce': newNonce(),
      'x-idempotency-key': `idem-${randomUUID()}`,
    },
    body: Buffer.from(JSON.stringify(body)),
    jwk: who === 'demo' ? demo.private_jwk : t.other.private_jwk,
    authorization: `Bearer ${who === 'demo' ? t.tokens.demo : t.tokens.other}`,
    contentType: 'application/json',
    edits: [],
    expect: [],
  };
}

/** `orderId` is the path segment exactly as sent (already percent-encoded, or deliberately not). */
export function baseStatus(t: FuzzTarget, orderId: string, who: Who = 'demo'): Draft {
  const clientId = who === 'demo' ? demo.client_id : t.other.client_id;
  return {
    kind: 'status',
    flow: 'status',
    method: 'GET',
    path: `/payment-orders/${orderId}/status`,
    fields: { 'x-client-id': clientId, 'x-timestamp': isoNow(t.bank.clock), 'x-nonce': newNonce() },
    body: Buffer.alloc(0),
    jwk: who === 'demo' ? demo.private_jwk : t.other.private_jwk,
    authorization: `Bearer ${who === 'demo' ? t.tokens.demo : t.tokens.other}`,
    requestId: `fz-${randomUUID()}`,
    edits: [],
    expect: [],
  };
}

export interface WireRequest {
  kind: string;
  method: string;
  path: string;
  /** In order; a name may repeat. */
  headers: [string, string][];
  body?: Buffer;
  expect: string[];
  flow?: 'create' | 'status';
  rawOnly?: boolean;
  /** Exact bytes for the raw-socket sender (then method/path/headers are informative only). */
  bytes?: Buffer;
}

export function sign(flow: SignedFlow, method: string, target: string, fields: Record<string, string>, body: Buffer, jwk: PublicJwk): string {
  const key = signingKeyFromJwk(jwk);
  return signDetached(signatureBase(flow, { method, target, headers: fields, body }), key.privateKey, { alg: key.alg, kid: key.kid, typ: 'JOSE' });
}

export function finalize(t: FuzzTarget, draft: Draft): WireRequest {
  // The seeded idempotency key with the seeded body would be a valid replay (200): never send that pair.
  if (draft.fields['x-idempotency-key'] === t.seeds.demoIdemKey && draft.body.toString('latin1') === t.seeds.demoIdemBody) {
    draft.body = Buffer.concat([draft.body, Buffer.from(' ')]);
  }
  const signature = sign(draft.flow, draft.signMethod ?? draft.method, draft.signTarget ?? draft.path, draft.fields, draft.signBody ?? draft.body, draft.jwk);
  let headers: [string, string][] = Object.entries(draft.fields);
  if (draft.requestId !== undefined && draft.flow === 'status') headers.push(['x-request-id', draft.requestId]);
  headers.push(['x-signature', draft.sigEdit ? draft.sigEdit(signature) : signature]);
  if (draft.authorization !== undefined) headers.push(['authorization', draft.authorization]);
  if (draft.contentType !== undefined) headers.push(['content-type', draft.contentType]);
  for (const edit of draft.edits) {
    if (edit.op === 'drop') headers = headers.filter(([name]) => name !== edit.name);
    else if (edit.op === 'set') {
      if (headers.some(([name]) => name === edit.name)) headers = headers.map(([name, value]) => [name, name === edit.name ? edit.value : value]);
      else headers.push([edit.name, edit.value]);
    } else {
      const current = headers.find(([name]) => name === edit.name)?.[1] ?? 'x';
      headers.push([edit.name, edit.value ?? current]);
    }
  }
  const hasBody = draft.body.length > 0 || draft.method === 'POST';
  return { kind: draft.kind, method: draft.method, path: draft.path, headers, body: hasBody ? draft.body : undefined, expect: draft.expect, flow: draft.flow, rawOnly: draft.rawOnly || draft.edits.some((edit) => edit.op === 'dup') };
}

export interface RequestArb {
  name: string;
  arb: fc.Arbitrary<(t: FuzzTarget) => WireRequest>;
}
