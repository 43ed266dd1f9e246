// An access token from the Bank's /oauth/token (client_credentials, client_secret_basic), bound to a DPoP key
// when one is given (RFC 9449: a proof JWT signed by that key, with its public JWK in the header).
import { createHash, randomUUID } from 'node:crypto';
import { b64url } from '../wire/base64url';
import { signJwt } from '../wire/compact-jwt';
import { SigningKey } from '../wire/keys';
import type { TlsMaterial } from '../wire/signed-client';
import { ApiAnswer, bankEndpoint, problemText } from './bank-api';
import { httpCall, parseJsonText, Unreachable } from './http';
import { CliError, EXIT, unavailable } from './io';

/** The public members of the key, as the proof's `jwk` header carries them (no kid, alg or private member). */
function proofJwk(key: SigningKey): Record<string, unknown> {
  const { kty, crv, x, y, n, e } = key.publicJwk;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, value]) => value !== undefined));
}

/** A DPoP proof for one request: htm and htu (no query), and ath when it carries an access token. */
export function dpopProof(key: SigningKey, request: { method: string; url: URL; accessToken?: string; nowMs?: number }): string {
  const claims: Record<string, unknown> = {
    htm: request.method,
    htu: `${request.url.origin}${request.url.pathname}`,
    iat: Math.floor((request.nowMs ?? Date.now()) / 1000),
    jti: randomUUID(),
  };
  if (request.accessToken !== undefined) claims.ath = b64url(createHash('sha256').update(request.accessToken, 'ascii').digest());
  return signJwt({ typ: 'dpop+jwt', alg: key.alg, jwk: proofJwk(key) }, claims, key.privateKey);
}

export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in?: number;
  [member: string]: unknown;
}

export interface TokenRequest {
  bank: URL;
  clientId: string;
  clientSecret: string;
  dpopKey?: SigningKey;
  tls?: TlsMaterial;
}

/**
 * The token, or a CliError: no answer or a 5xx is exit 2, and so is `invalid_client` (unknown client or wrong
 * secret: this client cannot use the Bank); any other refusal (a bad DPoP proof) is exit 1.
 */
export async function requestToken(request: TokenRequest): Promise<TokenAnswer> {
  const url = bankEndpoint(request.bank, '/oauth/token');
  const basic = Buffer.from(`${encodeURIComponent(request.clientId)}:${encodeURIComponent(request.clientSecret)}`).toString('base64');
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` };
  if (request.dpopKey) headers.dpop = dpopProof(request.dpopKey, { method: 'POST', url });
  let answer: ApiAnswer;
  try {
    const raw = await httpCall({ method: 'POST', url, headers, body: 'grant_type=client_credentials', tls: request.tls });
    answer = { ...raw, json: parseJsonText(raw.text) };
  } catch (error) {
    if (error instanceof Unreachable) throw unavailable(`cannot reach the Bank's token endpoint: ${error.message}`);
    throw error;
  }
  const body = answer.json as Partial<TokenAnswer> & { error?: string } | undefined;
  if (answer.status === 200 && typeof body?.access_token === 'string') return body as TokenAnswer;
  const exit = answer.status >= 500 || answer.status === 200 || body?.error === 'invalid_client' ? EXIT.unavailable : EXIT.failed;
  throw new CliError(exit, `token refused: ${problemText(answer)}`);
}
