// Authorization: headers that are not the client's valid credential (create and reverse polling), and requests to
// POST /oauth/token that are never valid (client authentication, grant, media type, size, DPoP proofs).
import fc from 'fast-check';
import { demo } from '../../helpers/bank';
import { DpopKey } from '../../helpers/dpop';
import { expectOnly, Mutation } from './mutation';
import { RequestArb, WireRequest } from './requests';
import { BODY_LIMIT, FuzzTarget } from './types';
import { b64, garbage, uuidLike } from './values';

/** Authorization that is not this client's valid credential. */
export function authorizationMutations(flow: 'create' | 'status'): fc.Arbitrary<Mutation> {
  return fc.oneof(
    fc.constantFrom<[string, (t: FuzzTarget) => string]>(
      ["another client's token", (t) => `Bearer ${t.tokens.other}`],
      ['token signed by another key under the bank kid', (t) => `Bearer ${t.tokens.forgedKey}`],
      ['expired token', (t) => `Bearer ${t.tokens.expired}`],
      ['token of another issuer', (t) => `Bearer ${t.tokens.wrongIssuer}`],
      ['token of an unregistered client', (t) => `Bearer ${t.tokens.ghost}`],
      ['DPoP-bound token as Bearer', (t) => `Bearer ${t.tokens.dpopBound}`],
      ['DPoP scheme without a proof', (t) => `DPoP ${t.tokens.dpopBound}`],
      ['Bearer token under the DPoP scheme', (t) => `DPoP ${t.tokens.demo}`],
      ["another client's API key", (t) => `X-API-Key ${t.other.api_key}`],
      ['wrong API key', () => `X-API-Key sbk_${uuidLike()}`],
      ['Basic credentials', () => `Basic ${Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64')}`],
      ['scheme only', () => 'Bearer'],
      ['two credentials', (t) => `Bearer ${t.tokens.demo} ${t.tokens.demo}`],
      ['token with its signature cut', (t) => `Bearer ${t.tokens.demo.split('.').slice(0, 2).join('.')}.`],
      ['token header swapped to alg none', (t) => `Bearer ${b64(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${t.tokens.demo.split('.')[1]}.`],
      ['unknown scheme', (t) => `Token ${t.tokens.demo}`],
      ['proto scheme', (t) => `constructor ${t.tokens.demo}`],
    ),
    fc.tuple(fc.nat(), fc.constantFrom('A', 'B', '_', '-', '0')).map(([index, char]): [string, (t: FuzzTarget) => string] => [
      'token with one character changed',
      (t) => {
        // Never the last character of a segment: there base64url also carries unused bits, and a change that only
        // touches those leaves the bytes (and so the token) as they were (reported: non-canonical base64url).
        const token = t.tokens.demo;
        let at = index % token.length;
        while (token[at] === '.' || at === token.length - 1 || token[at + 1] === '.') at = (at + 1) % token.length;
        const replacement = token[at] === char ? (char === 'A' ? 'B' : 'A') : char;
        return `Bearer ${token.slice(0, at)}${replacement}${token.slice(at + 1)}`;
      },
    ]),
    garbage.map((value): [string, () => string] => ['garbage authorization', () => value]),
  ).map(([name, value]): Mutation => ({
    name,
    apply: (d, t) => {
      let authorization = value(t);
      // On reverse polling the client's own API key is valid: never send it; on create it is refused.
      if (flow === 'status' && authorization === `X-API-Key ${demo.api_key}`) authorization = 'X-API-Key nope';
      d.authorization = authorization;
      expectOnly(d, 'auth_invalid', 'auth_missing');
    },
  }));
}

const FORM = 'application/x-www-form-urlencoded';

interface TokenParts {
  contentType: string | undefined;
  grant: string | null;
  basic: 'valid' | 'wrong-secret' | 'unknown' | 'no-colon' | 'bad-escape' | 'not-base64' | 'none';
  other: 'none' | 'bearer' | 'garbage';
  post: 'none' | 'valid' | 'wrong-secret' | 'id-only';
  dpop: 'none' | 'garbage' | 'wrong-htm' | 'wrong-htu' | 'stale' | 'private-key' | 'wrong-typ';
  extra: string;
  oversize: number;
}

/** POST /oauth/token, never a valid request, with the code the handler's order of checks gives. */
export function tokenRequests(): RequestArb {
  const parts = fc.record<TokenParts>({
    contentType: fc.oneof({ weight: 5, arbitrary: fc.constant(FORM) }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'application/json', 'text/plain', `${FORM}x`, 'multipart/form-data') }),
    grant: fc.oneof({ weight: 5, arbitrary: fc.constant('client_credentials') }, { weight: 2, arbitrary: fc.constantFrom(null, '', 'password', 'authorization_code', 'CLIENT_CREDENTIALS', 'client_credentials ') }, { weight: 1, arbitrary: fc.string({ maxLength: 20 }) }),
    basic: fc.constantFrom('valid', 'valid', 'wrong-secret', 'unknown', 'no-colon', 'bad-escape', 'not-base64', 'none'),
    other: fc.constantFrom('none', 'none', 'none', 'bearer', 'garbage'),
    post: fc.constantFrom('none', 'none', 'valid', 'wrong-secret', 'id-only'),
    dpop: fc.constantFrom('none', 'none', 'garbage', 'wrong-htm', 'wrong-htu', 'stale', 'private-key', 'wrong-typ'),
    extra: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((value) => `&x=${encodeURIComponent(value)}`) }),
    oversize: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: BODY_LIMIT + 1, max: 3 * BODY_LIMIT }) }),
  });
  const arb = parts.filter((p) => !isValidToken(p)).map((p) => (t: FuzzTarget): WireRequest => {
    const headers: [string, string][] = [];
    if (p.contentType !== undefined) headers.push(['content-type', p.contentType]);
    const basicValue: Record<TokenParts['basic'], string | null> = {
      valid: Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64'),
      'wrong-secret': Buffer.from(`${demo.client_id}:not-the-secret`).toString('base64'),
      unknown: Buffer.from(`ghost:${demo.client_secret}`).toString('base64'),
      'no-colon': Buffer.from(demo.client_id).toString('base64'),
      'bad-escape': Buffer.from(`demo%ZZ:${demo.client_secret}`).toString('base64'),
      'not-base64': '***',
      none: null,
    };
    const basic = basicValue[p.basic];
    if (basic !== null) headers.push(['authorization', `Basic ${basic}`]);
    else if (p.other === 'bearer') headers.push(['authorization', `Bearer ${t.tokens.demo}`]);
    else if (p.other === 'garbage') headers.push(['authorization', 'Digest username="x"']);
    const form = new URLSearchParams();
    if (p.grant !== null) form.set('grant_type', p.grant);
    if (p.post === 'valid' || p.post === 'wrong-secret' || p.post === 'id-only') form.set('client_id', demo.client_id);
    if (p.post === 'valid') form.set('client_secret', demo.client_secret);
    if (p.post === 'wrong-secret') form.set('client_secret', 'nope');
    let body = form.toString() + p.extra;
    if (p.oversize > 0) body += `&pad=${'p'.repeat(p.oversize)}`;
    if (p.dpop !== 'none') {
      const key = new DpopKey();
      const htu = `http://127.0.0.1:${t.port}/oauth/token`;
      const iat = Math.floor(Date.now() / 1000);
      const proofs: Record<Exclude<TokenParts['dpop'], 'none'>, () => string> = {
        garbage: () => 'not.a.proof',
        'wrong-htm': () => key.proof({ htm: 'GET', htu, iat }),
        'wrong-htu': () => key.proof({ htm: 'POST', htu: 'https://elsewhere.example/oauth/token', iat }),
        stale: () => key.proof({ htm: 'POST', htu, iat: iat - t.bank.config.timestampWindowS - 3600 }),
        'private-key': () => key.proof({ htm: 'POST', htu, iat, header: { jwk: key.privateJwk } }),
        'wrong-typ': () => key.proof({ htm: 'POST', htu, iat, header: { typ: 'JWT' } }),
      };
      headers.push(['dpop', proofs[p.dpop]()]);
    }
    const expected = expectedTokenCode(p, body, basic !== null);
    if (expected === null) throw new Error(`generated a valid token request: ${JSON.stringify(p)}`);
    const name = `token: ${Object.entries(p).filter(([key, value]) => key !== 'extra' && value !== 'none' && value !== 0).map(([key, value]) => `${key}=${String(value)}`).join(' ')}`;
    return { kind: name, method: 'POST', path: '/oauth/token', headers, body: Buffer.from(body), expect: [expected], rawOnly: p.contentType === undefined };
  });
  return { name: 'POST /oauth/token', arb };
}

function isValidToken(p: TokenParts): boolean {
  const grantOk = p.grant === 'client_credentials';
  const formOk = p.contentType === FORM;
  const credsOk = p.basic === 'valid' ? p.post === 'none' : p.basic === 'none' && p.other === 'none' && p.post === 'valid';
  return formOk && grantOk && credsOk && p.dpop === 'none' && p.oversize === 0 && !p.extra.includes('grant_type') && !p.extra.includes('client_');
}

/** Mirrors src/bank/http/token/handler.ts's order: size, media type, grant, client authentication, DPoP. */
function expectedTokenCode(p: TokenParts, body: string, hasBasic: boolean): string | null {
  if (Buffer.byteLength(body) > BODY_LIMIT) return 'body_too_large';
  if (p.contentType === undefined || !/^application\/x-www-form-urlencoded\s*(;.*)?$/i.test(p.contentType)) return 'unsupported_media_type';
  const form = new URLSearchParams(body);
  const grant = form.get('grant_type');
  if (!grant || grant !== 'client_credentials') return 'body_invalid';
  const inBody = form.has('client_id') || form.has('client_secret');
  if (hasBasic) {
    if (inBody) return 'body_invalid';
    if (p.basic !== 'valid') return 'auth_invalid';
  } else if (p.other !== 'none') {
    return 'auth_invalid';
  } else {
    if (!form.get('client_id') || !form.get('client_secret')) return 'auth_missing';
    if (form.get('client_id') !== demo.client_id || form.get('client_secret') !== demo.client_secret) return 'auth_invalid';
  }
  if (p.dpop !== 'none') return 'auth_invalid';
  return null;
}
