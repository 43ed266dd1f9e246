// The Bank's own endpoints (contract 4.1, profile sections 1 to 6): create, reverse polling, token, JWKS,
// health, and these descriptions themselves. Every body is a schema file of schemas/; the problem codes are
// the ones each flow's pipeline and handler can raise (http/pipeline.ts, create/, status/, token/).
import { ProblemCode } from '../../../wire/problems';
import { OperationSpec, SecurityRequirement } from './model';
import { componentRef } from './schema-components';

export const TAGS = {
  orders: 'Payment orders',
  oauth: 'OAuth',
  keys: 'Keys',
  health: 'Health',
  docs: 'Documentation',
  sandbox: 'Sandbox control plane',
} as const;

/** What every signed flow's pipeline can refuse (profile section 5, in check order). */
const SIGNED_FLOW_PROBLEMS: ProblemCode[] = [
  'body_too_large',
  'header_missing',
  'header_invalid',
  'client_unknown',
  'auth_missing',
  'auth_invalid',
  'rate_limited',
  'timestamp_out_of_window',
  'signature_missing',
  'signature_invalid',
  'nonce_replayed',
  'internal',
];

const TOKEN_SECURITY: SecurityRequirement[] = [{ oauth2: [] }, { dpop: [] }];

const DOCUMENT_ANSWER_HEADERS: ('CacheControl' | 'ETag')[] = ['CacheControl', 'ETag'];
const NOT_MODIFIED = { status: 304, description: 'Not modified: If-None-Match named the current ETag.', headers: DOCUMENT_ANSWER_HEADERS };
const IF_NONE_MATCH = { name: 'If-None-Match', description: 'An ETag of an earlier answer: 304 when the document has not changed.', schema: { type: 'string' } };
const OPENAPI_DOCUMENT = { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { const: '3.1.0' } }, description: 'An OpenAPI 3.1 document.' };

export const BANK_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'post',
    path: '/payment-orders',
    operationId: 'createPaymentOrder',
    tag: TAGS.orders,
    summary: 'Create a payment order',
    description:
      'Contract 4.1.1. The checks run in this order: size and media type, headers, client, authorization, rate limit, timestamp, signature, nonce, idempotency, body (profile section 5); nothing is stored for a refused request except the nonce of a verified one. 200 answers the status now (contract 2.4); 202 accepts it with no body, and the final status follows by callback. The outcome is the scenario in metadata.sandbox_scenario, the rules file, or the cents of total_amount (profile section 8).',
    security: TOKEN_SECURITY,
    signed: 'create',
    optionalHeaders: ['ContentDigest', 'DPoP'],
    body: { schema: 'payment-order', description: 'The payment order (contract 2.1, profile section 9), signed as its raw bytes.' },
    answers: [
      { status: 200, description: 'Processed synchronously: the status now (SUCCESS, FAILED, or PENDING with a callback to follow).', schema: 'create-answer', headers: ['IdempotentReplayed'] },
      { status: 202, description: 'Accepted, result deferred: no body (Content-Length: 0); the final status comes by callback.', headers: ['IdempotentReplayed'] },
    ],
    problems: [...SIGNED_FLOW_PROBLEMS, 'unsupported_media_type', 'idempotency_key_reused', 'idempotency_in_progress', 'body_malformed', 'body_invalid', 'duplicate_reference'],
  },
  {
    method: 'get',
    path: '/payment-orders/{orderId}/status',
    operationId: 'getPaymentOrderStatus',
    tag: TAGS.orders,
    summary: 'Reverse polling: the status of an order',
    description:
      'Contract 4.1.2: a fallback for orders still PENDING (or awaiting a 202\'s result). Needs mTLS with a certificate whose CN is X-Client-Id (403 mtls_required on plain HTTP unless SANDBOX_MODE=relaxed). A due settlement is applied before answering. Another client\'s order answers exactly like an unknown one. Back off on 429 (Retry-After) and stop on 404 or a final status.',
    security: [
      { mutualTLS: [], oauth2: [] },
      { mutualTLS: [], dpop: [] },
      { mutualTLS: [], apiKey: [] },
    ],
    signed: 'status',
    optionalHeaders: ['DPoP'],
    pathParameters: { orderId: 'The order\'s reference, percent-encoded as a path segment.' },
    answers: [{ status: 200, description: 'The status update object (contract 2.3) with processed_at.', schema: 'status-update' }],
    problems: ['mtls_required', ...SIGNED_FLOW_PROBLEMS, 'order_not_found'],
  },
  {
    method: 'post',
    path: '/oauth/token',
    operationId: 'requestAccessToken',
    tag: TAGS.oauth,
    summary: 'Get an access token (client_credentials)',
    description:
      'OAuth 2.0 client_credentials (RFC 6749 §4.4), the client authenticated by client_secret_basic or client_secret_post (not both). With a valid DPoP proof header the token is DPoP-bound (token_type DPoP, RFC 9449); a client whose auth_methods lack bearer must ask for one. Errors are RFC 6749 §5.2 JSON, never problem+json (profile v1.1 section 3).',
    security: [{ clientSecretBasic: [] }, {}],
    optionalHeaders: ['DPoP'],
    body: { schema: 'oauth-token-request', contentType: 'application/x-www-form-urlencoded' },
    answers: [{ status: 200, description: 'The access token. Cache-Control: no-store.', schema: 'oauth-token', headers: ['CacheControl'] }],
    oauthErrors: [
      { status: 400, errors: ['invalid_request', 'unsupported_grant_type', 'unauthorized_client', 'invalid_dpop_proof'], codes: ['body_invalid', 'unsupported_media_type', 'body_malformed', 'auth_invalid', 'header_invalid'] },
      { status: 401, errors: ['invalid_client'], codes: ['auth_invalid', 'auth_missing'] },
      { status: 413, errors: ['invalid_request'], codes: ['body_too_large'] },
      { status: 500, errors: ['server_error'], codes: ['internal'] },
    ],
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    operationId: 'getBankJwks',
    tag: TAGS.keys,
    summary: 'The Bank\'s public keys',
    description: 'The keys that verify the Bank\'s X-Signature (pulls, callbacks) and its access tokens. Refetch once on an unknown kid (profile section 1).',
    security: [],
    answers: [{ status: 200, description: 'The JWK set (public members only). Cache-Control: public, max-age=300.', schema: 'jwks', headers: ['CacheControl'] }],
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    tag: TAGS.health,
    summary: 'Liveness',
    description: 'The process is up.',
    security: [],
    answers: [{ status: 200, description: 'Up.', schema: 'health' }],
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: TAGS.health,
    summary: 'Readiness',
    description: 'The database answers, the migrations are applied and the Bank\'s keys are loaded.',
    security: [],
    answers: [{ status: 200, description: 'Ready, with each check.', schema: 'readiness' }],
    specialErrors: [
      {
        status: 503,
        description: '`not_ready`: one or more checks failed; the problem carries them.',
        contentType: 'application/problem+json',
        schema: {
          allOf: [
            { $ref: componentRef('problem') },
            { required: ['checks'], properties: { status: { const: 503 }, code: { const: 'not_ready' }, checks: { $ref: componentRef('readiness', 'checks') } } },
          ],
        },
      },
    ],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: TAGS.health,
    summary: 'Prometheus metrics',
    description: 'Prometheus text exposition: requests by route, method and status with their latency, refusals by problem code, callbacks, pulls, the outbox, clock advances, and the process. Names start with sandbox_bank_. Guarded like /sandbox.',
    security: [{ adminToken: [] }],
    answers: [{ status: 200, description: 'The metrics. Cache-Control: no-store.', schema: { type: 'string' }, contentType: 'text/plain', headers: ['CacheControl'] }],
    problems: ['auth_missing', 'auth_invalid', 'internal'],
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getBankOpenApi',
    tag: TAGS.docs,
    summary: 'This document',
    description: 'The Bank\'s API as OpenAPI 3.1, generated from the JSON Schemas in schemas/. Import it into Postman or Insomnia, or generate a client from it. Public on both listeners.',
    security: [],
    extraHeaders: [IF_NONE_MATCH],
    answers: [{ status: 200, description: 'The document.', schema: OPENAPI_DOCUMENT, headers: DOCUMENT_ANSWER_HEADERS }, NOT_MODIFIED],
  },
  {
    method: 'get',
    path: '/openapi/connector.json',
    operationId: 'getConnectorOpenApi',
    tag: TAGS.docs,
    summary: 'What a Connector must serve',
    description: 'The Connector\'s side of the exchange as OpenAPI 3.1: the pull the Bank calls and the two callbacks it sends, with the Bank\'s signing headers. Serve it, or test your server against it.',
    security: [],
    extraHeaders: [IF_NONE_MATCH],
    answers: [{ status: 200, description: 'The document.', schema: OPENAPI_DOCUMENT, headers: DOCUMENT_ANSWER_HEADERS }, NOT_MODIFIED],
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getDocs',
    tag: TAGS.docs,
    summary: 'Both documents as one HTML page',
    description: 'A self-contained page (no script, font or style from elsewhere) that renders both documents: every path, operation, parameter, header, body schema and example. Readable offline.',
    security: [],
    extraHeaders: [IF_NONE_MATCH],
    answers: [{ status: 200, description: 'The page.', schema: { type: 'string' }, contentType: 'text/html', headers: DOCUMENT_ANSWER_HEADERS }, NOT_MODIFIED],
  },
];
