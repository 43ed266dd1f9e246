// Item 3: requests signed with jose over the profile's signature base (section 1), which the script builds from
// the profile text alone: create and reverse polling with a Bearer token (global fetch), and with a DPoP-bound
// token whose proofs oauth4webapi makes. Relaxed mode, so that reverse polling works over plain HTTP (section 4);
// mtls.test.ts covers the HTTPS listener.
import { sampleOrder } from '../helpers/bank';
import { Captured, connectorEnv, expectResult, INTEROP_TIMEOUT_MS, listenBank, ListeningBank, Outcome, runScript } from './interop';

interface Flows {
  token_type: string;
  create: Outcome<Captured>;
  poll: Outcome<Captured>;
}

interface SignedRequestsResult {
  bearer: Flows;
  dpop: Flows;
  crit: { create: Outcome<Captured> };
}

describe('create and reverse polling signed with jose', () => {
  let server: ListeningBank;
  let result: SignedRequestsResult;
  const template = sampleOrder();

  beforeAll(async () => {
    server = await listenBank({ sandboxMode: 'relaxed' });
    result = await runScript<SignedRequestsResult>('signed-requests.mjs', { ...connectorEnv(server.url), ORDER: JSON.stringify(template) });
  }, INTEROP_TIMEOUT_MS);
  afterAll(() => server.close());

  describe.each([
    ['Bearer', 'bearer', 'BEARER'],
    ['DPoP', 'dpop', 'DPOP'],
  ] as const)('with Authorization: %s', (tokenType, key, suffix) => {
    const reference = `${template.reference as string}-${suffix}`;

    it('the token has that type', () => {
      // RFC 6750 section 4 / RFC 9449 section 5: token_type names the scheme the token is used with.
      expect(result[key].token_type).toBe(tokenType);
    });

    it('POST /payment-orders with a detached-payload JWS (RFC 7515 appendix F) is accepted: 200 with the order', () => {
      // Contract 4.1.1: 200 with the 2.4 body (amount .00: SUCCESS, profile section 8). A refusal here is a Bank
      // that does not verify a standard ES256 JWS over the profile's base (RFC 7515 section 5.2), or for DPoP, a
      // proof that RFC 9449 section 7.1 / 4.3 accepts (htm, htu = origin + path, iat, jti, ath over the token).
      expectResult(result[key].create, { ok: true, status: 200, json: { reference, status: 'SUCCESS', bank_reference: expect.any(String) } });
    });

    it('GET /payment-orders/{ref}/status signed the same way answers the order status', () => {
      // Contract 4.1.2: 200 with reference, bank_reference, status, processed_at.
      expectResult(result[key].poll, { ok: true, status: 200, json: { reference, status: 'SUCCESS', bank_reference: expect.any(String), processed_at: expect.any(String) } });
    });
  });

  it('a JWS whose protected header has crit is a failed signature: 401 signature_invalid, reason crit_unsupported (v1.1)', () => {
    // RFC 7515 section 4.1.11: a recipient that does not understand an extension listed in crit MUST reject the JWS.
    expectResult(result.crit.create, { ok: true, status: 401, json: { code: 'signature_invalid', reason: 'crit_unsupported' } });
  });
});
