// Step 4: Authorization (profile section 3): Bearer, DPoP-bound, or API key where the flow and the client allow.
import { AuthMethod } from '../../security/client-registry';
import { DpopInvalidError, verifyDpopProof } from '../../security/dpop';
import { secretMatches } from '../../../wire/secrets';
import { AccessTokenClaims, TokenInvalidError } from '../../security/tokens';
import { ProblemError } from '../../../wire/problems';
import { Exchange, InboundServices, requireClient, Step } from '../exchange';

const SCHEMES: Record<string, AuthMethod> = { bearer: 'bearer', dpop: 'dpop', 'x-api-key': 'api_key' };

function authProblem(code: 'auth_missing' | 'auth_invalid', detail: string): ProblemError {
  return new ProblemError(code, detail);
}

function verifyToken(token: string, services: InboundServices): AccessTokenClaims {
  try {
    return services.tokens.verify(token);
  } catch (error) {
    if (error instanceof TokenInvalidError) throw authProblem('auth_invalid', `access token rejected: ${error.message}`);
    throw error;
  }
}

/** scheme://host/path of the request, as DPoP's htu compares it. */
export function requestHtu(exchange: Exchange): string {
  const scheme = (exchange.req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const path = exchange.req.originalUrl.split('?')[0];
  return `${scheme}://${exchange.header('host') ?? ''}${path}`;
}

function checkDpopBinding(exchange: Exchange, services: InboundServices, token: string, claims: AccessTokenClaims): void {
  const proof = exchange.header('dpop');
  if (!claims.cnf?.jkt) throw authProblem('auth_invalid', 'the DPoP scheme needs a DPoP-bound token');
  if (!proof) throw authProblem('auth_invalid', 'the DPoP header is missing');
  const windowS = services.config.timestampWindowS;
  let verified;
  try {
    verified = verifyDpopProof(proof, { method: exchange.req.method, htu: requestHtu(exchange), nowMs: exchange.nowMs, windowS, accessToken: token });
  } catch (error) {
    if (error instanceof DpopInvalidError) throw authProblem('auth_invalid', error.message);
    throw error;
  }
  if (verified.jkt !== claims.cnf.jkt) throw authProblem('auth_invalid', 'the DPoP proof is signed by another key than the token is bound to');
  // Spent by check_nonce, once the request signature has verified: a rejected request stores nothing.
  exchange.dpopJti = { scope: `dpop:${claims.client_id}`, jti: verified.jti, expiresAt: exchange.nowMs + 2 * windowS * 1000 };
}

export const checkAuthorization: Step = (exchange, services, spec) => {
  const client = requireClient(exchange);
  const authorization = exchange.header('authorization');
  if (!authorization) throw authProblem('auth_missing', 'send Authorization: Bearer <token>, DPoP <token> or, where allowed, X-API-Key <key>');
  const match = /^([A-Za-z-]+) +(\S+)$/.exec(authorization.trim());
  const method = match ? SCHEMES[match[1].toLowerCase()] : undefined;
  if (!match || !method) throw authProblem('auth_invalid', 'Authorization must be "Bearer <token>", "DPoP <token>" or "X-API-Key <key>"');
  if (!spec.authMethods.includes(method)) throw authProblem('auth_invalid', `${match[1]} is not accepted on this endpoint`);
  if (!client.authMethods.has(method)) throw authProblem('auth_invalid', `client ${client.id} is not allowed to use ${match[1]}`);
  const credential = match[2];
  if (method === 'api_key') {
    const hash = client.definition.api_key_hash;
    if (!hash || !secretMatches(credential, hash)) throw authProblem('auth_invalid', 'the API key is not valid for this client');
    return;
  }
  const claims = verifyToken(credential, services);
  if (claims.client_id !== client.id) throw authProblem('auth_invalid', 'the access token was issued to another client');
  if (method === 'bearer' && claims.cnf) throw authProblem('auth_invalid', 'a DPoP-bound token must be sent with the DPoP scheme');
  if (method === 'dpop') checkDpopBinding(exchange, services, credential, claims);
  exchange.token = claims;
};
