// Profile v1.1 section 5: "None of these ever holds a secret." Drives every problem-producing path that is cheap to
// reach (bad signatures, tokens, DPoP proofs, API keys, client secrets at the token endpoint, the admin token on
// /sandbox, stale timestamps, replayed nonces), many of them carrying a real secret in the request, and checks
// that no response body or header carries any secret: the client's secret and API key, an issued access token,
// a private JWK member (the client's, the Bank's, a DPoP key's), or the admin token.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { TokenService } from '../../src/bank/security/tokens';
import { ManualClock } from '../../src/wire/clock';
import { JwsHeader, signDetached } from '../../src/wire/jws';
import { PublicJwk, signingKeyFromJwk } from '../../src/wire/keys';
import { signatureBase } from '../../src/wire/signature-base';
import { demo, DemoClient, newNonce, sampleOrder, startBank } from '../helpers/bank';
import { makeTestClient, writeClientsFile } from '../helpers/clients';
import { DpopKey } from '../helpers/dpop';
import { getStatus, HeaderValue, isoAt, postCreate, rawRequest, safeJson, signedCreateHeaders, signedStatusHeaders, statusTarget } from '../helpers/wire';

type Headers = Record<string, HeaderValue | undefined>;

interface Captured {
  label: string;
  status: number;
  headers: Record<string, unknown>;
  text: string;
}

const HOST = 'bank.test';
const ADMIN_TOKEN = `adm_${randomBytes(24).toString('base64url')}`;
const clock = new ManualClock();
const other = makeTestClient('other-connector');
const dpopKey = new DpopKey();
let bank: Bank;
let reference: string;
const issuedTokens: string[] = [];
const captured: Captured[] = [];

const nowS = () => Math.floor(clock.now() / 1000);

function privateMembers(jwk: Record<string, unknown>): string[] {
  return ['d', 'p', 'q', 'dp', 'dq', 'qi'].map((name) => jwk[name]).filter((value): value is string => typeof value === 'string');
}

function basic(clientId: string, secret: string): string {
  return Buffer.from(`${clientId}:${secret}`).toString('base64');
}

function bankPrivateJwk(): Record<string, unknown> {
  return bank.signer.privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
}

/** Every secret a response must never carry, by name. */
function secrets(): Record<string, string> {
  const named: Record<string, string> = {
    'demo client_secret': demo.client_secret,
    'demo client_secret_basic credentials': basic(demo.client_id, demo.client_secret),
    'demo api_key': demo.api_key,
    'other client_secret': other.client_secret,
    'other api_key': other.api_key,
    'admin token': ADMIN_TOKEN,
  };
  privateMembers(demo.private_jwk as Record<string, unknown>).forEach((value, index) => (named[`demo private_jwk member ${index}`] = value));
  privateMembers(other.private_jwk as Record<string, unknown>).forEach((value, index) => (named[`other private_jwk member ${index}`] = value));
  privateMembers(bankPrivateJwk()).forEach((value, index) => (named[`bank private_jwk member ${index}`] = value));
  privateMembers(dpopKey.privateJwk).forEach((value, index) => (named[`DPoP private_jwk member ${index}`] = value));
  issuedTokens.forEach((token, index) => {
    named[`access token ${index}`] = token;
    named[`access token ${index} signature`] = token.split('.')[2];
  });
  return named;
}

function capture(label: string, response: { status: number; headers: Record<string, unknown>; text: string }): void {
  captured.push({ label, status: response.status, headers: response.headers, text: response.text });
}

function orderBody(): string {
  return JSON.stringify(sampleOrder());
}

function issue(service: TokenService, clientId = demo.client_id, jkt: string | null = null): string {
  const token = service.issue(clientId, jkt).access_token;
  issuedTokens.push(token);
  return token;
}

function serviceWith(options: { clockMs?: number; audience?: string }): TokenService {
  return new TokenService(bank.signer, new ManualClock(options.clockMs ?? clock.now()), bank.config.issuer, options.audience ?? bank.config.tokenAudience, 3600);
}

function impostorJwk(kid: string): PublicJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(privateKey.export({ format: 'jwk' }) as PublicJwk), kid, alg: 'ES256' };
}

function tokenRequest() {
  return request(bank.app).post('/oauth/token').set('Host', HOST);
}

beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed', adminToken: ADMIN_TOKEN, clientsFile: writeClientsFile([other]) }, { clock });
  const order = sampleOrder();
  reference = order.reference as string;
  const demoClient = new DemoClient(bank);
  issuedTokens.push(await demoClient.token());
  expect((await demoClient.create(order)).status).toBe(200);
});
afterAll(() => bank.close());

describe('None of these ever carries a secret (profile v1.1 section 5)', () => {
  let bearer: string;
  let dpopToken: string;
  let otherToken: string;

  beforeAll(async () => {
    [bearer] = issuedTokens;
    const proof = dpopKey.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS() });
    const bound = await tokenRequest().auth(demo.client_id, demo.client_secret).set('DPoP', proof).type('form').send({ grant_type: 'client_credentials' });
    expect(bound.status).toBe(200);
    dpopToken = bound.body.access_token as string;
    issuedTokens.push(dpopToken);
    const theirs = await tokenRequest().type('form').send({ grant_type: 'client_credentials', client_id: other.client_id, client_secret: other.client_secret });
    expect(theirs.status).toBe(200);
    otherToken = theirs.body.access_token as string;
    issuedTokens.push(otherToken);
  });

  function create(label: string, change: (headers: Headers, body: string) => { headers: Headers; body?: string }, token = bearer): Promise<void> {
    const body = orderBody();
    const changed = change({ ...signedCreateHeaders(bank, token, body), host: HOST }, body);
    return postCreate(bank, changed.headers, changed.body ?? body).then((response) => capture(`create: ${label}`, response));
  }

  function poll(label: string, change: (headers: Headers) => Headers): Promise<void> {
    const target = statusTarget(reference);
    return getStatus(bank, target, change({ ...signedStatusHeaders(bank, bearer, target), host: HOST })).then((response) => capture(`poll: ${label}`, response));
  }

  const createProof = (token: string, overrides: Partial<Parameters<DpopKey['proof']>[0]> = {}, key = dpopKey) =>
    key.proof({ htm: 'POST', htu: `http://${HOST}/payment-orders`, iat: nowS(), accessToken: token, ...overrides });

  async function driveSignatures(): Promise<void> {
    const forged = (header: Record<string, unknown>) => `${Buffer.from(JSON.stringify(header)).toString('base64url')}..c2lnbmF0dXJl`;
    await create('body changed after signing', (headers, body) => ({ headers, body: `${body} ` }));
    await create('unknown kid', (_headers, body) => ({ headers: signedCreateHeaders(bank, bearer, body, { jwk: impostorJwk('no-such-kid') }) }));
    await create("other client's key", (_headers, body) => ({ headers: signedCreateHeaders(bank, bearer, body, { jwk: other.private_jwk }) }));
    await create('alg HS256', (headers) => ({ headers: { ...headers, 'x-signature': forged({ alg: 'HS256', kid: demo.private_jwk.kid }) } }));
    await create('not a JWS', (headers) => ({ headers: { ...headers, 'x-signature': 'not-a-jws' } }));
    await create('crit', (headers, body) => {
      const key = signingKeyFromJwk(demo.private_jwk);
      const values = Object.fromEntries(Object.entries(headers).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
      const base = signatureBase('create', { method: 'POST', target: '/payment-orders', headers: values, body });
      return { headers: { ...headers, 'x-signature': signDetached(base, key.privateKey, { alg: key.alg, kid: key.kid, typ: 'JOSE', crit: ['exp'], exp: nowS() } as JwsHeader) } };
    });
    await create('Content-Digest mismatch', (headers) => ({ headers: { ...headers, 'content-digest': 'sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:' } }));
    await create('missing X-Signature', (headers) => ({ headers: { ...headers, 'x-signature': undefined } }));
    await poll('signed over another target', (headers) => ({ ...headers, 'x-signature': signedStatusHeaders(bank, bearer, statusTarget('elsewhere'))['x-signature'] }));
  }

  async function driveFreshness(): Promise<void> {
    await create('timestamp out of window', (_headers, body) => ({ headers: signedCreateHeaders(bank, bearer, body, { timestamp: isoAt(bank, 900) }) }));
    await poll('timestamp out of window', () => signedStatusHeaders(bank, bearer, statusTarget(reference), { timestamp: isoAt(bank, -900) }));
    const nonce = newNonce();
    const first = orderBody();
    expect((await postCreate(bank, signedCreateHeaders(bank, bearer, first, { nonce }), first)).status).toBe(200);
    clock.advance(3_000);
    await create('replayed nonce', (_headers, body) => ({ headers: signedCreateHeaders(bank, bearer, body, { nonce }) }));
    await poll('replayed nonce', () => signedStatusHeaders(bank, bearer, statusTarget(reference), { nonce }));
  }

  async function driveTokens(): Promise<void> {
    const expired = issue(serviceWith({ clockMs: clock.now() - 3_601_000 }));
    const audience = issue(serviceWith({ audience: 'other-aud' }));
    const [header, claims, signature] = bearer.split('.');
    const altered = `${header}.${claims}.${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    const bearerCases: [string, string][] = [
      ['expired token', `Bearer ${expired}`],
      ['token for another audience', `Bearer ${audience}`],
      ["another client's token", `Bearer ${otherToken}`],
      ['altered token signature', `Bearer ${altered}`],
      ['DPoP-bound token as Bearer', `Bearer ${dpopToken}`],
      ['plain token with the DPoP scheme', `DPoP ${bearer}`],
      ['client secret as a token', `Bearer ${demo.client_secret}`],
      ['admin token as a token', `Bearer ${ADMIN_TOKEN}`],
      ['API key on create', `X-API-Key ${demo.api_key}`],
      ['client credentials as Basic', `Basic ${basic(demo.client_id, demo.client_secret)}`],
    ];
    for (const [label, authorization] of bearerCases) await create(label, (headers) => ({ headers: { ...headers, authorization } }));
    await poll('wrong API key', (headers) => ({ ...headers, authorization: `X-API-Key ${demo.api_key}x` }));
    await poll("another client's API key", (headers) => ({ ...headers, authorization: `X-API-Key ${other.api_key}` }));
    await poll('right API key, bad signature', (headers) => ({ ...headers, authorization: `X-API-Key ${demo.api_key}`, 'x-signature': 'not-a-jws' }));
    await poll('expired token', (headers) => ({ ...headers, authorization: `Bearer ${expired}` }));
    await create('no Authorization', (headers) => ({ headers: { ...headers, authorization: undefined } }));
  }

  async function driveDpop(): Promise<void> {
    const dpop = (label: string, proof: string | undefined) => create(label, (headers) => ({ headers: { ...headers, authorization: `DPoP ${dpopToken}`, dpop: proof } }));
    await dpop('proof for another htu', createProof(dpopToken, { htu: 'http://elsewhere.test/payment-orders' }));
    await dpop('proof for another htm', createProof(dpopToken, { htm: 'GET' }));
    await dpop('proof with a wrong ath', createProof(dpopToken, { accessToken: `${dpopToken}x` }));
    await dpop('proof by another key', createProof(dpopToken, {}, new DpopKey()));
    await dpop('proof carrying the private JWK', createProof(dpopToken, { header: { jwk: dpopKey.privateJwk } }));
    await dpop('proof with a broken signature', `${createProof(dpopToken).slice(0, -6)}AAAAAA`);
    await dpop('no proof', undefined);
    const proof = createProof(dpopToken);
    await dpop('first use of a proof', proof);
    await dpop('replayed proof', proof);
    await create('expired DPoP-bound token', (headers) => {
      const expired = issue(serviceWith({ clockMs: clock.now() - 3_601_000 }), demo.client_id, dpopKey.thumbprint());
      return { headers: { ...headers, authorization: `DPoP ${expired}`, dpop: createProof(expired) } };
    });
  }

  async function driveTokenEndpoint(): Promise<void> {
    const form = { grant_type: 'client_credentials' };
    const withProof = (overrides: Partial<Parameters<DpopKey['proof']>[0]>) =>
      tokenRequest()
        .auth(demo.client_id, demo.client_secret)
        .set('DPoP', dpopKey.proof({ htm: 'POST', htu: `http://${HOST}/oauth/token`, iat: nowS(), ...overrides }))
        .type('form')
        .send(form);
    const cases: [string, () => request.Test][] = [
      ['Basic, wrong secret', () => tokenRequest().auth(demo.client_id, `${demo.client_secret}x`).type('form').send(form)],
      ['post, wrong secret', () => tokenRequest().type('form').send({ ...form, client_id: demo.client_id, client_secret: `${demo.client_secret}x` })],
      ['Basic, secret of another client', () => tokenRequest().auth(demo.client_id, other.client_secret).type('form').send(form)],
      ['Basic, right secret, unsupported grant', () => tokenRequest().auth(demo.client_id, demo.client_secret).type('form').send({ grant_type: 'password' })],
      ['post, right secret, unsupported grant', () => tokenRequest().type('form').send({ grant_type: 'password', client_id: demo.client_id, client_secret: demo.client_secret })],
      ['Basic and post at once', () => tokenRequest().auth(demo.client_id, demo.client_secret).type('form').send({ ...form, client_id: demo.client_id, client_secret: demo.client_secret })],
      ['right secret in a JSON body', () => tokenRequest().set('Content-Type', 'application/json').send(JSON.stringify({ ...form, client_id: demo.client_id, client_secret: demo.client_secret }))],
      ['a Bearer token as client authentication', () => tokenRequest().set('Authorization', `Bearer ${bearer}`).type('form').send(form)],
      ['the API key as client secret', () => tokenRequest().auth(demo.client_id, demo.api_key).type('form').send(form)],
      ['a bad DPoP proof with the right secret', () => withProof({ htu: 'http://elsewhere.test/oauth/token' })],
      ['a DPoP proof carrying the private JWK', () => withProof({ header: { jwk: dpopKey.privateJwk } })],
      ['GET', () => request(bank.app).get('/oauth/token').auth(demo.client_id, demo.client_secret)],
    ];
    for (const [label, send] of cases) capture(`token endpoint: ${label}`, await send());
  }

  async function driveSandbox(): Promise<void> {
    const cases: [string, string | undefined][] = [
      ['wrong admin token', `Bearer ${ADMIN_TOKEN}x`],
      ['admin token cut short', `Bearer ${ADMIN_TOKEN.slice(0, -1)}`],
      ['admin token under another scheme', `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`],
      ['an access token', `Bearer ${bearer}`],
      ['the client secret', `Bearer ${demo.client_secret}`],
      ['no Authorization', undefined],
    ];
    for (const [label, authorization] of cases) {
      for (const path of ['/sandbox/orders', `/sandbox/orders/${encodeURIComponent(reference)}`, '/sandbox/callbacks']) {
        capture(`sandbox ${path}: ${label}`, await rawRequest(bank.app, { method: 'GET', path, headers: { authorization } }));
      }
      capture(`sandbox POST /sandbox/poll: ${label}`, await rawRequest(bank.app, { method: 'POST', path: '/sandbox/poll', headers: { authorization } }));
    }
  }

  it('drives every cheap problem path, then finds no secret in any response body or header', async () => {
    await driveSignatures();
    await driveFreshness();
    await driveTokens();
    await driveDpop();
    await driveTokenEndpoint();
    await driveSandbox();

    // The drive reached what it meant to: failures only (the one deliberate success aside), of many kinds.
    const failures = captured.filter((response) => response.label !== 'create: first use of a proof');
    expect(failures.filter((response) => response.status < 400).map((response) => response.label)).toEqual([]);
    const codes = new Set(failures.map((response) => String(safeJson(response.text)?.code)));
    for (const code of ['signature_invalid', 'signature_missing', 'timestamp_out_of_window', 'nonce_replayed', 'auth_invalid', 'auth_missing', 'body_invalid', 'unsupported_media_type']) {
      expect([code, codes.has(code)]).toEqual([code, true]);
    }
    expect(failures.length).toBeGreaterThan(60);

    const named = secrets();
    for (const [name, value] of Object.entries(named)) expect([name, value.length >= 16]).toEqual([name, true]);
    const leaks: string[] = [];
    for (const response of captured) {
      const headerText = JSON.stringify(response.headers);
      for (const [name, value] of Object.entries(named)) {
        if (response.text.includes(value)) leaks.push(`${response.label} (${response.status}): body carries the ${name}`);
        if (headerText.includes(value)) leaks.push(`${response.label} (${response.status}): a header carries the ${name}`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it("the Bank's private key checked above is the one it signs with and keeps in bank_keys", () => {
    const stored = bank.db.prepare('SELECT private_jwk FROM bank_keys WHERE kid = ?').pluck().get(bank.signer.kid) as string;
    const d = bankPrivateJwk().d;
    expect(typeof d).toBe('string');
    expect((JSON.parse(stored) as Record<string, unknown>).d).toBe(d);
  });
});
