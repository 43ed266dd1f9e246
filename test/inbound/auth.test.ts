// Profile section 3: the token endpoint (client_secret_basic/post, DPoP-bound tokens, RFC 6749 errors inside problem
// details), Bearer and DPoP on create and reverse polling, the API key on reverse polling only, foreign credentials.
import { createPublicKey, JsonWebKey, verify } from 'node:crypto';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { demo, DemoClient, newNonce, sampleOrder, startBank } from '../helpers/bank';
import { ClientSession, makeTestClient, writeClientsFile } from '../helpers/clients';
import { DpopKey } from '../helpers/dpop';
import { expectProblem, getStatus, HeaderValue, postCreate, Problem, RawResponse, signedCreateHeaders, signedStatusHeaders, statusTarget, safeJson } from '../helpers/wire';

type Headers = Record<string, HeaderValue | undefined>;

const HOST = 'bank.test';
const clock = new ManualClock();
const other = makeTestClient('other-connector');
const bearerOnly = makeTestClient('bearer-only', { authMethods: ['bearer'], withApiKey: false });
const dpopOnly = makeTestClient('dpop-only', { authMethods: ['dpop'] });
const oddSecret = makeTestClient('odd-secret', { clientSecret: 'a secret+with %, : and é' });
let bank: Bank;

beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed', clientsFile: writeClientsFile([other, bearerOnly, dpopOnly, oddSecret]) }, { clock });
});
afterAll(() => bank.close());

const nowS = () => Math.floor(clock.now() / 1000);

function decodeJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, claims] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}

function tokenRequest() {
  return request(bank.app).post('/oauth/token').set('Host', HOST);
}

async function bearerToken(clientId = demo.client_id, secret = demo.client_secret): Promise<string> {
  const response = await tokenRequest().auth(clientId, secret).type('form').send({ grant_type: 'client_credentials' });
  expect(response.status).toBe(200);
  return response.body.access_token as string;
}

async function dpopToken(key: DpopKey, clientId = demo.client_id, secret = demo.client_secret): Promise<string> {
  const proof = key.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS() });
  const response = await tokenRequest().auth(clientId, secret).set('DPoP', proof).type('form').send({ grant_type: 'client_credentials' });
  expect(response.status).toBe(200);
  expect(response.body.token_type).toBe('DPoP');
  return response.body.access_token as string;
}

/** Profile v1.1 section 3: token errors are RFC 6749 §5.2 JSON with the profile's code and the request_id. */
function expectOAuthProblem(response: { status: number; headers: Record<string, string>; text: string }, status: number, code: string, error: string): Problem {
  expect({ status: response.status, code: safeJson(response.text)?.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toMatch(/^application\/json(;|$)/);
  // RFC 6749 §5.1 and its §5.2 example: nothing the token endpoint answers is cached, errors included.
  expect({ cache: response.headers['cache-control'], pragma: response.headers.pragma }).toEqual({ cache: 'no-store', pragma: 'no-cache' });
  const problem = JSON.parse(response.text) as Problem;
  expect(Object.keys(problem).sort()).toEqual(['code', 'error', 'error_description', 'request_id']);
  expect(problem.error).toBe(error);
  expect((problem.error_description as string).length).toBeGreaterThan(0);
  expect(problem.request_id).toBe(response.headers['x-request-id']);
  return problem;
}

function expectAuthInvalid(response: RawResponse): Problem {
  const problem = expectProblem(response, 401, 'auth_invalid');
  expect(response.headers['www-authenticate']).toMatch(/Bearer|DPoP/);
  return problem;
}

async function createdReference(): Promise<string> {
  const order = sampleOrder();
  expect((await new DemoClient(bank).create(order)).status).toBe(200);
  return order.reference as string;
}

/** A signed create (demo client) sent with Host: bank.test and the given Authorization/DPoP. */
function createWith(authorization: string | undefined, dpop?: string, headers: Headers = {}): Promise<RawResponse> {
  const body = JSON.stringify(sampleOrder());
  return postCreate(bank, { ...signedCreateHeaders(bank, '', body), authorization, dpop, host: HOST, ...headers }, body);
}

/** A signed reverse poll (demo client) of `target` sent with Host: bank.test and the given Authorization/DPoP. */
function pollWith(target: string, authorization: string | undefined, dpop?: string): Promise<RawResponse> {
  return getStatus(bank, target, { ...signedStatusHeaders(bank, '', target), authorization, dpop, host: HOST });
}

describe('POST /oauth/token', () => {
  it('client_secret_basic issues a Bearer JWT signed by the Bank (JWKS), 3600 s, client_id claim', async () => {
    const response = await tokenRequest().auth(demo.client_id, demo.client_secret).type('form').send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    const token = response.body.access_token as string;
    const { header, claims } = decodeJwt(token);
    expect(claims).toMatchObject({ client_id: demo.client_id, iat: nowS(), exp: nowS() + 3600 });
    expect(claims.cnf).toBeUndefined();
    const jwks = await request(bank.app).get('/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    const jwk = (jwks.body.keys as (JsonWebKey & { kid: string })[]).find((key) => key.kid === header.kid);
    if (!jwk) throw new Error(`kid ${String(header.kid)} is not in the JWKS`);
    expect(jwk.d).toBeUndefined();
    const [h, c, s] = token.split('.');
    expect(header.alg).toBe('ES256');
    expect(verify('sha256', Buffer.from(`${h}.${c}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))).toBe(true);
  });

  it('client_secret_basic decodes id and secret as RFC 6749 section 2.3.1 encodes them (form-urlencoded: + is a space), as oauth4webapi sends them', async () => {
    // oauth4webapi's formUrlEncode: encodeURIComponent, then a space as +.
    const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    const basic = Buffer.from(`${formEncode(oddSecret.client_id)}:${formEncode(oddSecret.client_secret)}`).toString('base64');
    const response = await tokenRequest().set('Authorization', `Basic ${basic}`).type('form').send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(200);
    const percentSpaces = Buffer.from(`${oddSecret.client_id}:${encodeURIComponent(oddSecret.client_secret)}`).toString('base64');
    expect((await tokenRequest().set('Authorization', `Basic ${percentSpaces}`).type('form').send({ grant_type: 'client_credentials' })).status).toBe(200);
  });

  it('client_secret_post issues a Bearer token', async () => {
    const response = await tokenRequest().type('form').send({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret });
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe('Bearer');
    expect(decodeJwt(response.body.access_token as string).claims.client_id).toBe(demo.client_id);
  });

  it('a valid DPoP proof makes the token DPoP-bound (token_type DPoP, cnf.jkt = RFC 7638 thumbprint)', async () => {
    const key = new DpopKey();
    const token = await dpopToken(key);
    expect(decodeJwt(token).claims.cnf).toEqual({ jkt: key.thumbprint() });
  });

  describe('errors: RFC 6749 §5.2 JSON (profile v1.1), with code and request_id', () => {
    it('wrong secret: 401 auth_invalid, invalid_client', async () => {
      const response = await tokenRequest().auth(demo.client_id, 'wrong-secret').type('form').send({ grant_type: 'client_credentials' });
      expectOAuthProblem(response, 401, 'auth_invalid', 'invalid_client');
    });

    it('unknown client (client_secret_post): 401 auth_invalid, invalid_client', async () => {
      const response = await tokenRequest().type('form').send({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' });
      expectOAuthProblem(response, 401, 'auth_invalid', 'invalid_client');
    });

    it('a Bearer token instead of client authentication: 401 auth_invalid, invalid_client', async () => {
      const response = await tokenRequest().set('Authorization', `Bearer ${await bearerToken()}`).type('form').send({ grant_type: 'client_credentials' });
      expectOAuthProblem(response, 401, 'auth_invalid', 'invalid_client');
    });

    it('no client authentication: 401 auth_missing, invalid_client', async () => {
      const response = await tokenRequest().type('form').send({ grant_type: 'client_credentials' });
      expectOAuthProblem(response, 401, 'auth_missing', 'invalid_client');
    });

    it('both client_secret_basic and client_secret_post: 400 body_invalid, invalid_request', async () => {
      const response = await tokenRequest()
        .auth(demo.client_id, demo.client_secret)
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret });
      expectOAuthProblem(response, 400, 'body_invalid', 'invalid_request');
    });

    it('missing grant_type: 400 body_invalid, invalid_request', async () => {
      const response = await tokenRequest().auth(demo.client_id, demo.client_secret).type('form').send({ scope: 'x' });
      expectOAuthProblem(response, 400, 'body_invalid', 'invalid_request');
    });

    it.each([
      ['grant_type', 'grant_type=client_credentials&grant_type=password', true],
      ['client_secret', `grant_type=client_credentials&client_id=${demo.client_id}&client_secret=${demo.client_secret}&client_secret=wrong`, false],
      ['client_secret (the same value twice)', `grant_type=client_credentials&client_id=${demo.client_id}&client_secret=${demo.client_secret}&client_secret=${demo.client_secret}`, false],
    ])('a repeated %s: 400 invalid_request naming it, and no token (RFC 6749 §3.2, §5.2)', async (label, form, basic) => {
      const name = label.split(' ')[0];
      const base = tokenRequest();
      const response = await (basic ? base.auth(demo.client_id, demo.client_secret) : base).type('form').send(form);
      const problem = expectOAuthProblem(response, 400, 'body_invalid', 'invalid_request');
      expect(problem.error_description).toContain(name);
      expect(problem.error_description).toMatch(/more than once/);
      expect(response.text).not.toContain('access_token');
    });

    it.each(['password', 'authorization_code', 'refresh_token'])('grant_type=%s: 400 body_invalid, unsupported_grant_type', async (grantType) => {
      const response = await tokenRequest().auth(demo.client_id, demo.client_secret).type('form').send({ grant_type: grantType });
      expectOAuthProblem(response, 400, 'body_invalid', 'unsupported_grant_type');
    });

    it('a JSON body: 400 invalid_request, code unsupported_media_type (v1.1)', async () => {
      const response = await tokenRequest().auth(demo.client_id, demo.client_secret).set('Content-Type', 'application/json').send('{"grant_type":"client_credentials"}');
      expectOAuthProblem(response, 400, 'unsupported_media_type', 'invalid_request');
    });

    it.each([
      ['another htu', (key: DpopKey) => key.proof({ htm: 'POST', htu: 'http://elsewhere.test/oauth/token', iat: nowS() })],
      ['another htm', (key: DpopKey) => key.proof({ htm: 'GET', htu: `http://${HOST}/oauth/token`, iat: nowS() })],
      ['an old iat', (key: DpopKey) => key.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS() - 301 })],
      ['typ JWT', (key: DpopKey) => key.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS(), header: { typ: 'JWT' } })],
      ['no jti', (key: DpopKey) => key.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS(), claims: { jti: undefined } })],
      ['a private key in jwk', (key: DpopKey) => key.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS(), header: { jwk: key.privateJwk } })],
      ['a broken signature', (key: DpopKey) => `${key.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS() }).slice(0, -6)}AAAAAA`],
      ['not a JWT', () => 'not-a-proof'],
    ])('a DPoP proof with %s: 400 invalid_dpop_proof (RFC 9449 §5, v1.1)', async (_label, make) => {
      const response = await tokenRequest().auth(demo.client_id, demo.client_secret).set('DPoP', make(new DpopKey())).type('form').send({ grant_type: 'client_credentials' });
      expectOAuthProblem(response, 400, 'auth_invalid', 'invalid_dpop_proof');
    });

    it('a replayed DPoP proof (same jti): 400 invalid_dpop_proof', async () => {
      const proof = new DpopKey().proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS() });
      const send = () => tokenRequest().auth(demo.client_id, demo.client_secret).set('DPoP', proof).type('form').send({ grant_type: 'client_credentials' });
      expect((await send()).status).toBe(200);
      expectOAuthProblem(await send(), 400, 'auth_invalid', 'invalid_dpop_proof');
    });

    it('a 401 carries a Basic challenge exactly when the client authenticated in the Authorization header (RFC 6749 §5.2)', async () => {
      const viaHeader = {
        wrong_secret: await tokenRequest().auth(demo.client_id, 'wrong').type('form').send({ grant_type: 'client_credentials' }),
        another_scheme: await tokenRequest().set('Authorization', 'Bearer x').type('form').send({ grant_type: 'client_credentials' }),
      };
      for (const response of Object.values(viaHeader)) expect([response.status, response.headers['www-authenticate']]).toEqual([401, 'Basic realm="sandbox-bank"']);
      // client_secret_post: no challenge, so that OAuth libraries read the JSON error instead of the header.
      const viaBody = {
        wrong_secret: await tokenRequest().type('form').send({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: 'wrong' }),
        missing: await tokenRequest().type('form').send({ grant_type: 'client_credentials' }),
      };
      for (const response of Object.values(viaBody)) expect([response.status, response.headers['www-authenticate']]).toEqual([401, undefined]);
    });

    it("a client whose contract is Bearer only cannot get a DPoP-bound token, and a DPoP-only client can't get a Bearer token", async () => {
      const proof = new DpopKey().proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS() });
      const bound = await tokenRequest().auth(bearerOnly.client_id, bearerOnly.client_secret).set('DPoP', proof).type('form').send({ grant_type: 'client_credentials' });
      expectOAuthProblem(bound, 400, 'auth_invalid', 'unauthorized_client');
      const plain = await tokenRequest().auth(dpopOnly.client_id, dpopOnly.client_secret).type('form').send({ grant_type: 'client_credentials' });
      expectOAuthProblem(plain, 400, 'auth_invalid', 'unauthorized_client');
      await dpopToken(new DpopKey(), dpopOnly.client_id, dpopOnly.client_secret);
    });

    it('GET /oauth/token: 405 invalid_request with Allow: POST', async () => {
      const response = await request(bank.app).get('/oauth/token');
      expectOAuthProblem(response, 405, 'method_not_allowed', 'invalid_request');
      expect(response.headers.allow).toBe('POST');
    });
  });
});

describe('Bearer tokens on create and reverse polling', () => {
  it('Bearer works on both flows; the scheme is case-insensitive', async () => {
    const token = await bearerToken();
    expect((await createWith(`Bearer ${token}`)).status).toBe(200);
    expect((await createWith(`bearer ${token}`)).status).toBe(200);
    expect((await pollWith(statusTarget(await createdReference()), `Bearer ${token}`)).status).toBe(200);
  });

  it('a token is valid for 3600 s, then auth_invalid', async () => {
    const localClock = new ManualClock();
    const local = await startBank({}, { clock: localClock });
    try {
      const client = new DemoClient(local);
      const token = await client.token();
      localClock.advance(3_599_000);
      expect((await client.create(sampleOrder(), { token })).status).toBe(200);
      localClock.advance(1_000);
      const expired = await client.create(sampleOrder(), { token });
      expectProblem(expired, 401, 'auth_invalid');
      expect(expired.headers['www-authenticate']).toBeTruthy();
    } finally {
      local.close();
    }
  });

  it("another Bank's token (another signing key, same issuer) is auth_invalid", async () => {
    const elsewhere = await startBank({}, { clock });
    try {
      const foreign = await new DemoClient(elsewhere).token();
      expect(elsewhere.signer.kid).not.toBe(bank.signer.kid);
      expectAuthInvalid(await createWith(`Bearer ${foreign}`));
    } finally {
      elsewhere.close();
    }
  });

  it("a token with a forged claim (another client's id, original signature) is auth_invalid", async () => {
    const [header, , signature] = (await bearerToken(other.client_id, other.client_secret)).split('.');
    const { claims } = decodeJwt(await bearerToken());
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: nowS() + 86_400 })).toString('base64url');
    expectAuthInvalid(await createWith(`Bearer ${header}.${forged}.${signature}`));
  });
});

describe('foreign credentials', () => {
  it("another client's token with X-Client-Id demo-connector is auth_invalid (create and reverse polling)", async () => {
    const foreign = await bearerToken(other.client_id, other.client_secret);
    expectAuthInvalid(await createWith(`Bearer ${foreign}`));
    expectAuthInvalid(await pollWith(statusTarget(await createdReference()), `Bearer ${foreign}`));
  });

  it('the other client is served with its own token, key and X-Client-Id', async () => {
    const session = new ClientSession(bank, other);
    const order = sampleOrder();
    expect((await session.create(order)).status).toBe(200);
    expect((await session.status(order.reference as string)).status).toBe(200);
  });

  it("another client's order answers 404 order_not_found, exactly like an unknown order", async () => {
    const reference = await createdReference();
    const session = new ClientSession(bank, other);
    const foreign = await session.status(reference);
    const unknown = await session.status(`${reference}-unknown`);
    const problem = expectProblem(foreign, 404, 'order_not_found');
    const unknownProblem = expectProblem(unknown, 404, 'order_not_found');
    expect(problem.title).toBe(unknownProblem.title);
    expect(problem.detail).toBe(unknownProblem.detail.replace(`${reference}-unknown`, reference));
  });

  it('nonces are scoped per client: a nonce spent by demo-connector is still fresh for another client', async () => {
    const nonce = newNonce();
    const demoToken = await bearerToken();
    const demoBody = JSON.stringify(sampleOrder());
    expect((await postCreate(bank, signedCreateHeaders(bank, demoToken, demoBody, { nonce }), demoBody)).status).toBe(200);
    const otherToken = await bearerToken(other.client_id, other.client_secret);
    const otherBody = JSON.stringify(sampleOrder());
    const theirs = signedCreateHeaders(bank, otherToken, otherBody, { nonce, clientId: other.client_id, jwk: other.private_jwk });
    expect((await postCreate(bank, theirs, otherBody)).status).toBe(200);
    const again = signedCreateHeaders(bank, otherToken, otherBody, { nonce, clientId: other.client_id, jwk: other.private_jwk });
    expectProblem(await postCreate(bank, again, otherBody), 401, 'nonce_replayed');
  });

  it("another client's API key with X-Client-Id demo-connector is auth_invalid", async () => {
    expectAuthInvalid(await pollWith(statusTarget(await createdReference()), `X-API-Key ${other.api_key}`));
  });
});

describe('DPoP-bound tokens', () => {
  const key = new DpopKey();
  let token: string;
  let reference: string;

  beforeAll(async () => {
    token = await dpopToken(key);
    reference = await createdReference();
  });

  const createProof = (overrides: Partial<Parameters<DpopKey['proof']>[0]> = {}, signer = key) =>
    signer.proof({ htm: 'POST', htu: `http://${HOST}/payment-orders`, iat: nowS(), accessToken: token, ...overrides });

  it('DPoP <token> with a fresh proof is accepted on create', async () => {
    expect((await createWith(`DPoP ${token}`, createProof())).status).toBe(200);
  });

  it('DPoP is accepted on reverse polling; the query is ignored on both sides of the htu comparison (RFC 9449 §4.3, v1.1)', async () => {
    const target = statusTarget(reference);
    const proof = key.proof({ htm: 'GET', htu: `http://${HOST}${target}`, iat: nowS(), accessToken: token });
    expect((await pollWith(target, `DPoP ${token}`, proof)).status).toBe(200);
    const withQuery = `${target}?trace=1`;
    const queryProof = key.proof({ htm: 'GET', htu: `http://${HOST}${target}`, iat: nowS(), accessToken: token });
    expect((await pollWith(withQuery, `DPoP ${token}`, queryProof)).status).toBe(200);
    const proofWithQuery = key.proof({ htm: 'GET', htu: `http://${HOST}${withQuery}`, iat: nowS(), accessToken: token });
    expect((await pollWith(withQuery, `DPoP ${token}`, proofWithQuery)).status).toBe(200);
  });

  it('the proof iat is accepted within ±300 s', async () => {
    expect((await createWith(`DPoP ${token}`, createProof({ iat: nowS() - 300 }))).status).toBe(200);
    expect((await createWith(`DPoP ${token}`, createProof({ iat: nowS() + 300 }))).status).toBe(200);
  });

  it('a DPoP-bound token sent as Bearer is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`Bearer ${token}`));
    expectAuthInvalid(await createWith(`Bearer ${token}`, createProof()));
  });

  it('a plain Bearer token sent with the DPoP scheme is auth_invalid', async () => {
    const bearer = await bearerToken();
    expectAuthInvalid(await createWith(`DPoP ${bearer}`, createProof({ accessToken: bearer })));
  });

  it('a missing DPoP header is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`DPoP ${token}`));
  });

  it('a replayed proof (same jti) is auth_invalid', async () => {
    const proof = createProof();
    expect((await createWith(`DPoP ${token}`, proof)).status).toBe(200);
    expectAuthInvalid(await createWith(`DPoP ${token}`, proof));
  });

  it('a request rejected at its signature does not spend the proof jti (nothing stored for a rejected request)', async () => {
    const proof = createProof();
    const body = JSON.stringify(sampleOrder());
    const badlySigned = { ...signedCreateHeaders(bank, '', `${body} `), authorization: `DPoP ${token}`, dpop: proof, host: HOST };
    expectProblem(await postCreate(bank, badlySigned, body), 401, 'signature_invalid');
    expect((await createWith(`DPoP ${token}`, proof)).status).toBe(200);
    expectAuthInvalid(await createWith(`DPoP ${token}`, proof));
  });

  it.each([
    ['another host', `http://elsewhere.test/payment-orders`],
    ['another path', `http://${HOST}/payment-orders/x`],
    ['https instead of http', `https://${HOST}/payment-orders`],
    ['a trailing slash', `http://${HOST}/payment-orders/`],
  ])('a wrong htu (%s) is auth_invalid', async (_label, htu) => {
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ htu })));
  });

  it.each([
    ['upper-case scheme and host', `HTTP://BANK.TEST/payment-orders`],
    ['the default port', `http://${HOST}:80/payment-orders`],
    ['a query and a fragment', `http://${HOST}/payment-orders?x=1#top`],
    ['a dot segment', `http://${HOST}/./payment-orders`],
    ['a percent-encoded unreserved character', `http://${HOST}/payment%2Dorders`],
  ])('an htu equal after RFC 3986 §6.2.2–6.2.3 normalisation (%s) is accepted (RFC 9449 §4.3, v1.1)', async (_label, htu) => {
    expect((await createWith(`DPoP ${token}`, createProof({ htu }))).status).toBe(200);
  });

  it('a wrong htm is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ htm: 'GET' })));
  });

  it('a wrong or missing ath is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ accessToken: `${token}x` })));
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ accessToken: undefined })));
  });

  it('an iat outside ±300 s is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ iat: nowS() - 301 })));
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ iat: nowS() + 301 })));
  });

  it('a proof signed by another key than the one the token is bound to is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({}, new DpopKey())));
  });

  it('a proof with typ JWT, a private jwk or a broken signature is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ header: { typ: 'JWT' } })));
    expectAuthInvalid(await createWith(`DPoP ${token}`, createProof({ header: { jwk: key.privateJwk } })));
    expectAuthInvalid(await createWith(`DPoP ${token}`, `${createProof().slice(0, -6)}AAAAAA`));
  });
});

describe('API key (reverse polling only)', () => {
  it('X-API-Key <api_key> is accepted on reverse polling (scheme case-insensitive)', async () => {
    const target = statusTarget(await createdReference());
    const response = await pollWith(target, `X-API-Key ${demo.api_key}`);
    expect(response.status).toBe(200);
    expect((await pollWith(target, `x-api-key ${demo.api_key}`)).status).toBe(200);
  });

  it('a wrong API key is auth_invalid', async () => {
    expectAuthInvalid(await pollWith(statusTarget(await createdReference()), `X-API-Key ${demo.api_key}x`));
  });

  it('an API key on create is auth_invalid', async () => {
    expectAuthInvalid(await createWith(`X-API-Key ${demo.api_key}`));
  });

  it('a client whose contract does not allow API keys is refused', async () => {
    const session = new ClientSession(bank, bearerOnly);
    const order = sampleOrder();
    expect((await session.create(order)).status).toBe(200);
    const response = await session.status(order.reference as string, { headers: { authorization: `X-API-Key ${bearerOnly.api_key}` } });
    expectProblem(response, 401, 'auth_invalid');
  });
});
