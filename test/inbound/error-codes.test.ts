// Profile section 5: one test per wire code, every 4xx/5xx as RFC 9457 problem details, and the check order.
import { generateKeyPairSync } from 'node:crypto';
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import type { PublicJwk } from '../../src/wire/keys';
import { demo, DemoClient, newNonce, sampleOrder, startBank } from '../helpers/bank';
import { createCa, httpsRequest, listenMtls, opensslAvailable } from '../helpers/pki';
import {
  expectProblem,
  getStatus,
  HeaderValue,
  isoAt,
  nonceStored,
  postCreate,
  Problem,
  rawRequest,
  signedCreateHeaders,
  signedStatusHeaders,
  statusTarget,
  tableCounts,
} from '../helpers/wire';

type Headers = Record<string, HeaderValue | undefined>;

const clock = new ManualClock();
let bank: Bank;
let client: DemoClient;
let token: string;

beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed' }, { clock });
  client = new DemoClient(bank);
  token = await client.token();
});
afterAll(() => bank.close());

function orderBody(overrides: Record<string, unknown> = {}, amount?: string): string {
  return JSON.stringify(sampleOrder(overrides, amount));
}

function createHeaders(body: Buffer | string, options: Parameters<typeof signedCreateHeaders>[3] = {}): Headers {
  return signedCreateHeaders(bank, token, body, options);
}

function requestIdOf(headers: Headers): string {
  return String(headers['x-request-id']);
}

/** A fresh EC key that no client has registered, carrying the demo client's kid. */
function impostorJwk(kid = demo.private_jwk.kid): PublicJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(privateKey.export({ format: 'jwk' }) as PublicJwk), kid, alg: 'ES256' };
}

async function createdReference(scenario?: string): Promise<string> {
  const order = sampleOrder(scenario ? { metadata: { sandbox_scenario: scenario } } : {});
  const response = await client.create(order);
  expect(response.status).toBeLessThan(300);
  return order.reference as string;
}

describe('400 header_missing', () => {
  it.each(['x-client-id', 'x-request-id', 'x-idempotency-key', 'x-timestamp', 'x-nonce', 'content-type'])('create without %s', async (name) => {
    const body = orderBody();
    const headers = createHeaders(body);
    const response = await postCreate(bank, { ...headers, [name]: undefined }, body);
    const problem = expectProblem(response, 400, 'header_missing', name === 'x-request-id' ? undefined : requestIdOf(headers));
    expect(problem.detail.toLowerCase()).toContain(name);
  });

  it('create with an empty X-Nonce value', async () => {
    const body = orderBody();
    const headers = createHeaders(body);
    expectProblem(await postCreate(bank, { ...headers, 'x-nonce': '' }, body), 400, 'header_missing');
  });

  it.each(['x-client-id', 'x-timestamp', 'x-nonce'])('reverse polling without %s', async (name) => {
    const target = statusTarget(await createdReference());
    const headers = signedStatusHeaders(bank, token, target);
    expectProblem(await getStatus(bank, target, { ...headers, [name]: undefined }), 400, 'header_missing');
  });

  it('without X-Request-Id, request_id is generated and matches the X-Request-Id response header', async () => {
    const body = orderBody();
    const response = await postCreate(bank, { ...createHeaders(body), 'x-request-id': undefined }, body);
    const problem = expectProblem(response, 400, 'header_missing');
    expect(problem.request_id).toBe(response.headers['x-request-id']);
  });
});

describe('400 header_invalid', () => {
  const malformed: [string, string][] = [
    ['x-client-id', 'demo connector'],
    ['x-client-id', 'c'.repeat(65)],
    ['x-request-id', 'has a space'],
    ['x-request-id', 'r'.repeat(201)],
    ['x-idempotency-key', 'key with spaces'],
    ['x-idempotency-key', 'k'.repeat(256)],
    ['x-timestamp', '2026-11-22T10:00:00+01:00'],
    ['x-timestamp', '2026-11-22 10:00:00Z'],
    ['x-timestamp', '1795341600'],
    ['x-timestamp', 'yesterday'],
    ['x-nonce', 'short-nonce-15c'],
    ['x-nonce', 'n'.repeat(129)],
    ['x-nonce', 'has.a.dot.in.the.nonce'],
    ['x-nonce', 'plus+and/slash=base64std'],
  ];

  it.each(malformed)('create with malformed %s = %s', async (name, value) => {
    const body = orderBody();
    const headers = createHeaders(body);
    const response = await postCreate(bank, { ...headers, [name]: value }, body);
    expectProblem(response, 400, 'header_invalid', name === 'x-request-id' ? undefined : requestIdOf(headers));
  });

  it.each(['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key', 'x-signature', 'authorization', 'content-type'])(
    'create with %s sent twice (same value) is header_invalid',
    async (name) => {
      const body = orderBody();
      const headers = createHeaders(body);
      const value = String(headers[name]);
      expectProblem(await postCreate(bank, { ...headers, [name]: [value, value] }, body), 400, 'header_invalid');
    },
  );

  it('create with a header sent twice in another spelling than lower case (X-Nonce) is header_invalid, named in lower case', async () => {
    const body = orderBody();
    const headers = createHeaders(body);
    const { 'x-nonce': nonce, ...rest } = headers;
    const response = await postCreate(bank, { ...rest, 'X-Nonce': [String(nonce), String(nonce)] }, body);
    expectProblem(response, 400, 'header_invalid');
    expect(JSON.parse(response.text).detail).toBe('x-nonce must be sent once');
  });

  it('create with a header the profile does not make single (Accept) sent twice is accepted', async () => {
    const body = orderBody();
    const headers = createHeaders(body);
    const response = await postCreate(bank, { ...headers, Accept: ['application/json', 'application/problem+json'] }, body);
    expect([200, 202]).toContain(response.status);
  });

  it('create with DPoP sent twice is header_invalid', async () => {
    const body = orderBody();
    const headers = createHeaders(body);
    expectProblem(await postCreate(bank, { ...headers, dpop: ['a.b.c', 'a.b.c'] }, body), 400, 'header_invalid');
  });

  it.each(['x-client-id', 'x-timestamp', 'x-nonce', 'x-signature', 'authorization'])('reverse polling with %s sent twice is header_invalid', async (name) => {
    const target = statusTarget(await createdReference());
    const headers = signedStatusHeaders(bank, token, target);
    const value = String(headers[name]);
    expectProblem(await getStatus(bank, target, { ...headers, [name]: [value, value] }), 400, 'header_invalid');
  });
});

describe('400 body_malformed', () => {
  const bodies: [string, Buffer][] = [
    ['truncated JSON', Buffer.from('{"reference":')],
    ['plain text', Buffer.from('reference=ORD-1')],
    ['empty body', Buffer.alloc(0)],
    ['invalid UTF-8 inside a JSON string', Buffer.concat([Buffer.from('{"reference":"ORD-'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
    ['overlong UTF-8 encoding', Buffer.concat([Buffer.from('{"reason":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')])],
  ];

  it.each(bodies)('%s', async (_label, body) => {
    const headers = createHeaders(body);
    const before = tableCounts(bank);
    expectProblem(await postCreate(bank, headers, body), 400, 'body_malformed', requestIdOf(headers));
    expect(tableCounts(bank)).toEqual({ ...before, nonces: before.nonces + 1 });
  });
});

describe('400 body_invalid (errors lists each violation)', () => {
  async function invalid(body: string): Promise<Problem> {
    const headers = createHeaders(body);
    const problem = expectProblem(await postCreate(bank, headers, body), 400, 'body_invalid', requestIdOf(headers));
    expect(Array.isArray(problem.errors)).toBe(true);
    for (const error of problem.errors ?? []) expect(error).toEqual({ path: expect.any(String), message: expect.any(String) });
    return problem;
  }

  const paths = (problem: Problem) => (problem.errors ?? []).map((error) => error.path);

  it('unknown top-level fields, each listed', async () => {
    const problem = await invalid(orderBody({ foo: 1, bar: 'x' }));
    expect(paths(problem)).toEqual(expect.arrayContaining(['/foo', '/bar']));
  });

  it('unknown nested fields in debtor and creditors, each listed', async () => {
    const order = sampleOrder();
    (order.debtor as Record<string, unknown>).extra = 'x';
    (order.creditors as Record<string, unknown>[])[0].extra2 = 'y';
    const problem = await invalid(JSON.stringify(order));
    expect(paths(problem)).toEqual(expect.arrayContaining(['/debtor/extra', '/creditors/0/extra2']));
  });

  it('several kinds of violations at once are all listed', async () => {
    const order = sampleOrder({ foo: 1, type: 'WIRE' });
    delete order.reason;
    const problem = await invalid(JSON.stringify(order));
    expect(paths(problem)).toEqual(expect.arrayContaining(['/foo', '/type', '/reason']));
  });

  it.each([
    ['three decimals', '10.001'],
    ['negative', '-10.00'],
    ['exponent', '1e2'],
    ['leading plus', '+10.00'],
    ['comma decimal', '10,00'],
    ['leading zero', '010.00'],
  ])('amount with %s (%s)', async (_label, amount) => {
    const problem = await invalid(orderBody({}, amount));
    expect(paths(problem)).toEqual(expect.arrayContaining(['/total_amount', '/creditors/0/amount']));
  });

  it('amount as a JSON number instead of a string', async () => {
    const order = sampleOrder();
    order.total_amount = 100;
    (order.creditors as Record<string, unknown>[])[0].amount = 100;
    const problem = await invalid(JSON.stringify(order));
    expect(paths(problem)).toEqual(expect.arrayContaining(['/total_amount', '/creditors/0/amount']));
  });

  it('a creditor amount of zero', async () => {
    expect(paths(await invalid(orderBody({}, '0.00')))).toContain('/creditors/0/amount');
  });

  it.each(['XYZ', 'eur', 'EURO'])('currency %s is not ISO 4217', async (currency) => {
    expect(paths(await invalid(orderBody({ currency })))).toContain('/currency');
  });

  it.each(['EXPLODE', 'PENDING:abc:SUCCESS', 'PENDING:5', 'ASYNC:5:MAYBE', 'FAILED:NOT_A_CODE', 'FAILED', 'PENDING:86401:SUCCESS', 'success'])(
    'metadata.sandbox_scenario %s',
    async (scenario) => {
      expect(paths(await invalid(orderBody({ metadata: { sandbox_scenario: scenario } })))).toContain('/metadata/sandbox_scenario');
    },
  );

  it('total_amount different from the sum of the creditors', async () => {
    const order = sampleOrder({ total_amount: '100.01' }, '100.00');
    expect(paths(await invalid(JSON.stringify(order)))).toContain('/total_amount');
  });

  it('a JSON value that is not an object', async () => {
    await invalid('[]');
    await invalid('"order"');
  });
});

describe('401 auth_missing / auth_invalid (with WWW-Authenticate)', () => {
  it('auth_missing without Authorization', async () => {
    const body = orderBody();
    const response = await postCreate(bank, { ...createHeaders(body), authorization: undefined }, body);
    expectProblem(response, 401, 'auth_missing');
    expect(response.headers['www-authenticate']).toMatch(/Bearer/);
  });

  it.each([
    ['a token that is not a JWT', 'Bearer not-a-token'],
    ['an unknown scheme', 'Basic ZGVtbzpzZWNyZXQ='],
    ['a scheme without credentials', 'Bearer'],
  ])('auth_invalid with %s', async (_label, authorization) => {
    const body = orderBody();
    const response = await postCreate(bank, { ...createHeaders(body), authorization }, body);
    expectProblem(response, 401, 'auth_invalid');
    expect(response.headers['www-authenticate']).toMatch(/Bearer/);
  });

  it('auth_invalid with a token whose signature was altered', async () => {
    const [header, claims, signature] = token.split('.');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const body = orderBody();
    const response = await postCreate(bank, { ...createHeaders(body), authorization: `Bearer ${header}.${claims}.${flipped}` }, body);
    expectProblem(response, 401, 'auth_invalid');
  });
});

describe('401 client_unknown, signature_missing, signature_invalid', () => {
  it('client_unknown for an X-Client-Id nobody registered', async () => {
    const body = orderBody();
    const headers = createHeaders(body, { clientId: 'nobody-registered' });
    expectProblem(await postCreate(bank, headers, body), 401, 'client_unknown', requestIdOf(headers));
  });

  it('signature_missing without X-Signature', async () => {
    const body = orderBody();
    expectProblem(await postCreate(bank, { ...createHeaders(body), 'x-signature': undefined }, body), 401, 'signature_missing');
  });

  it('signature_invalid when the body changed after signing', async () => {
    const body = orderBody();
    const headers = createHeaders(body);
    expectProblem(await postCreate(bank, headers, `${body} `), 401, 'signature_invalid');
  });

  it.each(['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'])('signature_invalid when signed %s differs from the one sent', async (name) => {
    const body = orderBody();
    const headers = createHeaders(body);
    const replacement: Record<string, string> = {
      'x-client-id': 'demo-connector',
      'x-request-id': 'another-request-id',
      'x-timestamp': isoAt(bank, -1),
      'x-nonce': newNonce(),
      'x-idempotency-key': 'another-key',
    };
    // x-client-id: sign as someone else, send as demo-connector.
    const signed = name === 'x-client-id' ? createHeaders(body, { clientId: 'other-client' }) : headers;
    const sent = name === 'x-client-id' ? { ...signed, 'x-client-id': 'demo-connector' } : { ...headers, [name]: replacement[name] };
    expectProblem(await postCreate(bank, sent, body), 401, 'signature_invalid');
  });

  it.each([
    ['not a JWS', 'not-a-jws'],
    ['an attached-payload JWS', 'eyJhbGciOiJFUzI1NiJ9.cGF5bG9hZA.c2ln'],
    ['alg none', `${Buffer.from(JSON.stringify({ alg: 'none', kid: demo.private_jwk.kid, typ: 'JOSE' })).toString('base64url')}..`],
    ['alg HS256', `${Buffer.from(JSON.stringify({ alg: 'HS256', kid: demo.private_jwk.kid, typ: 'JOSE' })).toString('base64url')}..c2ln`],
  ])('signature_invalid for %s', async (_label, signature) => {
    const body = orderBody();
    expectProblem(await postCreate(bank, { ...createHeaders(body), 'x-signature': signature }, body), 401, 'signature_invalid');
  });

  it('signature_invalid for an unknown kid', async () => {
    const body = orderBody();
    expectProblem(await postCreate(bank, createHeaders(body, { jwk: impostorJwk('no-such-kid') }), body), 401, 'signature_invalid');
  });

  it("signature_invalid for another key presented under the demo client's kid", async () => {
    const body = orderBody();
    expectProblem(await postCreate(bank, createHeaders(body, { jwk: impostorJwk() }), body), 401, 'signature_invalid');
  });

  it('signature_invalid for a reverse-polling signature over another target', async () => {
    const reference = await createdReference();
    const headers = signedStatusHeaders(bank, token, statusTarget(`${reference}-other`));
    expectProblem(await getStatus(bank, statusTarget(reference), headers), 401, 'signature_invalid');
  });
});

describe('401 timestamp_out_of_window and nonce_replayed', () => {
  it.each([301, -301, 3600])('timestamp %i s from the bank clock is refused', async (offset) => {
    const body = orderBody();
    expectProblem(await postCreate(bank, createHeaders(body, { timestamp: isoAt(bank, offset) }), body), 401, 'timestamp_out_of_window');
  });

  it.each([300, -300, 0])('timestamp %i s from the bank clock is accepted (window is inclusive)', async (offset) => {
    const body = orderBody();
    expect((await postCreate(bank, createHeaders(body, { timestamp: isoAt(bank, offset) }), body)).status).toBe(200);
  });

  it('a timestamp with fractional seconds is accepted', async () => {
    const body = orderBody();
    const timestamp = new Date(clock.now() - 1500).toISOString();
    expect((await postCreate(bank, createHeaders(body, { timestamp }), body)).status).toBe(200);
  });

  it('nonce_replayed for the same nonce on a second, otherwise valid create', async () => {
    const nonce = newNonce();
    const first = orderBody();
    expect((await postCreate(bank, createHeaders(first, { nonce }), first)).status).toBe(200);
    const second = orderBody();
    expectProblem(await postCreate(bank, createHeaders(second, { nonce }), second), 401, 'nonce_replayed');
  });

  it('a nonce stays spent to the last millisecond its timestamp is accepted (the window is inclusive at both ends)', async () => {
    // A Bank of its own: its clock jumps by the whole window, which would upset the rate limits of the shared one.
    const ownClock = new ManualClock();
    const own = await startBank({ sandboxMode: 'relaxed' }, { clock: ownClock });
    try {
      const ownToken = await new DemoClient(own).token();
      const send = (body: string, nonce: string, timestamp: string) => postCreate(own, signedCreateHeaders(own, ownToken, body, { nonce, timestamp }), body);
      // A client clock ahead of the Bank's: the nonce must be kept until the timestamp itself leaves the window.
      const nonce = newNonce();
      const timestamp = isoAt(own, 1);
      expect((await send(orderBody(), nonce, timestamp)).status).toBe(200);
      ownClock.set(Date.parse(timestamp) + 300_000);
      expectProblem(await send(orderBody(), nonce, timestamp), 401, 'nonce_replayed');
      ownClock.advance(1);
      expectProblem(await send(orderBody(), nonce, timestamp), 401, 'timestamp_out_of_window');
    } finally {
      own.close();
    }
  });

  it('nonce_replayed across flows: a nonce spent on create is refused on reverse polling', async () => {
    const nonce = newNonce();
    const order = sampleOrder();
    const body = JSON.stringify(order);
    expect((await postCreate(bank, createHeaders(body, { nonce }), body)).status).toBe(200);
    const target = statusTarget(order.reference as string);
    expectProblem(await getStatus(bank, target, signedStatusHeaders(bank, token, target, { nonce })), 401, 'nonce_replayed');
  });
});

describe('403 mtls_required', () => {
  it('reverse polling over plain HTTP in strict mode (the default)', async () => {
    const strict = await startBank({}, { clock });
    try {
      const strictClient = new DemoClient(strict);
      const order = sampleOrder();
      expect((await strictClient.create(order)).status).toBe(200);
      const response = await strictClient.status(order.reference as string);
      expectProblem(response, 403, 'mtls_required');
    } finally {
      strict.close();
    }
  });
});

(opensslAvailable() ? describe : describe.skip)('mTLS on reverse polling (HTTPS listener with a test CA)', () => {
  let strict: Bank;
  let strictToken: string;
  let reference: string;
  let ca: ReturnType<typeof createCa>;
  let listener: Awaited<ReturnType<typeof listenMtls>>;

  beforeAll(async () => {
    strict = await startBank({}, { clock });
    const strictClient = new DemoClient(strict);
    strictToken = await strictClient.token();
    const order = sampleOrder();
    expect((await strictClient.create(order)).status).toBe(200);
    reference = order.reference as string;
    ca = createCa();
    listener = await listenMtls(strict.app, ca, ca.issue('localhost'));
  });
  afterAll(async () => {
    await listener.close();
    strict.close();
  });

  function poll(headers: Headers, clientCert?: { key: string; cert: string }, target = statusTarget(reference)) {
    return httpsRequest(listener.port, ca.cert, { method: 'GET', path: target, headers, clientCert });
  }

  it('a certificate from the CA whose CN is X-Client-Id is served in strict mode', async () => {
    const target = statusTarget(reference);
    const response = await poll(signedStatusHeaders(strict, strictToken, target), ca.issue(demo.client_id));
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ reference, status: 'SUCCESS' });
  });

  it('HTTPS without a client certificate is mtls_required', async () => {
    expectProblem(await poll(signedStatusHeaders(strict, strictToken, statusTarget(reference))), 403, 'mtls_required');
  });

  it('a certificate from another CA is mtls_required', async () => {
    const foreign = createCa('foreign-ca').issue(demo.client_id);
    expectProblem(await poll(signedStatusHeaders(strict, strictToken, statusTarget(reference)), foreign), 403, 'mtls_required');
  });

  it('a certificate whose CN is not X-Client-Id is refused (auth_invalid)', async () => {
    const response = await poll(signedStatusHeaders(strict, strictToken, statusTarget(reference)), ca.issue('other-connector'));
    expectProblem(response, 401, 'auth_invalid');
  });

  it('order: transport before headers, headers before the CN check, the CN check before client', async () => {
    const target = statusTarget(reference);
    const headers = signedStatusHeaders(strict, strictToken, target);
    expectProblem(await poll({ ...headers, 'x-nonce': undefined }), 403, 'mtls_required');
    expectProblem(await poll({ ...headers, 'x-nonce': undefined }, ca.issue('other-connector')), 400, 'header_missing');
    expectProblem(await poll({ ...headers, 'x-client-id': 'nobody-registered' }, ca.issue('other-connector')), 401, 'auth_invalid');
    expectProblem(await poll({ ...headers, 'x-client-id': 'nobody-registered' }, ca.issue('nobody-registered')), 401, 'client_unknown');
  });
});

describe('404 order_not_found', () => {
  it('reverse polling for an unknown orderId', async () => {
    const response = await client.status('ORD-NEVER-CREATED');
    const problem = expectProblem(response, 404, 'order_not_found');
    expect(problem.instance).toBe('/payment-orders/ORD-NEVER-CREATED/status');
  });
});

describe('a malformed percent-encoding in orderId is a client error, never 500', () => {
  it.each(['/payment-orders/%ZZ/status', '/payment-orders/%E0%A4%A/status'])('signed reverse polling of %s (relaxed mode) is 404 order_not_found', async (target) => {
    expectProblem(await getStatus(bank, target, signedStatusHeaders(bank, token, target)), 404, 'order_not_found');
  });

  it('in strict mode, over plain HTTP, it is still mtls_required (transport first)', async () => {
    const strict = await startBank({}, { clock });
    try {
      expectProblem(await rawRequest(strict.app, { method: 'GET', path: '/payment-orders/%ZZ/status', headers: {} }), 403, 'mtls_required');
    } finally {
      strict.close();
    }
  });
});

describe('409 duplicate_reference and idempotency_in_progress', () => {
  it('duplicate_reference: a new idempotency key for an existing reference', async () => {
    const order = sampleOrder();
    expect((await client.create(order)).status).toBe(200);
    expectProblem(await client.create(order), 409, 'duplicate_reference');
  });

  it('idempotency_in_progress: the same key while the first request is still processing', async () => {
    const slow = await startBank({ createLatencyMs: 300 });
    try {
      const slowClient = new DemoClient(slow);
      const order = sampleOrder();
      const idempotencyKey = `idem-${newNonce()}`;
      const [a, b] = await Promise.all([slowClient.create(order, { idempotencyKey }), slowClient.create(order, { idempotencyKey })]);
      const [first, second] = a.status === 200 ? [a, b] : [b, a];
      expect(first.status).toBe(200);
      expectProblem({ status: second.status, headers: second.headers, text: second.text }, 409, 'idempotency_in_progress');
    } finally {
      slow.close();
    }
  });
});

describe('413 body_too_large', () => {
  it('a body one byte over the default 256 KiB limit', async () => {
    expect(bank.config.bodyLimitBytes).toBe(262_144);
    const body = Buffer.alloc(262_145, 0x20);
    const headers = createHeaders(body);
    const before = tableCounts(bank);
    expectProblem(await postCreate(bank, headers, body), 413, 'body_too_large', requestIdOf(headers));
    expect(tableCounts(bank)).toEqual(before);
  });

  it('a chunked body (no Content-Length) over the limit', async () => {
    const body = Buffer.alloc(262_145, 0x20);
    const headers = { ...createHeaders(body), 'transfer-encoding': 'chunked' };
    expectProblem(await postCreate(bank, headers, body), 413, 'body_too_large');
  });

  it('a declared Content-Length over the limit is refused before the body is read', async () => {
    const body = orderBody();
    const response = await postCreate(bank, { ...createHeaders(body), 'content-length': '300000' }, body).catch((error: Error) => error);
    if (response instanceof Error) throw response;
    expectProblem(response, 413, 'body_too_large');
  });

  it('a body of exactly the limit is read (valid JSON padded with spaces is accepted)', async () => {
    const json = orderBody();
    const body = json + ' '.repeat(262_144 - Buffer.byteLength(json));
    expect(Buffer.byteLength(body)).toBe(262_144);
    expect((await postCreate(bank, createHeaders(body), body)).status).toBe(200);
  });

  it('the limit follows BODY_LIMIT_BYTES', async () => {
    const small = await startBank({ bodyLimitBytes: 1024 }, { clock });
    try {
      const smallClient = new DemoClient(small);
      const body = orderBody({ reason: 'r'.repeat(1100) });
      expectProblem(await postCreate(small, signedCreateHeaders(small, await smallClient.token(), body), body), 413, 'body_too_large');
    } finally {
      small.close();
    }
  });
});

describe('415 unsupported_media_type', () => {
  it.each(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/json; charset=iso-8859-1', 'application/jsonx'])(
    'Content-Type %s',
    async (contentType) => {
      const body = orderBody();
      const headers = createHeaders(body);
      expectProblem(await postCreate(bank, { ...headers, 'content-type': contentType }, body), 415, 'unsupported_media_type', requestIdOf(headers));
    },
  );

  it.each(['gzip', 'br', 'deflate, gzip'])('Content-Encoding %s: the body is read as sent, so a compressed one is refused plainly', async (encoding) => {
    const body = orderBody();
    const headers = createHeaders(body);
    const problem = expectProblem(await postCreate(bank, { ...headers, 'content-encoding': encoding }, body), 415, 'unsupported_media_type', requestIdOf(headers));
    expect(problem.detail).toMatch(/Content-Encoding .* is not accepted: send the JSON body uncompressed/);
  });

  it('Content-Encoding identity is accepted', async () => {
    const body = orderBody();
    expect((await postCreate(bank, { ...createHeaders(body), 'content-encoding': 'identity' }, body)).status).toBe(200);
  });

  it.each(['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8'])('Content-Type %s is accepted', async (contentType) => {
    const body = orderBody();
    expect((await postCreate(bank, { ...createHeaders(body), 'content-type': contentType }, body)).status).toBe(200);
  });
});

describe('422 idempotency_key_reused', () => {
  it('the same key with a different body', async () => {
    const idempotencyKey = `idem-${newNonce()}`;
    expect((await client.create(sampleOrder(), { idempotencyKey })).status).toBe(200);
    expectProblem(await client.create(sampleOrder(), { idempotencyKey }), 422, 'idempotency_key_reused');
  });
});

describe('429 rate_limited', () => {
  it('reverse polling over STATUS_RATE_BURST, with Retry-After in seconds, refilled at STATUS_RATE_PER_S', async () => {
    const limitedClock = new ManualClock();
    const limited = await startBank({ sandboxMode: 'relaxed', statusRatePerS: 1, statusRateBurst: 2 }, { clock: limitedClock });
    try {
      const limitedClient = new DemoClient(limited);
      const order = sampleOrder();
      expect((await limitedClient.create(order)).status).toBe(200);
      const reference = order.reference as string;
      expect((await limitedClient.status(reference)).status).toBe(200);
      expect((await limitedClient.status(reference)).status).toBe(200);
      const refused = await limitedClient.status(reference);
      expectProblem(refused, 429, 'rate_limited');
      expect(refused.headers['retry-after']).toBe('1');
      limitedClock.advance(999);
      expectProblem(await limitedClient.status(reference), 429, 'rate_limited');
      limitedClock.advance(1);
      expect((await limitedClient.status(reference)).status).toBe(200);
      expectProblem(await limitedClient.status(reference), 429, 'rate_limited');
      limitedClock.advance(10_000); // refill is capped at the burst
      expect((await limitedClient.status(reference)).status).toBe(200);
      expect((await limitedClient.status(reference)).status).toBe(200);
      expectProblem(await limitedClient.status(reference), 429, 'rate_limited');
      // create is not counted against the reverse-polling quota
      expect((await limitedClient.create(sampleOrder())).status).toBe(200);
    } finally {
      limited.close();
    }
  });

  it('Retry-After is a whole number of seconds, at least 1', async () => {
    const limitedClock = new ManualClock();
    const limited = await startBank({ sandboxMode: 'relaxed', statusRatePerS: 1, statusRateBurst: 1 }, { clock: limitedClock });
    try {
      const limitedClient = new DemoClient(limited);
      expect((await limitedClient.status('ORD-ANY')).status).toBe(404);
      const refused = await limitedClient.status('ORD-ANY');
      expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    } finally {
      limited.close();
    }
  });
});

describe('500 internal', () => {
  it('an unexpected repository error answers 500 internal with no stack or internal detail', async () => {
    const reference = await createdReference();
    const spy = jest.spyOn(bank.book, 'findPolled').mockImplementation(() => {
      throw new Error('SQLITE_CORRUPT: database disk image is malformed at /var/secret/sandbox-bank.sqlite');
    });
    try {
      const target = statusTarget(reference);
      const headers = { ...signedStatusHeaders(bank, token, target), 'x-request-id': 'trace-me-500' };
      const response = await getStatus(bank, target, headers);
      const problem = expectProblem(response, 500, 'internal', 'trace-me-500');
      expect(response.text).not.toMatch(/SQLITE|secret|sqlite|malformed|\.ts|    at |Error:/);
      expect(Object.keys(problem).sort()).toEqual(['code', 'detail', 'instance', 'request_id', 'status', 'title', 'type']);
    } finally {
      spy.mockRestore();
    }
  });

  it('a closed database answers 500 internal with no internal detail', async () => {
    const broken = await startBank({}, { clock });
    const brokenClient = new DemoClient(broken);
    const brokenToken = await brokenClient.token();
    broken.close();
    const body = orderBody();
    const response = await postCreate(broken, signedCreateHeaders(broken, brokenToken, body), body);
    expectProblem(response, 500, 'internal');
    expect(response.text).not.toMatch(/database|connection|    at |TypeError|\.ts/);
  });
});

describe('every 4xx is problem+json, including endpoints outside the flows', () => {
  it('an unknown route and a wrong method', async () => {
    const unknown = await rawRequest(bank.app, { method: 'GET', path: '/nope', headers: { 'x-request-id': 'rid-404' } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.json<Problem>()).toMatchObject({ status: 404, instance: '/nope', request_id: 'rid-404' });
    const wrongMethod = await rawRequest(bank.app, { method: 'DELETE', path: '/payment-orders', headers: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(wrongMethod.headers.allow).toBe('POST');
  });

  it('every 401 carries WWW-Authenticate (RFC 9110 section 15.5.2), not only auth_missing/auth_invalid', async () => {
    const body = orderBody();
    const cases: [string, Headers, string][] = [
      ['client_unknown', createHeaders(body, { clientId: 'nobody-registered' }), body],
      ['signature_missing', { ...createHeaders(body), 'x-signature': undefined }, body],
      ['signature_invalid', createHeaders(body), `${body} `],
      ['timestamp_out_of_window', createHeaders(body, { timestamp: isoAt(bank, 400) }), body],
    ];
    const missing: string[] = [];
    for (const [code, headers, sent] of cases) {
      const response = await postCreate(bank, headers, sent);
      expectProblem(response, 401, code);
      if (!response.headers['www-authenticate']) missing.push(code);
    }
    expect(missing).toEqual([]);
  });
});

describe('check order: size & media type -> headers -> client -> authorization -> rate limit -> timestamp -> signature -> nonce -> idempotency -> body', () => {
  it('status flow: mTLS comes first, even before required headers', async () => {
    const strict = await startBank({}, { clock });
    try {
      const response = await rawRequest(strict.app, { method: 'GET', path: '/payment-orders/ANY/status', headers: {} });
      expectProblem(response, 403, 'mtls_required');
    } finally {
      strict.close();
    }
  });

  it('status flow: mTLS comes before the size check (a GET with an oversized body on plain HTTP)', async () => {
    const strict = await startBank({ bodyLimitBytes: 1024 }, { clock });
    try {
      const response = await rawRequest(strict.app, {
        method: 'GET',
        path: '/payment-orders/ANY/status',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(2048, 0x20),
      });
      expectProblem(response, 403, 'mtls_required');
    } finally {
      strict.close();
    }
  });

  it('size before media type and everything else', async () => {
    const body = Buffer.alloc(262_145, 0x20);
    const response = await postCreate(bank, { 'content-type': 'text/plain' }, body);
    expectProblem(response, 413, 'body_too_large');
  });

  it('media type before headers', async () => {
    const body = orderBody();
    const headers = createHeaders(body);
    const response = await postCreate(bank, { ...headers, 'content-type': 'text/plain', 'x-nonce': undefined, 'x-client-id': 'nobody' }, body);
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it('headers before client: a missing header with an unknown client is header_missing', async () => {
    const body = orderBody();
    const headers = createHeaders(body, { clientId: 'nobody-registered' });
    expectProblem(await postCreate(bank, { ...headers, 'x-idempotency-key': undefined }, body), 400, 'header_missing');
  });

  it('headers before client: a malformed header with an unknown client is header_invalid', async () => {
    const body = orderBody();
    const headers = createHeaders(body, { clientId: 'nobody-registered' });
    expectProblem(await postCreate(bank, { ...headers, 'x-timestamp': 'not-a-time' }, body), 400, 'header_invalid');
  });

  it('client before authorization and signature: unknown client, no token, bad signature -> client_unknown', async () => {
    const body = orderBody();
    const headers = createHeaders(body, { clientId: 'nobody-registered' });
    const response = await postCreate(bank, { ...headers, authorization: undefined, 'x-signature': 'garbage' }, `${body} `);
    expectProblem(response, 401, 'client_unknown');
  });

  it('client before signature: bad signature and unknown client -> client_unknown', async () => {
    const body = orderBody();
    const headers = createHeaders(body, { clientId: 'nobody-registered' });
    expectProblem(await postCreate(bank, { ...headers, 'x-signature': 'garbage' }, body), 401, 'client_unknown');
  });

  it('authorization before timestamp and signature', async () => {
    const body = orderBody();
    const headers = createHeaders(body, { timestamp: isoAt(bank, -3600), authorization: 'Bearer nope' });
    expectProblem(await postCreate(bank, { ...headers, 'x-signature': 'garbage' }, body), 401, 'auth_invalid');
    expectProblem(await postCreate(bank, { ...headers, authorization: undefined, 'x-signature': undefined }, body), 401, 'auth_missing');
  });

  /** A Bank that allows one status poll a second, on a clock that stands still; `use` gets it and a token. */
  async function withOnePollASecond(use: (limited: Bank, token: string) => Promise<void>): Promise<void> {
    const limited = await startBank({ sandboxMode: 'relaxed', statusRatePerS: 1, statusRateBurst: 1 }, { clock: new ManualClock() });
    try {
      await use(limited, await new DemoClient(limited).token());
    } finally {
      limited.close();
    }
  }

  it('rate limit before timestamp and signature (reverse polling)', () =>
    withOnePollASecond(async (limited, token) => {
      const target = statusTarget('ANY');
      expect((await getStatus(limited, target, signedStatusHeaders(limited, token, target))).status).toBe(404);
      const stale = signedStatusHeaders(limited, token, target, { timestamp: isoAt(limited, -3600) });
      expectProblem(await getStatus(limited, target, { ...stale, 'x-signature': 'garbage' }), 429, 'rate_limited');
    }));

  it('rate limit after authorization: a refused token does not use up the named client\'s quota', () =>
    withOnePollASecond(async (limited, token) => {
      const target = statusTarget('ANY');
      // Anyone can name a client; only an authorized request counts against its quota.
      for (let i = 0; i < 3; i += 1) expectProblem(await getStatus(limited, target, signedStatusHeaders(limited, 'not-a-token', target)), 401, 'auth_invalid');
      expect((await getStatus(limited, target, signedStatusHeaders(limited, token, target))).status).toBe(404);
      expectProblem(await getStatus(limited, target, signedStatusHeaders(limited, token, target)), 429, 'rate_limited');
    }));

  it('timestamp before signature: bad timestamp and bad signature -> timestamp_out_of_window', async () => {
    const body = orderBody();
    const headers = createHeaders(body, { timestamp: isoAt(bank, 301) });
    expectProblem(await postCreate(bank, { ...headers, 'x-signature': 'garbage' }, body), 401, 'timestamp_out_of_window');
    expectProblem(await postCreate(bank, { ...headers, 'x-signature': undefined }, body), 401, 'timestamp_out_of_window');
  });

  it('signature before nonce: a replayed nonce with a bad signature -> signature_invalid, and a bad signature does not spend the nonce', async () => {
    // A spent nonce, replayed under a bad signature: the signature is reported.
    const spent = newNonce();
    const first = orderBody();
    expect((await postCreate(bank, createHeaders(first, { nonce: spent }), first)).status).toBe(200);
    const replay = orderBody();
    expectProblem(await postCreate(bank, createHeaders(replay, { nonce: spent }), `${replay} `), 401, 'signature_invalid');

    // A fresh nonce under a bad signature is not spent: the same nonce still works once, properly signed.
    const fresh = newNonce();
    const body = orderBody();
    expectProblem(await postCreate(bank, createHeaders(body, { nonce: fresh, jwk: impostorJwk() }), body), 401, 'signature_invalid');
    expect(nonceStored(bank, demo.client_id, fresh)).toBe(false);
    expect((await postCreate(bank, createHeaders(body, { nonce: fresh }), body)).status).toBe(200);
    expect(nonceStored(bank, demo.client_id, fresh)).toBe(true);
  });

  it('no nonce is spent by a request rejected before its signature verified', async () => {
    const nonce = newNonce();
    const body = orderBody();
    expectProblem(await postCreate(bank, createHeaders(body, { nonce, timestamp: isoAt(bank, 900) }), body), 401, 'timestamp_out_of_window');
    expectProblem(await postCreate(bank, { ...createHeaders(body, { nonce }), authorization: 'Bearer nope' }, body), 401, 'auth_invalid');
    expectProblem(await postCreate(bank, createHeaders(body, { nonce, clientId: 'nobody-registered' }), body), 401, 'client_unknown');
    expect(nonceStored(bank, demo.client_id, nonce)).toBe(false);
    expect(nonceStored(bank, 'nobody-registered', nonce)).toBe(false);
  });

  it('nonce before idempotency: a replayed nonce with a reused key and another body -> nonce_replayed', async () => {
    const nonce = newNonce();
    const idempotencyKey = `idem-${newNonce()}`;
    const first = orderBody();
    expect((await postCreate(bank, createHeaders(first, { nonce, idempotencyKey }), first)).status).toBe(200);
    const other = orderBody();
    expectProblem(await postCreate(bank, createHeaders(other, { nonce, idempotencyKey }), other), 401, 'nonce_replayed');
    // and replaying the same body with the same nonce is a replayed nonce, not an idempotent replay
    expectProblem(await postCreate(bank, createHeaders(first, { nonce, idempotencyKey }), first), 401, 'nonce_replayed');
  });

  it('idempotency before body: a reused key with a different, invalid body -> 422', async () => {
    const idempotencyKey = `idem-${newNonce()}`;
    const first = orderBody();
    expect((await postCreate(bank, createHeaders(first, { idempotencyKey }), first)).status).toBe(200);
    const invalidBody = orderBody({ unexpected: true });
    expectProblem(await postCreate(bank, createHeaders(invalidBody, { idempotencyKey }), invalidBody), 422, 'idempotency_key_reused');
    const malformed = '{"not json';
    expectProblem(await postCreate(bank, createHeaders(malformed, { idempotencyKey }), malformed), 422, 'idempotency_key_reused');
  });
});
