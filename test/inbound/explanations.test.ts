// Profile v1.1 section 5: problems that explain themselves. For every `reason` the Bank can give, one request that
// produces it, with the exact extension members: signature_invalid (signature_base, content_digest, kid, alg, reason),
// timestamp_out_of_window (bank_time, window_s), nonce_replayed (first_seen_at), auth_invalid (reason and the
// RFC 6750 §3 / RFC 9449 §7.1 challenge). ManualClock throughout, so that every time in a problem is known exactly.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { Bank } from '../../src/bank/bank';
import { TokenService } from '../../src/bank/security/tokens';
import { ManualClock } from '../../src/wire/clock';
import { JwsHeader, signDetached } from '../../src/wire/jws';
import { PublicJwk, signingKeyFromJwk } from '../../src/wire/keys';
import { parseInstant } from '../../src/wire/rfc3339';
import { SignedFlow, signatureBase } from '../../src/wire/signature-base';
import { demo, DemoClient, newNonce, sampleOrder, startBank } from '../helpers/bank';
import { makeTestClient, writeClientsFile } from '../helpers/clients';
import { DpopKey, ProofOptions } from '../helpers/dpop';
import {
  AnyResponse,
  expectProblem,
  getStatus,
  HeaderValue,
  isoAt,
  postCreate,
  Problem,
  PROBLEM_MEMBERS,
  RawResponse,
  signedCreateHeaders,
  signedStatusHeaders,
  statusTarget,
} from '../helpers/wire';

type Headers = Record<string, HeaderValue | undefined>;

const HOST = 'bank.test';
// Not on a whole second: bank_time must be the Bank's clock to the millisecond, not a truncated X-Timestamp.
const clock = new ManualClock(Date.parse('2026-11-22T10:00:00.250Z'));
const other = makeTestClient('other-connector');
let bank: Bank;
let token: string;

beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed', clientsFile: writeClientsFile([other]) }, { clock });
  token = await new DemoClient(bank).token();
});
afterAll(() => bank.close());

const nowS = () => Math.floor(clock.now() / 1000);

function orderBody(): string {
  return JSON.stringify(sampleOrder());
}

function b64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The header values as sent (single values only), the way the signature base reads them. */
function sentValues(headers: Headers): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') values[name] = value;
  return values;
}

/** RFC 9530 sha-256 over the raw bytes, computed here rather than with the Bank's own helper. */
function digestOf(body: Buffer | string, algorithm: 'sha256' | 'sha512' = 'sha256'): string {
  return `${algorithm === 'sha256' ? 'sha-256' : 'sha-512'}=:${createHash(algorithm).update(body).digest('base64')}:`;
}

/** A fresh EC key that no client has registered, under the given kid. */
function impostorJwk(kid: string): PublicJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(privateKey.export({ format: 'jwk' }) as PublicJwk), kid, alg: 'ES256' };
}

function createHeaders(body: Buffer | string, options: Parameters<typeof signedCreateHeaders>[3] = {}): Headers {
  return signedCreateHeaders(bank, token, body, options);
}

/** A create whose X-Signature is a correct demo-key signature under a protected header of our choosing. */
function createSignedWithHeader(body: string, change: (header: Record<string, unknown>) => void): Headers {
  const headers = createHeaders(body);
  const key = signingKeyFromJwk(demo.private_jwk);
  const header: Record<string, unknown> = { alg: key.alg, kid: key.kid, typ: 'JOSE' };
  change(header);
  const base = signatureBase('create', { method: 'POST', target: '/payment-orders', headers: sentValues(headers), body });
  return { ...headers, 'x-signature': signDetached(base, key.privateKey, header as JwsHeader) };
}

interface SentRequest {
  flow: SignedFlow;
  method: string;
  target: string;
  headers: Headers;
  body: Buffer | string;
}

interface Explanation {
  reason: string;
  kid: string | null;
  alg: string | null;
}

/**
 * Asserts a signature_invalid problem with exactly the v1.1 members: the base the Bank should have computed for
 * this request as it travelled (rebuilt here from what was sent), the digest of the bytes sent, and the kid and alg
 * that the X-Signature header carries.
 */
function expectSignatureInvalid(response: AnyResponse, sent: SentRequest, expected: Explanation): Problem {
  const requestId = typeof sent.headers['x-request-id'] === 'string' ? sent.headers['x-request-id'] : undefined;
  const problem = expectProblem(response, 401, 'signature_invalid', requestId);
  expect(Object.keys(problem).sort()).toEqual([...PROBLEM_MEMBERS, 'alg', 'content_digest', 'kid', 'reason', 'signature_base'].sort());
  const base = signatureBase(sent.flow, { method: sent.method, target: sent.target, headers: sentValues(sent.headers), body: sent.body });
  expect({ reason: problem.reason, signature_base: problem.signature_base, content_digest: problem.content_digest, kid: problem.kid, alg: problem.alg }).toEqual({
    ...expected,
    signature_base: base,
    content_digest: digestOf(sent.body),
  });
  // The base's last line is the digest of the bytes received, whatever the signer digested.
  expect((problem.signature_base as string).split('\n').pop()).toBe(`content-digest: ${digestOf(sent.body)}`);
  return problem;
}

async function sendCreate(headers: Headers, body: string): Promise<{ response: RawResponse; sent: SentRequest }> {
  return { response: await postCreate(bank, headers, body), sent: { flow: 'create', method: 'POST', target: '/payment-orders', headers, body } };
}

const DEMO = { kid: demo.private_jwk.kid as string, alg: 'ES256' };

describe('signature_invalid explains itself (signature_base, content_digest, kid, alg, reason)', () => {
  describe('kid_unknown', () => {
    it('a kid registered for no client', async () => {
      const body = orderBody();
      const { response, sent } = await sendCreate(createHeaders(body, { jwk: impostorJwk('no-such-kid') }), body);
      expectSignatureInvalid(response, sent, { reason: 'kid_unknown', kid: 'no-such-kid', alg: 'ES256' });
    });

    it("another client's kid, signed correctly with that client's key, sent as demo-connector", async () => {
      const body = orderBody();
      const { response, sent } = await sendCreate(createHeaders(body, { jwk: other.private_jwk }), body);
      expectSignatureInvalid(response, sent, { reason: 'kid_unknown', kid: other.private_jwk.kid as string, alg: 'ES256' });
    });

    it("the demo client's kid under an alg its key is not registered for (PS256)", async () => {
      const body = orderBody();
      const headers = { ...createHeaders(body), 'x-signature': `${b64urlJson({ alg: 'PS256', kid: DEMO.kid, typ: 'JOSE' })}..c2lnbmF0dXJl` };
      const { response, sent } = await sendCreate(headers, body);
      expectSignatureInvalid(response, sent, { reason: 'kid_unknown', kid: DEMO.kid, alg: 'PS256' });
    });
  });

  describe('alg_not_allowed', () => {
    it.each(['HS256', 'none', 'ES512'])('alg %s in the protected header', async (alg) => {
      const body = orderBody();
      const headers = { ...createHeaders(body), 'x-signature': `${b64urlJson({ alg, kid: DEMO.kid, typ: 'JOSE' })}..c2lnbmF0dXJl` };
      const { response, sent } = await sendCreate(headers, body);
      expectSignatureInvalid(response, sent, { reason: 'alg_not_allowed', kid: DEMO.kid, alg });
    });
  });

  describe('crit_unsupported (RFC 7515 §4.1.11), even under an otherwise correct signature', () => {
    it.each<[string, (header: Record<string, unknown>) => void]>([
      ['crit', (header) => Object.assign(header, { crit: ['exp'], exp: nowS() + 60 })],
      ['b64: false', (header) => (header.b64 = false)],
      ['zip', (header) => (header.zip = 'DEF')],
    ])('%s in the protected header', async (_label, change) => {
      const body = orderBody();
      const { response, sent } = await sendCreate(createSignedWithHeader(body, change), body);
      expectSignatureInvalid(response, sent, { reason: 'crit_unsupported', ...DEMO });
    });
  });

  describe('digest_mismatch: a Content-Digest header that does not match the bytes (profile v1.1 section 1)', () => {
    it('sha-256 of another body, with an X-Signature that is otherwise valid', async () => {
      const body = orderBody();
      const headers = { ...createHeaders(body), 'content-digest': digestOf(orderBody()) };
      const { response, sent } = await sendCreate(headers, body);
      expectSignatureInvalid(response, sent, { reason: 'digest_mismatch', ...DEMO });
      // Without the wrong header the very same signature verifies: only the header was at fault.
      expect((await postCreate(bank, { ...headers, 'content-digest': undefined }, body)).status).toBe(200);
    });

    it.each<[string, (body: string) => string]>([
      ['a wrong sha-512', () => digestOf(orderBody(), 'sha512')],
      ['a right sha-256 beside a wrong sha-512', (body) => `${digestOf(body)}, ${digestOf(orderBody(), 'sha512')}`],
      ['an md5 member alone (no sha-256 or sha-512 to check)', () => 'md5=:AAAAAAAAAAAAAAAAAAAAAA==:'],
      ['a member with parameters', (body) => `${digestOf(body)};q=1`],
    ])('sha-512 is checked too, and one known member is needed: %s', async (_label, header) => {
      const body = orderBody();
      const { response, sent } = await sendCreate({ ...createHeaders(body), 'content-digest': header(body) }, body);
      expectSignatureInvalid(response, sent, { reason: 'digest_mismatch', ...DEMO });
    });

    it.each<[string, (body: string) => string]>([
      ['sha-256', (body) => digestOf(body)],
      ['sha-512', (body) => digestOf(body, 'sha512')],
      ['sha-256 and sha-512', (body) => `${digestOf(body)}, ${digestOf(body, 'sha512')}`],
      ['sha-256 beside an md5 member, which is ignored', (body) => `${digestOf(body)}, md5=:AAAAAAAAAAAAAAAAAAAAAA==:`],
    ])('a correct Content-Digest (%s) is accepted', async (_label, header) => {
      const body = orderBody();
      expect((await postCreate(bank, { ...createHeaders(body), 'content-digest': header(body) }, body)).status).toBe(200);
    });
  });

  describe('signature_mismatch: signed over something else than what was sent', () => {
    it('the body changed after signing', async () => {
      const body = orderBody();
      const { response, sent } = await sendCreate(createHeaders(body), `${body} `);
      expectSignatureInvalid(response, { ...sent, body: `${body} ` }, { reason: 'signature_mismatch', ...DEMO });
    });

    it.each([
      ['x-idempotency-key', 'another-key'],
      ['x-request-id', 'another-request-id'],
      ['x-nonce', newNonce()],
    ])('%s sent differs from the one signed', async (name, value) => {
      const body = orderBody();
      const { response, sent } = await sendCreate({ ...createHeaders(body), [name]: value }, body);
      expectSignatureInvalid(response, sent, { reason: 'signature_mismatch', ...DEMO });
    });

    it("another key presented under the demo client's kid", async () => {
      const body = orderBody();
      const { response, sent } = await sendCreate(createHeaders(body, { jwk: impostorJwk(DEMO.kid) }), body);
      expectSignatureInvalid(response, sent, { reason: 'signature_mismatch', ...DEMO });
    });

    it('reverse polling: the base uses the raw target as sent, query included, and the empty-body digest', async () => {
      const target = `${statusTarget('ORD-EXPLAIN')}?trace=a%2Fb&x=1`;
      const headers = signedStatusHeaders(bank, token, statusTarget('ORD-EXPLAIN'));
      const response = await getStatus(bank, target, headers);
      const problem = expectSignatureInvalid(response, { flow: 'status', method: 'GET', target, headers, body: '' }, { reason: 'signature_mismatch', ...DEMO });
      expect(problem.signature_base).toContain(`@target-uri: ${target}\n`);
      expect(problem.content_digest).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
    });
  });

  describe('malformed: not <protected>..<signature>, or no kid', () => {
    it.each<[string, string, string | null]>([
      ['not a JWS at all', 'not-a-jws', null],
      ['an attached-payload JWS', `${b64urlJson({ alg: 'ES256', kid: DEMO.kid })}.cGF5bG9hZA.c2ln`, 'ES256'],
      ['a protected header that is not JSON', `${Buffer.from('nope').toString('base64url')}..c2ln`, null],
      ['no signature part', `${b64urlJson({ alg: 'ES256', kid: DEMO.kid, typ: 'JOSE' })}..`, 'ES256'],
    ])('%s', async (_label, signature, alg) => {
      const body = orderBody();
      const { response, sent } = await sendCreate({ ...createHeaders(body), 'x-signature': signature }, body);
      const kid = alg === null ? null : DEMO.kid;
      expectSignatureInvalid(response, sent, { reason: 'malformed', kid, alg });
    });

    it('an ES256 signature in DER, as OpenSSL and Python\'s cryptography return it: malformed, saying it looks DER-encoded', async () => {
      const body = orderBody();
      const headers = createHeaders(body);
      const key = signingKeyFromJwk(demo.private_jwk);
      const protectedHeader = String(headers['x-signature']).split('.')[0];
      const base = signatureBase('create', { method: 'POST', target: '/payment-orders', headers: sentValues(headers), body });
      const der = sign('sha256', Buffer.from(`${protectedHeader}.${Buffer.from(base).toString('base64url')}`), { key: key.privateKey, dsaEncoding: 'der' });
      const { response, sent } = await sendCreate({ ...headers, 'x-signature': `${protectedHeader}..${der.toString('base64url')}` }, body);
      const problem = expectSignatureInvalid(response, sent, { reason: 'malformed', kid: DEMO.kid, alg: 'ES256' });
      expect(problem.detail).toBe(`an ES256 signature is 64 bytes, r || s (RFC 7518 section 3.4); this one is ${der.length} bytes: it looks DER-encoded (ASN.1 SEQUENCE of r and s); convert it to r || s, each left-padded to 32 bytes`);
    });

    it('a correctly signed protected header without kid', async () => {
      const body = orderBody();
      const { response, sent } = await sendCreate(createSignedWithHeader(body, (header) => delete header.kid), body);
      expectSignatureInvalid(response, sent, { reason: 'malformed', kid: null, alg: 'ES256' });
    });
  });
});

describe('timestamp_out_of_window explains itself (bank_time, window_s)', () => {
  function expectOutOfWindow(response: AnyResponse, atMs: number, windowS: number): Problem {
    const problem = expectProblem(response, 401, 'timestamp_out_of_window');
    expect(Object.keys(problem).sort()).toEqual([...PROBLEM_MEMBERS, 'bank_time', 'window_s'].sort());
    expect(problem.window_s).toBe(windowS);
    expect(problem.bank_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(parseInstant(problem.bank_time)).toBe(atMs);
    return problem;
  }

  it.each([301, -301, 3600])('X-Timestamp %i s from the clock: bank_time is the Bank clock to the millisecond, window_s 300', async (offset) => {
    const body = orderBody();
    expectOutOfWindow(await postCreate(bank, createHeaders(body, { timestamp: isoAt(bank, offset) }), body), clock.now(), 300);
  });

  it('on reverse polling too', async () => {
    const target = statusTarget('ORD-ANY');
    expectOutOfWindow(await getStatus(bank, target, signedStatusHeaders(bank, token, target, { timestamp: isoAt(bank, -900) })), clock.now(), 300);
  });

  it('window_s follows a configured TIMESTAMP_WINDOW_S (60), and bank_time follows the clock as it moves', async () => {
    const localClock = new ManualClock(Date.parse('2026-11-23T08:30:00.125Z'));
    const local = await startBank({ timestampWindowS: 60 }, { clock: localClock });
    try {
      const localToken = await new DemoClient(local).token();
      const body = orderBody();
      const exactlyAtEdge = new Date(localClock.now() + 60_000).toISOString();
      expect((await postCreate(local, signedCreateHeaders(local, localToken, body, { timestamp: exactlyAtEdge }), body)).status).toBe(200);
      const late = new Date(localClock.now() + 61_000).toISOString();
      expectOutOfWindow(await postCreate(local, signedCreateHeaders(local, localToken, body, { timestamp: late }), body), localClock.now(), 60);
      localClock.advance(42_042);
      const stale = new Date(localClock.now() - 61_000).toISOString();
      expectOutOfWindow(await postCreate(local, signedCreateHeaders(local, localToken, body, { timestamp: stale }), body), localClock.now(), 60);
    } finally {
      local.close();
    }
  });
});

describe('nonce_replayed explains itself (first_seen_at)', () => {
  function expectReplayed(response: AnyResponse, firstSeenMs: number): Problem {
    const problem = expectProblem(response, 401, 'nonce_replayed');
    expect(Object.keys(problem).sort()).toEqual([...PROBLEM_MEMBERS, 'first_seen_at'].sort());
    expect(problem.first_seen_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(parseInstant(problem.first_seen_at)).toBe(firstSeenMs);
    return problem;
  }

  it('first_seen_at is the time of the first use, not of the replay, and stays so on every replay', async () => {
    const nonce = newNonce();
    const first = orderBody();
    const firstSeen = clock.now();
    expect((await postCreate(bank, createHeaders(first, { nonce }), first)).status).toBe(200);
    clock.advance(7_125);
    const second = orderBody();
    expectReplayed(await postCreate(bank, createHeaders(second, { nonce }), second), firstSeen);
    clock.advance(30_000);
    expectReplayed(await postCreate(bank, createHeaders(second, { nonce }), second), firstSeen);
  });

  it('across flows: spent on create, replayed on reverse polling', async () => {
    const nonce = newNonce();
    const order = sampleOrder();
    const body = JSON.stringify(order);
    const firstSeen = clock.now();
    expect((await postCreate(bank, createHeaders(body, { nonce }), body)).status).toBe(200);
    clock.advance(2_500);
    const target = statusTarget(order.reference as string);
    expectReplayed(await getStatus(bank, target, signedStatusHeaders(bank, token, target, { nonce })), firstSeen);
  });
});

describe('auth_invalid explains itself (reason) and challenges the way OAuth libraries expect (RFC 6750 §3, RFC 9449 §7.1)', () => {
  const BEARER_INVALID_TOKEN = /^Bearer realm="sandbox-bank", error="invalid_token", error_description="[^"\\]+"$/;
  const DPOP_INVALID_TOKEN = 'DPoP realm="sandbox-bank", algs="ES256 PS256 RS256", error="invalid_token"';
  const DPOP_INVALID_PROOF = 'DPoP algs="ES256 PS256 RS256", error="invalid_dpop_proof"';

  const key = new DpopKey();
  let dpopToken: string;

  beforeAll(() => {
    dpopToken = bank.tokens.issue(demo.client_id, key.thumbprint()).access_token;
  });

  /** The same token with one character of its signature changed (a middle one, so the base64url stays canonical). */
  function alteredSignature(jwt: string): string {
    const [header, claims, signature] = jwt.split('.');
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    return `${header}.${claims}.${flipped}`;
  }

  /** A token of the Bank's own making, from a TokenService that differs in one respect. */
  function tokenFrom(options: { clockMs?: number; issuer?: string; audience?: string; signerJwk?: PublicJwk; jkt?: string; clientId?: string } = {}): string {
    const signer = options.signerJwk ? signingKeyFromJwk(options.signerJwk) : bank.signer;
    const service = new TokenService(
      signer,
      new ManualClock(options.clockMs ?? clock.now()),
      options.issuer ?? bank.config.issuer,
      options.audience ?? bank.config.tokenAudience,
      3600,
    );
    return service.issue(options.clientId ?? demo.client_id, options.jkt ?? null).access_token;
  }

  /** A signed create (demo client) with Host: bank.test and the given Authorization and DPoP headers. */
  function createWith(authorization: string | undefined, dpop?: string, extra: Headers = {}): Promise<RawResponse> {
    const body = orderBody();
    return postCreate(bank, { ...signedCreateHeaders(bank, '', body), authorization, dpop, host: HOST, ...extra }, body);
  }

  function pollWith(target: string, authorization: string | undefined, dpop?: string): Promise<RawResponse> {
    return getStatus(bank, target, { ...signedStatusHeaders(bank, '', target), authorization, dpop, host: HOST });
  }

  const createProof = (overrides: Partial<ProofOptions> = {}, signer = key) =>
    signer.proof({ htm: 'POST', htu: `http://${HOST}/payment-orders`, iat: nowS(), accessToken: dpopToken, ...overrides });

  function expectReason(response: AnyResponse, reason: string): Problem {
    const problem = expectProblem(response, 401, 'auth_invalid');
    expect(Object.keys(problem).sort()).toEqual([...PROBLEM_MEMBERS, 'reason'].sort());
    expect(problem.reason).toBe(reason);
    return problem;
  }

  function challengeOf(response: AnyResponse): string {
    return String(response.headers['www-authenticate']);
  }

  describe('a bad token under the Bearer scheme: Bearer realm="sandbox-bank", error="invalid_token", error_description="…"', () => {
    const cases: [string, string, () => string][] = [
      ['token_expired', 'exp one second past', () => tokenFrom({ clockMs: clock.now() - 3_601_000 })],
      ['token_audience', 'aud other-aud, signed by the Bank', () => tokenFrom({ audience: 'other-aud' })],
      ['token_issuer', 'another iss, signed by the Bank', () => tokenFrom({ issuer: 'another-issuer' })],
      ['token_client_mismatch', "another client's token", () => tokenFrom({ clientId: other.client_id })],
      ['token_signature', "another key under the Bank's kid", () => tokenFrom({ signerJwk: impostorJwk(bank.signer.kid) })],
      ['token_signature', 'an altered signature', () => alteredSignature(token)],
      ['token_malformed', 'not a JWT', () => 'not-a-token'],
      ['token_dpop_bound', 'a DPoP-bound token sent as Bearer', () => dpopToken],
    ];

    it.each(cases)('%s: %s', async (reason, _label, make) => {
      const response = await createWith(`Bearer ${make()}`);
      expectReason(response, reason);
      expect(challengeOf(response)).toMatch(BEARER_INVALID_TOKEN);
    });

    it('the same reasons on reverse polling (token_expired, token_client_mismatch)', async () => {
      const target = statusTarget('ORD-ANY');
      const expired = await pollWith(target, `Bearer ${tokenFrom({ clockMs: clock.now() - 3_601_000 })}`);
      expectReason(expired, 'token_expired');
      expect(challengeOf(expired)).toMatch(BEARER_INVALID_TOKEN);
      const foreign = await pollWith(target, `Bearer ${tokenFrom({ clientId: other.client_id })}`);
      expectReason(foreign, 'token_client_mismatch');
      expect(challengeOf(foreign)).toMatch(BEARER_INVALID_TOKEN);
    });

    it('a token that expires on the Bank clock: accepted one second before, token_expired at exp', async () => {
      const issuedAt = clock.now();
      const expiring = tokenFrom({ clockMs: issuedAt - 3_599_000 });
      expect((await createWith(`Bearer ${expiring}`)).status).toBe(200);
      clock.advance(1_000);
      expectReason(await createWith(`Bearer ${expiring}`), 'token_expired');
    });
  });

  describe('a bad token under the DPoP scheme: DPoP realm="sandbox-bank", algs="ES256 PS256 RS256", error="invalid_token"', () => {
    it.each<[string, () => string]>([
      ['token_expired', () => tokenFrom({ clockMs: clock.now() - 3_601_000, jkt: key.thumbprint() })],
      ['token_audience', () => tokenFrom({ audience: 'other-aud', jkt: key.thumbprint() })],
      ['token_client_mismatch', () => tokenFrom({ clientId: other.client_id, jkt: key.thumbprint() })],
      ['dpop_unbound', () => token],
    ])('%s', async (reason, make) => {
      const credential = make();
      const response = await createWith(`DPoP ${credential}`, createProof({ accessToken: credential }));
      expectReason(response, reason);
      expect(challengeOf(response).startsWith(DPOP_INVALID_TOKEN)).toBe(true);
      expect(challengeOf(response)).toMatch(/, error_description="[^"\\]+"$/);
    });
  });

  describe('a bad proof: DPoP algs="ES256 PS256 RS256", error="invalid_dpop_proof"', () => {
    it.each<[string, () => string | undefined]>([
      ['dpop_htu', () => createProof({ htu: 'http://elsewhere.test/payment-orders' })],
      ['dpop_htm', () => createProof({ htm: 'GET' })],
      ['dpop_ath', () => createProof({ accessToken: `${dpopToken}x` })],
      ['dpop_jkt', () => createProof({}, new DpopKey())],
      ['dpop_missing', () => undefined],
      ['dpop_iat', () => createProof({ iat: nowS() - 301 })],
      ['dpop_jti', () => createProof({ claims: { jti: undefined } })],
      ['dpop_signature', () => `${createProof().slice(0, -6)}AAAAAA`],
      ['dpop_malformed', () => 'not-a-proof'],
      ['dpop_malformed (typ JWT)', () => createProof({ header: { typ: 'JWT' } })],
      ['dpop_jwk', () => createProof({ header: { jwk: key.privateJwk } })],
    ])('%s', async (label, make) => {
      const response = await createWith(`DPoP ${dpopToken}`, make());
      expectReason(response, label.split(' ')[0]);
      expect(challengeOf(response).startsWith(DPOP_INVALID_PROOF)).toBe(true);
      expect(challengeOf(response)).toMatch(/, error_description="[^"\\]+"$/);
    });

    it.each([
      ['missing', undefined, 'DPoP jti is missing'],
      ['too short', 'abc', 'DPoP jti must be 8 to 256 characters, got 3'],
      ['too long', 'j'.repeat(257), 'DPoP jti must be 8 to 256 characters, got 257'],
    ])('dpop_jti %s: the detail says which', async (_label, jti, detail) => {
      expect(expectReason(await createWith(`DPoP ${dpopToken}`, createProof({ claims: { jti } })), 'dpop_jti').detail).toBe(detail);
    });

    it('dpop_replayed: the same proof on a second, otherwise valid request', async () => {
      const proof = createProof();
      expect((await createWith(`DPoP ${dpopToken}`, proof)).status).toBe(200);
      const response = await createWith(`DPoP ${dpopToken}`, proof);
      expectReason(response, 'dpop_replayed');
      expect(challengeOf(response).startsWith(DPOP_INVALID_PROOF)).toBe(true);
    });

    it('dpop_htu on reverse polling: a proof made for the create URI', async () => {
      const target = statusTarget('ORD-ANY');
      const response = await pollWith(target, `DPoP ${dpopToken}`, key.proof({ htm: 'GET', htu: `http://${HOST}/payment-orders`, iat: nowS(), accessToken: dpopToken }));
      expectReason(response, 'dpop_htu');
      expect(challengeOf(response).startsWith(DPOP_INVALID_PROOF)).toBe(true);
    });
  });

  describe('the scheme and the API key', () => {
    it.each<[string, () => string, 'create' | 'status']>([
      ['scheme_invalid', () => 'Basic ZGVtbzpzZWNyZXQ=', 'create'],
      ['scheme_not_allowed', () => `X-API-Key ${demo.api_key}`, 'create'],
      ['api_key_invalid (a wrong key)', () => `X-API-Key ${demo.api_key}x`, 'status'],
      ["api_key_invalid (another client's key)", () => `X-API-Key ${other.api_key}`, 'status'],
    ])('%s', async (label, authorization, flow) => {
      const response = flow === 'create' ? await createWith(authorization()) : await pollWith(statusTarget('ORD-ANY'), authorization());
      expectReason(response, label.split(' ')[0]);
      expect(challengeOf(response)).toContain('Bearer realm="sandbox-bank"');
    });
  });

  it('no Authorization: auth_missing with a challenge that names Bearer realm="sandbox-bank"', async () => {
    const created = await createWith(undefined);
    expectProblem(created, 401, 'auth_missing');
    expect(challengeOf(created)).toContain('Bearer realm="sandbox-bank"');
    const polled = await pollWith(statusTarget('ORD-ANY'), undefined);
    expectProblem(polled, 401, 'auth_missing');
    expect(challengeOf(polled)).toContain('Bearer realm="sandbox-bank"');
  });

  it('the control: the DPoP-bound token with a correct proof and the Bearer token are accepted', async () => {
    expect((await createWith(`DPoP ${dpopToken}`, createProof())).status).toBe(200);
    expect((await createWith(`Bearer ${token}`)).status).toBe(200);
  });
});
