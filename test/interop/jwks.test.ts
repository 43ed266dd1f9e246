// Item 5: the Bank's JWKS as jose fetches and imports it (profile section 1: the Bank's keys at
// GET /.well-known/jwks.json). scripts/jwks.mjs uses createRemoteJWKSet and importJWK.
import { expectResult, INTEROP_TIMEOUT_MS, listenBank, ListeningBank, Outcome, runScript } from './interop';

interface JwksResult {
  keys: Record<string, unknown>[];
  imported: Outcome<{ kid: string; type: string; algorithm: { name: string } }>[];
}

describe('jose fetches the Bank JWKS', () => {
  let server: ListeningBank;
  let result: JwksResult;

  beforeAll(async () => {
    server = await listenBank();
    result = await runScript<JwksResult>('jwks.mjs', { BANK_URL: server.url });
  }, INTEROP_TIMEOUT_MS);
  afterAll(() => server.close());

  it('holds at least one key, each with kid, kty and alg, and use "sig" when use is present', () => {
    expect(result.keys.length).toBeGreaterThan(0);
    for (const key of result.keys) {
      // RFC 7517 section 4.1 kty is REQUIRED; profile section 1: a verifier picks the key by kid and checks alg.
      expectResult(key, { kid: expect.any(String), kty: expect.any(String), alg: expect.stringMatching(/^(ES256|PS256|RS256)$/) });
      // RFC 7517 section 4.2: "sig" for signature keys.
      if ('use' in key) expect(key.use).toBe('sig');
    }
  });

  it('publishes no private key member', () => {
    // RFC 7518 sections 6.2.2 (EC d) and 6.3.2 (RSA d, p, q, dp, dq, qi): private members never go in a public JWKS.
    for (const key of result.keys) expect(Object.keys(key).filter((member) => ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'].includes(member))).toEqual([]);
  });

  it('every key imports with jose as a public key', () => {
    for (const imported of result.imported) expectResult(imported, { ok: true, type: 'public' });
  });
});
