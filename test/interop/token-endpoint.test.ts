// Item 1: a Connector using oauth4webapi gets tokens from POST /oauth/token and can parse its errors
// (profile section 3, v1.1: RFC 6749 section 5.2 errors). Bank on a real socket; scripts/token.mjs is the client.
import { connectorEnv, expectResult, INTEROP_TIMEOUT_MS, LibraryError, listenBank, ListeningBank, Outcome, runScript } from './interop';

interface Issued {
  token_type: string;
  wire_token_type: string;
  expires_in: number;
  claims: Record<string, unknown> & { cnf?: { jkt?: string } };
}

interface TokenResults {
  basic: Outcome<Issued>;
  post: Outcome<Issued>;
  dpop: Outcome<Issued> & { thumbprint: string };
  wrong_secret_basic: Outcome<object>;
  wrong_secret_post: Outcome<object>;
  unsupported_grant: Outcome<object>;
  bad_dpop_proof: Outcome<object>;
}

/** Profile v1.1: token errors are `application/json` `{error, error_description, code, request_id}`. */
const oauthErrorBody = (error: string) => ({ error, error_description: expect.any(String), code: expect.any(String), request_id: expect.any(String) });

/** oauth4webapi reports an RFC 6749 section 5.2 body as ResponseBodyError (when no WWW-Authenticate came with it). */
function expectResponseBodyError(outcome: Outcome<object>, status: number, error: string): void {
  expectResult(outcome, { ok: false, error: { name: 'ResponseBodyError', status, error, body: oauthErrorBody(error) } satisfies Partial<LibraryError> });
}

describe('oauth4webapi at POST /oauth/token', () => {
  let server: ListeningBank;
  let result: TokenResults;

  beforeAll(async () => {
    server = await listenBank();
    result = await runScript<TokenResults>('token.mjs', connectorEnv(server.url));
  }, INTEROP_TIMEOUT_MS);
  afterAll(() => server.close());

  it.each(['basic', 'post'] as const)('client_secret_%s gives a Bearer token for the client', (method) => {
    // RFC 6749 section 4.4.3 and 5.1; section 7.1 makes token_type case-insensitive, and oauth4webapi lower-cases it.
    expectResult(result[method], { ok: true, token_type: 'bearer', wire_token_type: 'Bearer', expires_in: 3600, claims: { client_id: 'demo-connector' } });
  });

  it('with an oauth4webapi DPoP proof, the token is DPoP-bound to that key: token_type DPoP, cnf.jkt its RFC 7638 thumbprint', () => {
    // RFC 9449 section 5: token_type "DPoP"; section 6.1: cnf.jkt = base64url SHA-256 thumbprint (RFC 7638) of the proof's key.
    expectResult(result.dpop, { ok: true, token_type: 'dpop', wire_token_type: 'DPoP', claims: { cnf: { jkt: result.dpop.thumbprint } } });
  });

  it('a wrong secret over client_secret_basic: 401 with a Basic challenge, and an invalid_client JSON body', () => {
    // RFC 6749 section 5.2: a client that authenticated with the Authorization header MUST get 401 with a
    // WWW-Authenticate challenge of its scheme. oauth4webapi reports any challenge first, as
    // WWWAuthenticateChallengeError (not ResponseBodyError); the body still is the section 5.2 JSON.
    expectResult(result.wrong_secret_basic, {
      ok: false,
      error: {
        name: 'WWWAuthenticateChallengeError',
        status: 401,
        challenges: [{ scheme: 'basic', parameters: { realm: 'sandbox-bank' } }],
        content_type: expect.stringMatching(/^application\/json\b/),
        body: oauthErrorBody('invalid_client'),
      },
    });
  });

  it('a wrong secret over client_secret_post: oauth4webapi ResponseBodyError invalid_client, 401', () => {
    // RFC 6749 section 5.2 invalid_client (401 allowed); profile v1.1: the Basic challenge only when Basic was used,
    // so oauth4webapi sees the body error itself.
    expectResponseBodyError(result.wrong_secret_post, 401, 'invalid_client');
  });

  it('an unsupported grant_type: oauth4webapi ResponseBodyError unsupported_grant_type, 400', () => {
    // RFC 6749 section 5.2: unsupported_grant_type, 400; the body must be application/json for oauth4webapi to parse it.
    expectResponseBodyError(result.unsupported_grant, 400, 'unsupported_grant_type');
  });

  it('a DPoP proof for the wrong method: oauth4webapi ResponseBodyError invalid_dpop_proof, 400', () => {
    // RFC 9449 section 5: an invalid proof at the token endpoint is an RFC 6749 section 5.2 error, invalid_dpop_proof
    // (400). The WWW-Authenticate DPoP challenge of RFC 9449 section 7.1 is for resource servers; sent here, it
    // would make oauth4webapi report WWWAuthenticateChallengeError instead.
    expectResponseBodyError(result.bad_dpop_proof, 400, 'invalid_dpop_proof');
  });
});
