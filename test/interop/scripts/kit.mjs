// What a Connector team would write with off-the-shelf libraries (jose, oauth4webapi) and the profile text,
// shared by the interop scripts. Nothing here imports the project's code: the point is that an independent
// implementation of sandbox-profile.md gets through. Every script reads its inputs from the environment,
// prints one JSON object on stdout, and exits non-zero (message on stderr) only when it cannot run at all;
// what a library accepted or refused is data in that JSON, for the jest side to assert on.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import * as oauth from 'oauth4webapi';
import { CompactSign, importJWK } from 'jose';

export function need(name) {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`environment variable ${name} is required`);
  return value;
}

/** The Connector's own settings: where the Bank is and the credentials it was given. */
export function connector() {
  return {
    bankUrl: need('BANK_URL'),
    clientId: need('CLIENT_ID'),
    clientSecret: need('CLIENT_SECRET'),
    jwk: JSON.parse(need('CLIENT_JWK')),
  };
}

/** Runs a script's main and prints its result as JSON; a crash is a clear message on stderr and exit code 1. */
export function run(main) {
  main().then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error) => {
      process.stderr.write(`${basename(process.argv[1])}: ${error?.stack ?? error}\n`);
      process.exitCode = 1;
    },
  );
}

/** The answer behind a library error, unless the library has read it already. */
async function answerOf(response) {
  try {
    const { status, headers, text, json } = await capture(response);
    return { status, content_type: headers['content-type'] ?? null, body: json ?? text };
  } catch {
    return { status: response.status };
  }
}

/** A library error as data: its class, code, message and whatever it parsed (OAuth error, challenges, body). */
export async function describeError(error) {
  const described = { name: error?.name ?? typeof error, code: error?.code, message: String(error?.message ?? error) };
  if (error instanceof oauth.ResponseBodyError) {
    Object.assign(described, { status: error.status, error: error.error, error_description: error.error_description, body: error.cause });
  } else if (error instanceof oauth.WWWAuthenticateChallengeError) {
    Object.assign(described, { challenges: error.cause, ...(await answerOf(error.response)) });
  } else if (error?.cause instanceof Response) {
    Object.assign(described, await answerOf(error.cause));
  } else if (error?.cause !== undefined) {
    described.cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : error.cause;
  }
  return described;
}

/** `{ok: true, ...value}` or `{ok: false, error}`: one refused case never hides the others. */
export async function attempt(fn) {
  try {
    return { ok: true, ...(await fn()) };
  } catch (error) {
    return { ok: false, error: await describeError(error) };
  }
}

/** Status, the headers the tests look at, and the body (JSON when it parses). */
export async function capture(response) {
  const headers = {};
  for (const name of ['content-type', 'content-length', 'www-authenticate', 'content-digest']) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: response.status, headers, text, json };
}

// ---- OAuth 2.0 (profile section 3), with oauth4webapi ----

/**
 * The Bank's plain-HTTP listener is for local development (profile section 4); oauth4webapi refuses http://
 * unless told, as RFC 6749 section 3.1/3.2 ask TLS of OAuth endpoints. Over https:// this stays false.
 */
export const insecureFor = (url) => ({ [oauth.allowInsecureRequests]: String(url).startsWith('http:') });

/**
 * client_credentials at POST /oauth/token. `clientAuth` is oauth4webapi's ClientSecretBasic/ClientSecretPost;
 * `dpop` an oauth4webapi DPoP handle; `grantType` another grant type (to provoke unsupported_grant_type).
 * Returns oauth4webapi's parsed response plus the token_type exactly as the Bank sent it.
 */
export async function requestToken(bankUrl, clientId, clientAuth, { dpop, grantType } = {}) {
  const as = { issuer: bankUrl, token_endpoint: new URL('/oauth/token', bankUrl).href };
  const client = { client_id: clientId };
  const options = { ...insecureFor(as.token_endpoint), DPoP: dpop };
  const response = grantType
    ? await oauth.genericTokenEndpointRequest(as, client, clientAuth, grantType, {}, options)
    : await oauth.clientCredentialsGrantRequest(as, client, clientAuth, {}, options);
  const raw = response.clone();
  const tokens = await oauth.processGenericTokenEndpointResponse(as, client, response);
  const { token_type: wireTokenType } = await raw.json();
  return { ...tokens, wire_token_type: wireTokenType };
}

// ---- Signatures (profile section 1), with jose ----

/** Header lines of the signature base per flow: the table of profile section 1. */
export const SIGNED_HEADERS = {
  create: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
  pull: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
  status: ['x-client-id', 'x-timestamp', 'x-nonce'],
  callback: ['x-client-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
};

/** RFC 9530 form over the raw body bytes. */
export function contentDigest(body) {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/** The signature base: `@method`, `@target-uri` (path and query as on the wire), the flow's headers, content-digest. */
export function signatureBase(flow, { method, target, headers, body }) {
  const lines = [`@method: ${method.toUpperCase()}`, `@target-uri: ${target}`];
  for (const name of SIGNED_HEADERS[flow]) lines.push(`${name}: ${headers[name] ?? ''}`);
  lines.push(`content-digest: ${contentDigest(body)}`);
  return lines.join('\n');
}

/**
 * Compact JWS over the base with jose, then the payload dropped: `protected..signature` (RFC 7515 appendix F).
 * `extraHeader`/`signOptions` let a script add a `crit` extension that jose itself understands.
 */
export async function signDetached(base, privateJwk, extraHeader = {}, signOptions = undefined) {
  const alg = privateJwk.alg ?? 'ES256';
  const key = await importJWK(privateJwk, alg);
  const jws = await new CompactSign(new TextEncoder().encode(base))
    .setProtectedHeader({ alg, kid: privateJwk.kid, typ: 'JOSE', ...extraHeader })
    .sign(key, signOptions);
  const [protectedHeader, , signature] = jws.split('.');
  return `${protectedHeader}..${signature}`;
}

const isoSeconds = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Every header of a Connector request but Authorization: X- headers, X-Signature, and for create the body's. */
export async function signedHeaders(flow, method, target, body, { clientId, jwk }, sign = {}) {
  const headers = { 'x-client-id': clientId, 'x-timestamp': isoSeconds(), 'x-nonce': randomBytes(24).toString('base64url') };
  if (flow === 'create') Object.assign(headers, { 'x-request-id': randomUUID(), 'x-idempotency-key': `interop-${randomUUID()}` });
  headers['x-signature'] = await signDetached(signatureBase(flow, { method, target, headers, body }), jwk, sign.header, sign.options);
  // v1.1: a request with a body also carries the RFC 9530 Content-Digest header, for standard digest checks.
  if (flow === 'create') Object.assign(headers, { 'content-type': 'application/json', 'content-digest': contentDigest(body) });
  return headers;
}

export const statusTarget = (reference) => `/payment-orders/${encodeURIComponent(reference)}/status`;
