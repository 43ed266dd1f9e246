// POST /oauth/token: client_credentials (RFC 6749 4.4) with client_secret_basic or client_secret_post,
// DPoP-bound when a valid DPoP proof is sent (RFC 9449). Errors are RFC 6749 §5.2 JSON (oauth-errors.ts).
import { ClientRegistry, RegisteredClient } from '../../security/client-registry';
import { DpopInvalidError, verifyDpopProof } from '../../security/dpop';
import { secretMatches } from '../../../wire/secrets';
import { Exchange, InboundServices } from '../exchange';
import { FlowResult, jsonResult } from '../flow';
import { requestHtu } from '../steps/check_authorization';
import { oauthError, TOKEN_NO_STORE } from './oauth-errors';

interface ClientCredentials {
  clientId: string;
  secret: string;
  /** client_secret_basic: sent in the Authorization header (a 401 then carries a Basic challenge). */
  viaHeader: boolean;
}

/** RFC 6749 section 2.3.1: id and secret are application/x-www-form-urlencoded first, so a + is a space. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function basicCredentials(header: string): ClientCredentials {
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw oauthError('invalid_client', 'Basic credentials must be client_id:client_secret', undefined, true);
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)), viaHeader: true };
  } catch {
    throw oauthError('invalid_client', 'Basic credentials are not URL-encoded correctly', undefined, true);
  }
}

function clientCredentials(authorization: string | undefined, form: URLSearchParams): ClientCredentials {
  const inBody = form.has('client_id') || form.has('client_secret');
  if (authorization && /^basic /i.test(authorization)) {
    if (inBody) throw oauthError('invalid_request', 'use client_secret_basic or client_secret_post, not both');
    return basicCredentials(authorization);
  }
  if (authorization) throw oauthError('invalid_client', 'only Basic client authentication is accepted in Authorization', undefined, true);
  const clientId = form.get('client_id');
  const secret = form.get('client_secret');
  if (!clientId || !secret) throw oauthError('invalid_client', 'client authentication is missing (client_secret_basic or client_secret_post)', 'auth_missing');
  return { clientId, secret, viaHeader: false };
}

function authenticate(registry: ClientRegistry, credentials: ClientCredentials): RegisteredClient {
  const client = registry.find(credentials.clientId);
  if (!client || !secretMatches(credentials.secret, client.definition.client_secret_hash)) {
    throw oauthError('invalid_client', 'unknown client or wrong client secret', undefined, credentials.viaHeader);
  }
  return client;
}

function parseForm(exchange: Exchange): URLSearchParams {
  const contentType = exchange.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;.*)?$/i.test(contentType)) {
    throw oauthError('invalid_request', 'Content-Type must be application/x-www-form-urlencoded', 'unsupported_media_type');
  }
  const form = new URLSearchParams(exchange.rawBody.toString('utf8'));
  refuseRepeatedParameters(form);
  return form;
}

/**
 * RFC 6749 §3.2: request parameters "MUST NOT be included more than once"; §5.2 makes such a request
 * invalid_request. Without this, URLSearchParams.get would silently take the first of two grant_types or secrets.
 */
function refuseRepeatedParameters(form: URLSearchParams): void {
  const seen = new Set<string>();
  for (const name of form.keys()) {
    if (seen.has(name)) throw oauthError('invalid_request', `parameter ${name} is included more than once (RFC 6749 section 3.2)`);
    seen.add(name);
  }
}

function dpopThumbprint(exchange: Exchange, services: InboundServices, clientId: string): string | null {
  const proof = exchange.header('dpop');
  if (proof === undefined) return null;
  const windowS = services.config.timestampWindowS;
  try {
    const verified = verifyDpopProof(proof, { method: 'POST', htu: requestHtu(exchange), nowMs: exchange.nowMs, windowS });
    if (!services.nonces.spend(`dpop:${clientId}`, verified.jti, exchange.nowMs, exchange.nowMs + 2 * windowS * 1000)) {
      throw new DpopInvalidError('dpop_replayed', 'DPoP proof jti was already used');
    }
    return verified.jkt;
  } catch (error) {
    if (error instanceof DpopInvalidError) throw oauthError('invalid_dpop_proof', error.message);
    throw error;
  }
}

export function tokenHandler(services: InboundServices) {
  return (exchange: Exchange): FlowResult => {
    const form = parseForm(exchange);
    const grantType = form.get('grant_type');
    if (!grantType) throw oauthError('invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials') throw oauthError('unsupported_grant_type', 'only client_credentials is supported');
    const client = authenticate(services.registry, clientCredentials(exchange.header('authorization'), form));
    const jkt = dpopThumbprint(exchange, services, client.id);
    if (jkt && !client.authMethods.has('dpop')) throw oauthError('unauthorized_client', `client ${client.id} is not allowed DPoP-bound tokens`);
    if (!jkt && !client.authMethods.has('bearer')) throw oauthError('unauthorized_client', `client ${client.id} must request a DPoP-bound token`);
    const issued = services.tokens.issue(client.id, jkt);
    exchange.log.info('token issued', { client_id: client.id, token_type: issued.token_type });
    return jsonResult(200, issued, { ...TOKEN_NO_STORE });
  };
}

