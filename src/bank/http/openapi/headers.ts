// The profile's headers (sections 1 to 3) and security schemes, as OpenAPI parameters, response headers and
// security schemes. What a header must look like is the syntax the Bank checks (http/steps/check_headers.ts);
// which lines a signature covers comes from the exchange's own table (wire/signature-base SIGNED_HEADERS).
import { SIGNED_HEADERS, SignedFlow } from '../../../wire/signature-base';
import { JsonObject } from './schema-components';

const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$';

/** Request headers of the signed flows, by component name. */
export const REQUEST_HEADERS = {
  XClientId: {
    name: 'X-Client-Id',
    description: 'The caller: a Connector\'s client_id (create, reverse polling), or the Bank\'s own id on the requests it sends (pull, callbacks). Signed.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
    example: 'demo-connector',
  },
  XRequestId: {
    name: 'X-Request-Id',
    description: 'The request\'s own id (1 to 200 visible ASCII characters), echoed in the answer, the log, the journal and every problem\'s request_id. Signed on create and pull.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7E]{1,200}$' },
    example: '6f1c2b9e-4a7d-4c1e-9d65-0b8f3c7e2a10',
  },
  XTimestamp: {
    name: 'X-Timestamp',
    description: 'RFC 3339 UTC with Z, within ±300 s (TIMESTAMP_WINDOW_S) of the receiver\'s clock (profile section 2). Signed.',
    schema: { type: 'string', format: 'date-time', pattern: INSTANT_PATTERN },
    example: '2026-11-22T10:15:30Z',
  },
  XNonce: {
    name: 'X-Nonce',
    description: '16 to 128 characters of [A-Za-z0-9_-], never reused by a client within the window; spent only by a request whose signature verified. Signed.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{16,128}$' },
    example: 'm3yX9bQ2kP7vL0sR4tW8zA',
  },
  XIdempotencyKey: {
    name: 'X-Idempotency-Key',
    description: 'Create: the key of the idempotency record (client, key), kept 24 h; the same key and body replay the stored answer byte for byte with Idempotent-Replayed: true (profile section 6). Callbacks: the unit message\'s key (the same on every redelivery) or the batch_id. Signed.',
    schema: { type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$' },
    example: 'order-ORD-2026-0001-create',
  },
  XSignature: {
    name: 'X-Signature',
    description: 'A detached JWS (RFC 7515 appendix F): BASE64URL(protected header) + ".." + BASE64URL(signature), protected header {"alg": ES256 | PS256 | RS256, "kid", "typ": "JOSE"}, no crit, over the signature base of profile section 1 (its lines for this operation are listed in the operation\'s description).',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.\\.[A-Za-z0-9_-]+$' },
    example: 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImRlbW8ta2V5IiwidHlwIjoiSk9TRSJ9..MEUCIQDk',
  },
  ContentDigest: {
    name: 'Content-Digest',
    description: 'RFC 9530: sha-256=:<base64 of SHA-256 over the raw body bytes>:, the same value as the signature base\'s content-digest line. Optional from a Connector (checked against the bytes when sent); always sent by the Bank with a body (profile v1.1 section 1). A dictionary: every sha-256 and sha-512 member must match and at least one is needed; members of other algorithms are ignored.',
    schema: { type: 'string', pattern: '^[a-z][a-z0-9_.*-]*=:[A-Za-z0-9+/]*={0,2}:([ \\t]*,[ \\t]*[a-z][a-z0-9_.*-]*=:[A-Za-z0-9+/]*={0,2}:)*$' },
    example: 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
  },
  DPoP: {
    name: 'DPoP',
    description: 'A DPoP proof (RFC 9449): required with Authorization: DPoP <token>; on POST /oauth/token it asks for a DPoP-bound token. htm and htu (scheme, host and path, no query) of this request, iat within ±300 s, a unique jti, and ath = the token\'s hash except on the token request.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$' },
  },
} as const;

export type RequestHeader = keyof typeof REQUEST_HEADERS;

/** Header parameters as components; `required` is set where an operation uses them (see headerParameter). */
export function headerParameterComponents(): Record<string, JsonObject> {
  const components: Record<string, JsonObject> = {};
  for (const [component, header] of Object.entries(REQUEST_HEADERS)) {
    const { name, description, schema } = header;
    const example = 'example' in header ? { example: header.example } : {};
    components[component] = { name, in: 'header', required: true, description, schema, ...example };
    components[`${component}Optional`] = { name, in: 'header', required: false, description, schema, ...example };
  }
  return components;
}

/** An operation's reference to a header parameter, required or not. */
export function headerParameter(header: RequestHeader, required = true): JsonObject {
  return { $ref: `#/components/parameters/${header}${required ? '' : 'Optional'}` };
}

/** The headers a signed flow requires, in the order of its signature base; then X-Signature. */
export function signedHeaderParameters(flow: SignedFlow): RequestHeader[] {
  const byName = new Map(Object.entries(REQUEST_HEADERS).map(([component, header]) => [header.name.toLowerCase(), component as RequestHeader]));
  return [...SIGNED_HEADERS[flow].map((name) => byName.get(name) as RequestHeader), 'XSignature'];
}

/** The signature base of a flow, as a Markdown code block for the operation's description. */
export function signatureBaseDescription(flow: SignedFlow, method: string, target: string): string {
  const lines = [`@method: ${method.toUpperCase()}`, `@target-uri: ${target}`, ...SIGNED_HEADERS[flow].map((name) => `${name}: <value as sent>`), 'content-digest: sha-256=:<base64 of SHA-256 over the body bytes, or of nothing>:'];
  return `X-Signature signs this base (lines joined by \\n, no trailing newline):\n\n\`\`\`\n${lines.join('\n')}\n\`\`\``;
}

/** Response headers, by component name. */
export const RESPONSE_HEADERS = {
  XRequestId: { description: 'The request\'s X-Request-Id when well formed, else one the Bank made up (on every answer).', required: true, schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  RetryAfterOptional: { description: 'Seconds to wait before trying again (with idempotency_in_progress and rate_limited).', required: false, schema: { type: 'string', pattern: '^[0-9]+$' } },
  WWWAuthenticate: {
    description: 'RFC 6750 §3 / RFC 9449 §7.1: the schemes that would work (Bearer realm="sandbox-bank", DPoP realm="sandbox-bank", algs="ES256 PS256 RS256"), or error="invalid_token" / error="invalid_dpop_proof" with an error_description.',
    required: true,
    schema: { type: 'string' },
  },
  WWWAuthenticateBasic: { description: 'Basic realm="sandbox-bank" when the client authenticated with client_secret_basic (RFC 6749 §5.2).', required: false, schema: { type: 'string' } },
  IdempotentReplayed: { description: '"true" when the answer is the stored one of an earlier request with the same X-Idempotency-Key and body (profile section 6).', required: false, schema: { const: 'true' } },
  CacheControl: { description: 'How long the answer may be cached.', required: true, schema: { type: 'string' } },
  ETag: { description: 'A strong validator of the document: send it back in If-None-Match to get a 304.', required: true, schema: { type: 'string' } },
  Location: { description: 'The new resource.', required: true, schema: { type: 'string' } },
  Allow: { description: 'The methods the path serves.', required: true, schema: { type: 'string' } },
} satisfies Record<string, JsonObject>;

/** The HTTP name each response header component stands for (two components may name one header). */
export const RESPONSE_HEADER_NAMES: Readonly<Record<keyof typeof RESPONSE_HEADERS, string>> = {
  XRequestId: 'X-Request-Id',
  RetryAfter: 'Retry-After',
  RetryAfterOptional: 'Retry-After',
  WWWAuthenticate: 'WWW-Authenticate',
  WWWAuthenticateBasic: 'WWW-Authenticate',
  IdempotentReplayed: 'Idempotent-Replayed',
  CacheControl: 'Cache-Control',
  ETag: 'ETag',
  Location: 'Location',
  Allow: 'Allow',
};

export function responseHeader(name: keyof typeof RESPONSE_HEADERS): JsonObject {
  return { $ref: `#/components/headers/${name}` };
}

/** Security schemes (profile section 3 and 4, control-plane.md preamble). */
export const SECURITY_SCHEMES: Readonly<Record<string, JsonObject>> = {
  oauth2: {
    type: 'oauth2',
    description: 'OAuth 2.0 client_credentials at POST /oauth/token (client_secret_basic or client_secret_post): Authorization: Bearer <token>. The token is an RFC 9068 JWT for 3600 s whose client_id must be the request\'s X-Client-Id.',
    flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: {} } },
  },
  dpop: {
    type: 'http',
    scheme: 'DPoP',
    description: 'RFC 9449: a DPoP-bound token (ask for it with a DPoP proof on POST /oauth/token), sent as Authorization: DPoP <token> with a fresh DPoP proof header on every request.',
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'Reverse polling only, for clients whose auth_methods include api_key: the header value is `X-API-Key <key>`.',
  },
  mutualTLS: {
    type: 'mutualTLS',
    description: 'HTTPS with a client certificate issued by the sandbox CA whose subject CN equals X-Client-Id (profile section 4). Required for reverse polling: without a certificate the sandbox CA verified, 403 mtls_required (unless SANDBOX_MODE=relaxed); with one whose CN is another client\'s, 401 auth_invalid (reason certificate_client_mismatch). Also for callbacks the Bank sends.',
  },
  clientSecretBasic: {
    type: 'http',
    scheme: 'basic',
    description: 'client_secret_basic: client_id and client_secret, each URL-encoded, as Basic credentials. client_secret_post (both in the form body) is the other way.',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer <ADMIN_TOKEN>. Without ADMIN_TOKEN the control plane is open in SANDBOX_MODE=relaxed only (401 auth_invalid, reason admin_disabled, otherwise).',
  },
};
