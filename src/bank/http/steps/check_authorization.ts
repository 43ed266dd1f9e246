// Step 4: Authorization (profile section 3): Bearer, DPoP-bound, or API key where the flow and the client allow.
// Every refusal says why (`reason`) and, per RFC 6750 §3 and RFC 9449 §7.1, tells a client library whether to
// fetch a new token (error="invalid_token") or to fix its proof (error="invalid_dpop_proof").
import { AuthMethod } from '../../security/client-registry';
import { DpopInvalidError, verifyDpopProof } from '../../security/dpop';
import { secretMatches } from '../../../wire/secrets';
import { AccessTokenClaims, TokenInvalidError } from '../../security/tokens';
import { ProblemError } from '../../../wire/problems';
import { Exchange, InboundServices, requireClient, Step } from '../exchange';
import { requestOrigin, requestPath } from '../../../wire/http-edge';

const SCHEMES: Record<string, AuthMethod> = { bearer: 'bearer', dpop: 'dpop', 'x-api-key': 'api_key' };

/** A quoted-string parameter value (RFC 9110 §5.6.4) without quotes or backslashes to escape. */
function quoted(text: string): string {
  return `"${text.replace(/["\\]/g, "'")}"`;
}

/** RFC 6750 §3 (Bearer) or RFC 9449 §7.1 (DPoP): the token itself is bad, expired or not for this request. */
function invalidTokenChallenge(scheme: 'Bearer' | 'DPoP', description: string): string {
  const algs = scheme === 'DPoP' ? ', algs="ES256 PS256 RS256"' : '';
  return `${scheme} realm="sandbox-bank"${algs}, error="invalid_token", error_description=${quoted(description)}`;
}

/** RFC 9449 §7.1: the DPoP proof is missing or wrong. */
export function invalidProofChallenge(description: string): string {
  return `DPoP algs="ES256 PS256 RS256", error="invalid_dpop_proof", error_description=${quoted(description)}`;
}

export function authInvalid(reason: string, detail: string, challenge?: string): ProblemError {
  return new ProblemError('auth_invalid', detail, { extensions: { reason }, headers: challenge ? { 'WWW-Authenticate': challenge } : undefined });
}

function tokenRefused(scheme: 'Bearer' | 'DPoP', reason: string, detail: string): ProblemError {
  return authInvalid(reason, detail, invalidTokenChallenge(scheme, detail));
}

function proofRefused(reason: string, detail: string): ProblemError {
  return authInvalid(reason, detail, invalidProofChallenge(detail));
}

function verifyToken(token: string, scheme: 'Bearer' | 'DPoP', services: InboundServices): AccessTokenClaims {
  try {
    return services.tokens.verify(token);
  } catch (error) {
    if (error instanceof TokenInvalidError) throw tokenRefused(scheme, error.reason, `access token rejected: ${error.message}`);
    throw error;
  }
}

/** scheme://host/path of the request, as DPoP's htu compares it (after normalisation). */
export function requestHtu(exchange: Exchange): string {
  return `${requestOrigin(exchange.req, '')}${requestPath(exchange.req)}`;
}

function checkDpopBinding(exchange: Exchange, services: InboundServices, token: string, claims: AccessTokenClaims): void {
  const proof = exchange.header('dpop');
  if (!claims.cnf?.jkt) throw tokenRefused('DPoP', 'dpop_unbound', 'the DPoP scheme needs a DPoP-bound token');
  if (!proof) throw proofRefused('dpop_missing', 'the DPoP header is missing');
  const windowS = services.config.timestampWindowS;
  let verified;
  try {
    verified = verifyDpopProof(proof, { method: exchange.req.method, htu: requestHtu(exchange), nowMs: exchange.nowMs, windowS, accessToken: token });
  } catch (error) {
    if (error instanceof DpopInvalidError) throw proofRefused(error.reason, error.message);
    throw error;
  }
  if (verified.jkt !== claims.cnf.jkt) throw proofRefused('dpop_jkt', 'the DPoP proof is signed by another key than the token is bound to');
  // Spent by check_nonce, once the request signature has verified: a rejected request stores nothing.
  exchange.dpopJti = { scope: `dpop:${claims.client_id}`, jti: verified.jti, expiresAt: exchange.nowMs + 2 * windowS * 1000 };
}

export const checkAuthorization: Step = (exchange, services, spec) => {
  const client = requireClient(exchange);
  const authorization = exchange.header('authorization');
  if (!authorization) throw new ProblemError('auth_missing', 'send Authorization: Bearer <token>, DPoP <token> or, where allowed, X-API-Key <key>');
  const match = /^([A-Za-z-]+) +(\S+)$/.exec(authorization.trim());
  const method = match ? SCHEMES[match[1].toLowerCase()] : undefined;
  if (!match || !method) throw authInvalid('scheme_invalid', 'Authorization must be "Bearer <token>", "DPoP <token>" or "X-API-Key <key>"');
  if (!spec.authMethods.includes(method)) throw authInvalid('scheme_not_allowed', `${match[1]} is not accepted on this endpoint`);
  if (!client.authMethods.has(method)) throw authInvalid('scheme_not_allowed', `client ${client.id} is not allowed to use ${match[1]}`);
  const credential = match[2];
  if (method === 'api_key') {
    const hash = client.definition.api_key_hash;
    if (!hash || !secretMatches(credential, hash)) throw authInvalid('api_key_invalid', 'the API key is not valid for this client');
    return;
  }
  const scheme = method === 'dpop' ? 'DPoP' : 'Bearer';
  const claims = verifyToken(credential, scheme, services);
  if (claims.client_id !== client.id) throw tokenRefused(scheme, 'token_client_mismatch', 'the access token was issued to another client');
  if (method === 'bearer' && claims.cnf) throw tokenRefused(scheme, 'token_dpop_bound', 'a DPoP-bound token must be sent with the DPoP scheme');
  if (method === 'dpop') checkDpopBinding(exchange, services, credential, claims);
  exchange.token = claims;
};
