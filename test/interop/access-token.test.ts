// Item 2: jose's jwtVerify accepts the Bank's access token as an RFC 9068 JWT access token (profile v1.1,
// section 3), with the key from the Bank's JWKS. scripts/access-token.mjs gets the token with oauth4webapi.
import { DEFAULTS } from '../../src/bank/config';
import { connectorEnv, expectResult, INTEROP_TIMEOUT_MS, listenBank, ListeningBank, Outcome, runScript } from './interop';

type Claims = Record<string, unknown>;

interface AccessTokenResult {
  verified: Outcome<{ payload: Claims; protectedHeader: Claims }>;
  header: Claims;
  claims: Claims;
}

const AUDIENCE = 'sandbox-bank';

describe('jose verifies the access token as RFC 9068', () => {
  let server: ListeningBank;
  let result: AccessTokenResult;

  beforeAll(async () => {
    server = await listenBank();
    result = await runScript<AccessTokenResult>('access-token.mjs', { ...connectorEnv(server.url), ISSUER: DEFAULTS.issuer, AUDIENCE });
  }, INTEROP_TIMEOUT_MS);
  afterAll(() => server.close());

  it('jwtVerify with typ at+jwt, the issuer and the audience, against createRemoteJWKSet(/.well-known/jwks.json)', () => {
    // RFC 9068 section 4: the resource server checks typ "at+jwt" (section 2.1), iss, aud and the signature
    // with the issuer's keys; jose's jwtVerify does exactly these checks.
    expectResult(result.verified, { ok: true, protectedHeader: { typ: 'at+jwt' }, payload: { iss: DEFAULTS.issuer, aud: AUDIENCE } });
  });

  it('carries the RFC 9068 claims: sub = client_id = demo-connector, iat, exp, jti', () => {
    // RFC 9068 section 2.2: iss, exp, aud, sub, client_id, iat, jti are REQUIRED; for client_credentials sub is the client.
    expectResult(result.claims, { sub: 'demo-connector', client_id: 'demo-connector', iat: expect.any(Number), exp: expect.any(Number), jti: expect.any(String) });
    // Profile section 3: 3600 s lifetime.
    expect(Number(result.claims.exp) - Number(result.claims.iat)).toBe(3600);
  });
});
