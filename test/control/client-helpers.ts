// Helpers of the /sandbox/clients tests: register over the control plane, get a token and send signed requests
// with nothing but the registration's answer, and judge answers by the response schemas in schemas/control/.
import request from 'supertest';
import type { Bank } from '../../src/bank/bank';
import { PublicJwk } from '../../src/wire/keys';
import { isoNow, newNonce, sampleOrder, sendWith, signedCreateHeaders, signRequest } from '../helpers/bank';

export const ADMIN_TOKEN = 'admin-token-for-the-clients-tests';

export { expectSchema } from '../helpers/control-schemas';

export interface Created {
  client_id: string;
  client_secret: string;
  private_jwk?: PublicJwk;
  certificate_pem: string | null;
  certificate_key_pem: string | null;
  ca_pem: string | null;
  certificate_unavailable?: string;
  api_key?: string;
  examples: { token_curl: string; connector_env: string };
}

function withAdmin(test: request.Test, admin: string | null): request.Test {
  return admin ? test.set('authorization', `Bearer ${admin}`) : test;
}

export function sandbox(bank: Bank, admin: string | null = null) {
  return {
    post: (target: string, body?: unknown) => withAdmin(request(bank.app).post(target), admin).send(body as object),
    patch: (target: string, body?: unknown) => withAdmin(request(bank.app).patch(target), admin).send(body as object),
    get: (target: string) => withAdmin(request(bank.app).get(target), admin),
    delete: (target: string) => withAdmin(request(bank.app).delete(target), admin),
  };
}

/** POST /sandbox/clients, expecting 201. */
export async function registerClient(bank: Bank, body: Record<string, unknown> = {}, admin: string | null = null): Promise<Created> {
  const answer = await sandbox(bank, admin).post('/sandbox/clients', body);
  if (answer.status !== 201) throw new Error(`registration failed: ${answer.status} ${answer.text}`);
  return answer.body as Created;
}

/** POST /oauth/token with client_secret_basic: the access token, or throws with the answer. */
export async function tokenFor(bank: Bank, clientId: string, secret: string): Promise<string> {
  const answer = await request(bank.app).post('/oauth/token').auth(clientId, secret).type('form').send({ grant_type: 'client_credentials' });
  if (answer.status !== 200) throw new Error(`token failed: ${answer.status} ${answer.text}`);
  return answer.body.access_token as string;
}

export interface Signer {
  clientId: string;
  jwk: PublicJwk;
  token: string;
}

/** A signed create by `signer`; answers the supertest response. */
export function createAs(bank: Bank, signer: Signer, order: Record<string, unknown> = sampleOrder()) {
  const body = JSON.stringify(order);
  const headers = signedCreateHeaders(body, signer.token, { clock: bank.clock, sign: { clientId: signer.clientId, jwk: signer.jwk } });
  return sendWith(request(bank.app).post('/payment-orders'), headers, body);
}

/** The signed headers of reverse polling by `signer` for `target`. */
export function statusHeadersAs(bank: Bank, signer: Signer, target: string): Record<string, string> {
  const headers: Record<string, string> = { 'x-client-id': signer.clientId, 'x-timestamp': isoNow(bank.clock), 'x-nonce': newNonce() };
  headers['x-signature'] = signRequest('status', 'GET', target, headers, '', { clientId: signer.clientId, jwk: signer.jwk });
  headers.authorization = `Bearer ${signer.token}`;
  return headers;
}
