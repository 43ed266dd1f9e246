// Clients at run time (control-plane.md section 1): register, change and delete a client without editing a file
// or restarting. A change is stored first, then put in force at once: the registry (the next request sees it)
// and the Connector directory (the next pull or callback uses it). The store keeps the precedence between the
// clients file and run-time changes (store/clients.ts).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import { Clock } from '../../wire/clock';
import { Jwks, jwkThumbprint, PublicJwk } from '../../wire/keys';
import { ProblemError, Violation } from '../../wire/problems';
import { hashSecret } from '../../wire/secrets';
import { BankConfig } from '../config';
import { ConnectorDirectory } from '../outbound/connector-directory';
import { connectorSettingsOf, ConnectorTls, overriddenClient } from '../outbound/connectors';
import { parseJwks } from '../outbound/jwks-fetcher';
import { ClientCertificates, IssuedCertificate, NoCertificate } from '../security/client-certificates';
import { AuthMethod, ClientDefinition, ClientRegistry, RegisteredClient } from '../security/client-registry';
import { ClientRepository, FileMerge, StoredClient } from '../store/clients';

/** The `connector` block of a request: `url` is the Connector's base URL; null (PATCH) removes a member. */
export interface ConnectorInput {
  url?: string | null;
  callback_mode?: 'unit' | 'batch' | 'auto' | null;
  poll?: boolean | null;
  poll_limit?: number | null;
  poll_status?: 'READY' | 'INITIATED' | 'PENDING' | null;
  token?: string | null;
  token_url?: string | null;
  token_client_id?: string | null;
  token_client_secret?: string | null;
}

/** POST /sandbox/clients (schemas/control/client-create.schema.json). */
export interface RegistrationRequest {
  client_id?: string;
  name?: string;
  auth_methods?: AuthMethod[];
  connector?: ConnectorInput;
  jwks?: Jwks;
  jwks_uri?: string;
}

/** PATCH /sandbox/clients/{id} (schemas/control/client-patch.schema.json): absent members stay as they are. */
export interface ChangeRequest {
  name?: string | null;
  auth_methods?: AuthMethod[];
  connector?: ConnectorInput | null;
  jwks?: Jwks;
  jwks_uri?: string;
}

/** What a registration answers once: the secrets exist nowhere else in clear. */
export interface Registration {
  client: RegisteredClient;
  clientSecret: string;
  apiKey: string | null;
  /** The generated signing key, when the request brought no keys. */
  privateJwk: PublicJwk | null;
  certificate: IssuedCertificate | NoCertificate;
}

export interface Removal {
  client_id: string;
  removed: { registration: true; connector: boolean };
  /** Orders of the client, kept and still readable. */
  orders_kept: number;
}

export interface ClientRegistrationDeps {
  config: BankConfig;
  registry: ClientRegistry;
  repository: ClientRepository;
  connectors: ConnectorDirectory;
  /** The TLS material callbacks use by default (the dev PKI's, or the external files). */
  connectorTls: ConnectorTls;
  certificates: ClientCertificates;
  /** Why a jwks_uri will not be fetched at all (scheme, relaxed mode), or null. */
  jwksUriRefusal: (url: string) => string | null;
  clock: Clock;
  logger: Logger;
  /** A deleted client's fault profile goes with it (conformance.md section 4). */
  faults?: { clear(clientId: string): boolean };
  /**
   * So does its test clock: nobody can reach it any more (the clock routes need a registered client), and a clock
   * left attached held the client's orders and idempotency records forever, in every settlement tick's query.
   */
  testClocks?: { detach(clientId: string): Promise<unknown> };
  /** And its pause: an id registered again starts unpaused, after a restart too. */
  pauses?: { resume(clientId: string): void };
}

const DEFAULT_AUTH_METHODS: AuthMethod[] = ['bearer', 'dpop'];
/** Members of the request's connector block stored as they are (url is stored as connector_base_url). */
const BLOCK_MEMBERS = ['callback_mode', 'poll', 'poll_limit', 'poll_status', 'token', 'token_url', 'token_client_id', 'token_client_secret'] as const;

function bodyInvalid(errors: Violation[]): ProblemError {
  return new ProblemError('body_invalid', errors.map((error) => `${error.path}: ${error.message}`).join('; '), { errors });
}

function notFound(clientId: string): ProblemError {
  return new ProblemError('not_found', `no client "${clientId}" is registered`);
}

function secret(): string {
  return randomBytes(32).toString('base64url');
}

/** An ES256 key pair as a private JWK, kid = its RFC 7638 thumbprint. */
export function generateClientJwk(): PublicJwk {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' }) as PublicJwk;
  return { ...jwk, kid: jwkThumbprint(jwk), alg: 'ES256', use: 'sig' };
}

function publicHalf(jwk: PublicJwk): PublicJwk {
  const { d: _private, ...rest } = jwk;
  return rest;
}

/** An inline key set that verifies: public keys only, each with a kid, each usable. */
function checkedJwks(jwks: Jwks): Jwks {
  try {
    return parseJwks(JSON.stringify(jwks));
  } catch (error) {
    throw bodyInvalid([{ path: '/jwks', message: (error as Error).message }]);
  }
}

/**
 * Applies a connector block (RFC 7396 merge patch for PATCH: null removes a member) to a definition. Setting
 * `token` drops a `token_url` and the reverse, unless both are given (which the schema refuses).
 */
function applyConnector(definition: ClientDefinition, input: ConnectorInput | null | undefined): void {
  if (input === undefined) return;
  if (input === null) {
    delete definition.connector_base_url;
    delete definition.connector;
    return;
  }
  const block: Record<string, unknown> = { ...(definition.connector ?? {}) };
  if (input.token !== undefined && input.token !== null) delete block.token_url;
  if (input.token_url !== undefined && input.token_url !== null) delete block.token;
  for (const member of BLOCK_MEMBERS) {
    const value = input[member];
    if (value === undefined) continue;
    if (value === null) delete block[member];
    else block[member] = value;
  }
  if (input.url === null) delete definition.connector_base_url;
  else if (input.url !== undefined) definition.connector_base_url = input.url;
  if (Object.keys(block).length > 0) definition.connector = block;
  else delete definition.connector;
  if (definition.connector && !definition.connector_base_url) {
    throw bodyInvalid([{ path: '/connector/url', message: 'is required: connector settings need the Connector base URL' }]);
  }
}

/** What the schemas cannot say clearly: members that exclude each other. */
function checkExclusive(request: { jwks?: unknown; jwks_uri?: unknown; connector?: ConnectorInput | null }): void {
  const errors: Violation[] = [];
  if (request.jwks !== undefined && request.jwks_uri !== undefined) errors.push({ path: '/jwks_uri', message: 'give jwks or jwks_uri, not both' });
  const { connector } = request;
  if (connector && connector.token != null && connector.token_url != null) errors.push({ path: '/connector/token_url', message: 'give token or token_url, not both' });
  if (errors.length > 0) throw bodyInvalid(errors);
}

/**
 * Puts the clients in force at start (the file merged with the store's run-time changes) into the registry that
 * the file alone built: a file client deleted at run time leaves it, the rest are put with their origin.
 */
export function putStoredClients(registry: ClientRegistry, merge: FileMerge, logger: Logger): void {
  const inForce = new Set(merge.clients.map((client) => client.definition.client_id));
  for (const client of registry.all()) if (!inForce.has(client.id)) registry.remove(client.id);
  for (const stored of merge.clients) {
    const origin = { source: stored.source, changedAtRuntime: stored.changedAtRuntime, createdAt: stored.createdAt, updatedAt: stored.updatedAt };
    registry.put(registry.build(stored.definition, origin));
  }
  if (merge.runtimeKept.length > 0) logger.info('clients changed at run time keep their changes (their entry in the clients file is unchanged)', { clients: merge.runtimeKept });
  if (merge.fileWon.length > 0) logger.warn('the clients file changed these clients: their run-time changes are dropped', { clients: merge.fileWon });
}

export class ClientRegistrations {
  /** One write at a time per client id (a registration and a change both wait for a fetch or a certificate). */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ClientRegistrationDeps) {}

  list(): RegisteredClient[] {
    return this.deps.registry.all();
  }

  get(clientId: string): RegisteredClient {
    const client = this.deps.registry.find(clientId);
    if (!client) throw notFound(clientId);
    return client;
  }

  /** Whether CONNECTOR_URL replaces this client's Connector URL. */
  isOverridden(client: RegisteredClient): boolean {
    return overriddenClient(this.deps.registry) === client;
  }

  /** `log`: the request's logger, so that the line carries its request_id. */
  register(request: RegistrationRequest, log: Logger = this.deps.logger): Promise<Registration> {
    checkExclusive(request);
    const clientId = request.client_id ?? `client-${randomBytes(4).toString('hex')}`;
    return this.exclusive(clientId, async () => {
      if (this.deps.registry.find(clientId) || this.deps.repository.exists(clientId)) {
        throw new ProblemError('client_exists', `a client "${clientId}" is registered already; PATCH /sandbox/clients/${clientId} changes it`);
      }
      const clientSecret = secret();
      const authMethods = request.auth_methods ?? DEFAULT_AUTH_METHODS;
      const apiKey = authMethods.includes('api_key') ? secret() : null;
      const privateJwk = request.jwks || request.jwks_uri ? null : generateClientJwk();
      const definition: ClientDefinition = {
        client_id: clientId,
        name: request.name ?? clientId,
        client_secret_hash: hashSecret(clientSecret),
        ...(apiKey ? { api_key_hash: hashSecret(apiKey) } : {}),
        auth_methods: authMethods,
      };
      if (request.jwks_uri !== undefined) definition.jwks_uri = request.jwks_uri;
      else definition.jwks = request.jwks ? checkedJwks(request.jwks) : { keys: [publicHalf(privateJwk as PublicJwk)] };
      applyConnector(definition, request.connector);
      const now = this.deps.clock.now();
      const client = await this.inForce(definition, { source: 'runtime', changedAtRuntime: true, createdAt: now, updatedAt: now }, null);
      const certificate = await this.deps.certificates.issue(clientId);
      this.commit(client, this.deps.repository.register(definition, now));
      log.info('client registered at run time', { client_id: clientId, auth_methods: authMethods, jwks_uri: definition.jwks_uri, connector_url: definition.connector_base_url });
      return { client: this.deps.registry.find(clientId) as RegisteredClient, clientSecret, apiKey, privateJwk, certificate };
    });
  }

  change(clientId: string, request: ChangeRequest, log: Logger = this.deps.logger): Promise<RegisteredClient> {
    checkExclusive(request);
    return this.exclusive(clientId, async () => {
      const current = this.get(clientId);
      // CONNECTOR_URL stops applying once a client is changed at run time: the change keeps the URL it had in force.
      const baseline: ClientDefinition = structuredClone(current.definition);
      if (this.isOverridden(current) && this.deps.config.connectorUrl) baseline.connector_base_url = this.deps.config.connectorUrl;
      const definition: ClientDefinition = structuredClone(baseline);
      if (request.name !== undefined) definition.name = request.name ?? clientId;
      if (request.auth_methods !== undefined) {
        definition.auth_methods = request.auth_methods;
        if (request.auth_methods.includes('api_key') && !definition.api_key_hash) {
          throw bodyInvalid([{ path: '/auth_methods', message: 'api_key needs an API key, which only a registration issues: register the client again' }]);
        }
      }
      if (request.jwks !== undefined) {
        definition.jwks = checkedJwks(request.jwks);
        delete definition.jwks_uri;
      }
      if (request.jwks_uri !== undefined) {
        definition.jwks_uri = request.jwks_uri;
        delete definition.jwks;
      }
      applyConnector(definition, request.connector);
      if (JSON.stringify(definition) === JSON.stringify(baseline)) return current;
      const now = this.deps.clock.now();
      const keep = request.jwks === undefined && request.jwks_uri === undefined ? current : null;
      const client = await this.inForce(definition, { ...current.origin, changedAtRuntime: true, updatedAt: now }, keep);
      this.commit(client, this.deps.repository.update(definition, now), request.connector !== undefined || !current.origin.changedAtRuntime);
      log.info('client changed at run time', { client_id: clientId, members: Object.keys(request) });
      return this.deps.registry.find(clientId) as RegisteredClient;
    });
  }

  remove(clientId: string, log: Logger = this.deps.logger): Promise<Removal> {
    return this.exclusive(clientId, async () => {
      this.get(clientId);
      this.deps.repository.markDeleted(clientId, this.deps.clock.now());
      this.deps.registry.remove(clientId);
      const connector = this.deps.connectors.has(clientId);
      if (connector) this.deps.connectors.remove(clientId);
      this.deps.faults?.clear(clientId);
      this.deps.pauses?.resume(clientId);
      await this.deps.testClocks?.detach(clientId);
      const ordersKept = this.deps.repository.orderCount(clientId);
      log.info('client deleted at run time', { client_id: clientId, orders_kept: ordersKept });
      return { client_id: clientId, removed: { registration: true, connector }, orders_kept: ordersKept };
    });
  }

  /**
   * The registered client a definition makes, its keys checked; a `jwks_uri` is fetched now, so that a URL that
   * gives no usable key set is a 400 at registration rather than a signature_invalid later. `keep`: a client
   * whose key set cache carries over (its keys did not change).
   */
  private async inForce(definition: ClientDefinition, origin: RegisteredClient['origin'], keep: RegisteredClient | null): Promise<RegisteredClient> {
    if (definition.jwks_uri !== undefined && !keep?.remoteKeys) {
      const refused = this.deps.jwksUriRefusal(definition.jwks_uri);
      if (refused) throw bodyInvalid([{ path: '/jwks_uri', message: refused }]);
    }
    let client: RegisteredClient;
    try {
      client = this.deps.registry.build(definition, origin);
    } catch (error) {
      throw bodyInvalid([{ path: definition.jwks_uri ? '/jwks_uri' : '/jwks', message: (error as Error).message }]);
    }
    if (keep?.remoteKeys && definition.jwks_uri === keep.definition.jwks_uri) {
      client = { ...client, remoteKeys: keep.remoteKeys };
    } else if (client.remoteKeys) {
      try {
        await client.remoteKeys.load();
      } catch (error) {
        throw bodyInvalid([{ path: '/jwks_uri', message: `could not be used: ${(error as Error).message}` }]);
      }
      if ((client.remoteKeys.view().jwks?.keys.length ?? 0) === 0) throw bodyInvalid([{ path: '/jwks_uri', message: 'the key set it serves is empty' }]);
    }
    return client;
  }

  /** Puts a stored client in force: the registry at once, and its Connector (added, replaced or removed). */
  private commit(client: RegisteredClient, saved: StoredClient, connectorChanged = true): void {
    const inForce: RegisteredClient = { ...client, origin: { source: saved.source, changedAtRuntime: saved.changedAtRuntime, createdAt: saved.createdAt, updatedAt: saved.updatedAt } };
    this.deps.registry.put(inForce);
    if (!connectorChanged) return;
    const settings = connectorSettingsOf(this.deps.config, inForce, this.isOverridden(inForce), this.deps.connectorTls);
    if (settings) this.deps.connectors.upsert(settings);
    else if (this.deps.connectors.has(client.id)) this.deps.connectors.remove(client.id);
  }

  private exclusive<T>(clientId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(clientId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.locks.set(clientId, settled);
    void settled.then(() => {
      if (this.locks.get(clientId) === settled) this.locks.delete(clientId);
    });
    return next;
  }
}
