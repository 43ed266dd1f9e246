// The two OpenAPI 3.1 documents: the Bank's API (GET /openapi.json) and what a Connector must serve
// (GET /openapi/connector.json), built from the routes tables and the JSON Schemas of schemas/.
import { packageVersion } from '../../../wire/project-root';
import { BANK_OPERATIONS, TAGS } from './bank-operations';
import { CONNECTOR_OPERATIONS, CONNECTOR_TAGS } from './connector-operations';
import { CONTROL_OPERATIONS } from './control-operations';
import { components, DocumentStyle, documentedOperations, pathItems } from './document';
import { SECURITY_SCHEMES } from './headers';
import { JsonObject } from './schema-components';

export interface DocumentOptions {
  /** Ports of the two listeners, for the servers list (PORT, HTTPS_PORT). */
  httpPort: number;
  httpsPort: number;
}

const BANK_STYLE: DocumentStyle = { requestIdOnEveryAnswer: true, headerRefusalsOnEveryOperation: true };
const CONNECTOR_STYLE: DocumentStyle = { requestIdOnEveryAnswer: false, headerRefusalsOnEveryOperation: false };

/** package.json's version (OpenAPI's info.version is required). */
function documentVersion(): string {
  return packageVersion() ?? '0.0.0';
}

const LICENSE = { name: 'MIT', identifier: 'MIT' };

export function bankDocument(options: DocumentOptions): JsonObject {
  const operations = documentedOperations([...BANK_OPERATIONS, ...CONTROL_OPERATIONS]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sandbox Bank',
      version: documentVersion(),
      summary: 'The reference Bank side of the payment-order exchange: create, reverse polling, tokens, keys, and the /sandbox control plane.',
      description:
        'Generated from the JSON Schemas in schemas/ (the Bank validates with the same files). Every request of a signed flow carries X-Client-Id, X-Timestamp, X-Nonce and a detached-JWS X-Signature over the signature base its description shows (profile section 1); every refusal is RFC 9457 problem+json with a `code` (profile section 5), except the token endpoint\'s RFC 6749 errors. What the Bank sends a Connector (pull, callbacks) is under webhooks, and in full in GET /openapi/connector.json.',
      license: LICENSE,
    },
    servers: [
      { url: 'http://{host}:{port}', description: 'The plain HTTP listener: create, token, JWKS, health, /sandbox (reverse polling only in SANDBOX_MODE=relaxed).', variables: { host: { default: 'localhost' }, port: { default: String(options.httpPort) } } },
      { url: 'https://{host}:{port}', description: 'The HTTPS listener with mutual TLS (every endpoint; reverse polling needs a client certificate of the sandbox CA).', variables: { host: { default: 'localhost' }, port: { default: String(options.httpsPort) } } },
    ],
    tags: [
      { name: TAGS.orders, description: 'The payment-order exchange, Connector to Bank (contract 4.1).' },
      { name: TAGS.oauth, description: 'Access tokens (profile section 3).' },
      { name: TAGS.keys, description: 'The Bank\'s signing keys.' },
      { name: TAGS.health, description: 'Liveness and readiness.' },
      { name: TAGS.docs, description: 'These descriptions.' },
      { name: TAGS.sandbox, description: 'How a person or a CI job steers the Bank (/sandbox, control-plane.md): orders, callbacks, test clocks, the journal, live events, clients at run time. Needs Authorization: Bearer <ADMIN_TOKEN>.' },
    ],
    paths: pathItems(operations, BANK_STYLE),
    webhooks: pathItems(CONNECTOR_OPERATIONS, CONNECTOR_STYLE, (operation) => `{connector_base_url}${operation.path}`),
    components: components([...operations, ...CONNECTOR_OPERATIONS], ['problem', 'oauth-error'], true, SECURITY_SCHEMES),
  };
}

export function connectorDocument(): JsonObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment-order Connector (as the Sandbox Bank calls it)',
      version: documentVersion(),
      summary: 'What a Connector must serve for the Bank: the pull (contract 4.2.1) and the unit and batch callbacks (4.2.2, 4.2.3).',
      description:
        'The Bank signs every request with its key (GET {bank}/.well-known/jwks.json; refetch once on an unknown kid): X-Signature is a detached JWS over the signature base each operation shows (profile section 1). Check X-Timestamp (±300 s) and X-Nonce (never reused) before acting, and the Content-Digest against the raw body bytes. Callbacks come over HTTPS with the Bank\'s client certificate (mTLS).',
      license: LICENSE,
    },
    servers: [{ url: '{connector_base_url}', description: 'The Connector\'s base URL, as registered with the Bank (connector.url).', variables: { connector_base_url: { default: 'https://localhost:9443' } } }],
    tags: [
      { name: CONNECTOR_TAGS.pull, description: 'The Bank pulls orders (contract 4.2.1).' },
      { name: CONNECTOR_TAGS.callbacks, description: 'The Bank reports statuses (contract 4.2.2 to 4.2.4).' },
    ],
    paths: pathItems(CONNECTOR_OPERATIONS, CONNECTOR_STYLE),
    components: components(CONNECTOR_OPERATIONS, [], false, {
      bearer: { type: 'http', scheme: 'bearer', description: 'The token the Bank sends on the pull: static (connector.token) or fetched by client_credentials from the Connector\'s token_url.' },
      mutualTLS: { type: 'mutualTLS', description: 'The Bank connects with its client certificate from the sandbox CA; the Connector should require it (contract section 5).' },
    }),
  };
}
