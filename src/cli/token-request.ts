// An access token from the Bank's /oauth/token (client_credentials, client_secret_basic), bound to a DPoP key
// when one is given (RFC 9449: a proof JWT signed by that key, with its public JWK in the header).
import { createHash, randomUUID } from 'node:crypto';
import { b64url } from '../wire/base64url';
import { signJwt } from '../wire/compact-jwt';
import { SigningKey } from '../wire/keys';
import type { TlsMaterial } from '../wire/signed-client';
import { ApiAnswer, bankEndpoint, problemText, unexpectedAnswer } from './bank-api';
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

/** Only where it is true: what an RFC 6749 error of the token endpoint means for the flags given. */
const ERROR_HINTS: Record<string, string> = {
  invalid_client: '(check --client-id and --client-secret, or --credentials)',
  unauthorized_client: "(the client's auth_methods do not allow this kind of token: see clients show; --dpop-key asks for a DPoP-bound one)",
};

/** `401 invalid_client: unknown client or wrong client secret`, as the token endpoint sent them (RFC 6749 §5.2). */
function refusalText(answer: ApiAnswer): string {
  const body = answer.json as { error?: unknown; error_description?: unknown };
  if (typeof body.error !== 'string') return problemText(answer);
  const hint = ERROR_HINTS[body.error];
  return `${answer.status} ${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}${hint ? ` ${hint}` : ''}`;
}

/**
 * The token, or a CliError: no answer or a 5xx is exit 2, and so is `invalid_client` (unknown client or wrong
 * secret: this client cannot use the Bank) and an answer that is not the token endpoint's JSON; any other
 * refusal (a bad DPoP proof, a kind of token the client may not have) is exit 1.
 */
export async function requestToken(request: TokenRequest): Promise<TokenAnswer> {
  const url = bankEndpoint(request.bank, '/oauth/token');
  const basic = Buffer.from(`${encodeURIComponent(request.clientId)}:${encodeURIComponent(request.clientSecret)}`).toString('base64');
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` };
  if (request.dpopKey) headers.dpop = dpopProof(request.dpopKey, { method: 'POST', url });
  let answer: ApiAnswer;
  try {
    const raw = await httpCall({ method: 'POST', url, headers, body: 'grant_type=client_credentials', tls: request.tls });
    answer = { ...raw, json: parseJsonText(raw.text), method: 'POST', url };
  } catch (error) {
    if (error instanceof Unreachable) throw unavailable(`cannot reach the Bank's token endpoint: ${error.message}`);
    throw error;
  }
  const body = answer.json as Partial<TokenAnswer> & { error?: string } | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unexpectedAnswer(answer, "the token endpoint's JSON");
  if (answer.status === 200 && typeof body.access_token === 'string') return body as TokenAnswer;
  if (answer.status >= 200 && answer.status < 300) throw unexpectedAnswer(answer, 'a token answer with "access_token"');
  const exit = answer.status >= 500 || body.error === 'invalid_client' ? EXIT.unavailable : EXIT.failed;
  throw new CliError(exit, `token refused: ${refusalText(answer)}`);
}
