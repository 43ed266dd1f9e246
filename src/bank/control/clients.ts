// Control plane, section 1: clients at run time. POST registers a client and answers, once, everything a
// Connector team needs to start from nothing (secret, signing key, certificate, examples); GET never shows a
// secret; PATCH and DELETE take effect with the next request, pull or callback. The use cases are
// application/client-registrations; the precedence between the clients file and run-time changes is
// store/clients' (docs/control-plane-clients.md).
import type { Request } from 'express';
import { BankConfig } from '../config';
import { ChangeRequest, ClientRegistrations, Registration, RegistrationRequest } from '../application/client-registrations';
import { ConnectorDirectory } from '../outbound/connector-directory';
import { RegisteredClient } from '../security/client-registry';
import { ControlArea } from './index';
import { ClockView } from '../application/test-clocks';
import { controlBody, decodeCursor, instant, LIST_DEFAULT_LIMIT, LIST_QUERY, listPage, parseQuery, requestLog } from './http';

/** A client as GET shows it: what is in force, and never a secret (no hash, no token, no private key). */
export function clientView(client: RegisteredClient, connectors: ConnectorDirectory, testClock: ClockView | null = null) {
  const { definition } = client;
  const remote = client.remoteKeys?.view();
  const connector = connectors.get(client.id)?.settings;
  const block = (definition.connector ?? {}) as Record<string, unknown>;
  const files = Object.fromEntries(['ca_file', 'cert_file', 'key_file'].filter((name) => typeof block[name] === 'string').map((name) => [name, block[name]]));
  return {
    client_id: client.id,
    name: definition.name ?? client.id,
    source: client.origin.source,
    changed_at_runtime: client.origin.changedAtRuntime,
    auth_methods: [...client.authMethods],
    api_key_set: Boolean(definition.api_key_hash),
    jwks_uri: definition.jwks_uri ?? null,
    /** The public keys in force: as registered, or as last fetched from jwks_uri (null before a first fetch). */
    jwks: definition.jwks ?? remote?.jwks ?? null,
    jwks_cache: remote
      ? { fetched_at: instant(remote.fetched_at), fresh_until: instant(remote.expires_at), fetches: remote.fetches, last_error: remote.last_error }
      : null,
    connector: connector
      ? {
          url: connector.baseUrl,
          callback_mode: connector.callbackMode,
          poll: connector.poll,
          poll_limit: connector.pollLimit,
          poll_status: connector.pollStatus,
          token_set: connector.staticToken !== null,
          token_url: connector.tokenUrl,
          token_client_id: connector.tokenUrl ? connector.tokenClientId : null,
          token_client_secret_set: connector.tokenClientSecret !== null,
          ...files,
        }
      : null,
    created_at: instant(client.origin.createdAt || null),
    updated_at: instant(client.origin.updatedAt || null),
    /** The client's test clock, or null while it runs on the Bank's wall time (section 3). */
    test_clock: testClock && { now: testClock.now, attached_at: testClock.attached_at },
  };
}

/** The Bank's base URL as the caller reached it (the examples run against it). */
function bankUrl(req: Request, config: BankConfig): string {
  const host = req.get('host');
  return host ? `${req.protocol}://${host}` : `http://localhost:${config.port}`;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The token request as curl, and the .env lines of the reference Connector (src/connector/config.ts). */
export function registrationExamples(registration: Registration, baseUrl: string, config: BankConfig) {
  const { client } = registration;
  const id = client.id;
  const tokenCurl = `curl -sS -u ${shellQuote(`${id}:${registration.clientSecret}`)} -d grant_type=client_credentials ${baseUrl}/oauth/token`;
  const statusUrl = new URL(baseUrl);
  if (statusUrl.protocol === 'http:') {
    statusUrl.protocol = 'https:';
    statusUrl.port = String(config.httpsPort);
  }
  const hasCertificate = !('unavailable' in registration.certificate);
  const lines = [
    `# The reference Connector (npm run connector) as ${id}. Save client_id, client_secret and ${registration.privateJwk ? 'private_jwk' : 'your own private_jwk (this registration used your keys)'}`,
    `# of this answer as ${id}.credentials.json${hasCertificate ? `, and certificate_pem, certificate_key_pem and ca_pem as ${id}.crt, ${id}.key and sandbox-ca.crt` : ''}.`,
    `BANK_URL=${baseUrl}`,
    `BANK_STATUS_URL=${statusUrl.origin}`,
    `BANK_CLIENT_ID=${config.bankClientId}`,
    `CREDENTIALS_FILE=./${id}.credentials.json`,
  ];
  if (hasCertificate) lines.push(`CONNECTOR_TLS_CERT=./${id}.crt`, `CONNECTOR_TLS_KEY=./${id}.key`, 'CONNECTOR_TLS_CA=./sandbox-ca.crt');
  const connectorUrl = client.definition.connector_base_url;
  if (connectorUrl) {
    const url = new URL(connectorUrl);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    lines.push(`CONNECTOR_PORT=${port}`);
  }
  const token = (client.definition.connector as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string') lines.push(`PULL_TOKEN=${token}`);
  return { token_curl: tokenCurl, connector_env: lines.join('\n') + '\n' };
}

function createdBody(registration: Registration, baseUrl: string, config: BankConfig) {
  const { certificate } = registration;
  const issued = 'unavailable' in certificate ? null : certificate;
  return {
    client_id: registration.client.id,
    client_secret: registration.clientSecret,
    ...(registration.privateJwk ? { private_jwk: registration.privateJwk } : {}),
    certificate_pem: issued?.certificatePem ?? null,
    certificate_key_pem: issued?.keyPem ?? null,
    ca_pem: issued?.caPem ?? null,
    ...('unavailable' in certificate ? { certificate_unavailable: certificate.unavailable } : {}),
    ...(registration.apiKey ? { api_key: registration.apiKey } : {}),
    examples: registrationExamples(registration, baseUrl, config),
  };
}

type ClientPosition = [number, string];
const isPosition = (value: unknown): value is ClientPosition =>
  Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string';

/** Newest first: created_at descending, then client_id descending. */
function newerFirst(a: RegisteredClient, b: RegisteredClient): number {
  return b.origin.createdAt - a.origin.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function after(position: ClientPosition | null) {
  return (client: RegisteredClient) =>
    position === null || client.origin.createdAt < position[0] || (client.origin.createdAt === position[0] && client.id < position[1]);
}

export const clientsArea: ControlArea = (router, deps) => {
  const registrations: ClientRegistrations = deps.clients;
  const view = (client: RegisteredClient) => clientView(client, deps.connectors, deps.testClocks.view(client.id) ?? null);

  router.post('/clients', async (req, res) => {
    parseQuery(req, {});
    const registration = await registrations.register(controlBody<RegistrationRequest>(req, 'client-create'), requestLog(deps.logger, res));
    res.status(201).setHeader('Location', `${req.baseUrl}/clients/${encodeURIComponent(registration.client.id)}`);
    res.setHeader('Cache-Control', 'no-store');
    res.json(createdBody(registration, bankUrl(req, deps.config), deps.config));
  });

  router.get('/clients', (req, res) => {
    const query = parseQuery(req, LIST_QUERY);
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const position = decodeCursor(query.cursor, isPosition);
    const rows = registrations.list().sort(newerFirst).filter(after(position)).slice(0, limit + 1);
    res.json(listPage(rows, limit, view, (client) => [client.origin.createdAt, client.id]));
  });

  router.get('/clients/:clientId', (req, res) => {
    parseQuery(req, {});
    res.json(view(registrations.get(req.params.clientId)));
  });

  router.patch('/clients/:clientId', async (req, res) => {
    parseQuery(req, {});
    registrations.get(req.params.clientId); // 404 before the body is judged
    const changed = await registrations.change(req.params.clientId, controlBody<ChangeRequest>(req, 'client-patch'), requestLog(deps.logger, res));
    res.json(view(changed));
  });

  router.delete('/clients/:clientId', async (req, res) => {
    parseQuery(req, {});
    res.json(await registrations.remove(req.params.clientId, requestLog(deps.logger, res)));
  });
};
