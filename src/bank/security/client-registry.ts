// The Connectors the Bank knows, with their verification keys turned into KeyObjects once. Loaded at start from
// the clients file and the store, and changed at run time by the control plane (add, replace, remove): every
// request reads the registry as it is at that moment, so a change takes effect with the next request.
import type { KeyObject } from 'node:crypto';
import { JwsAlg } from '../../wire/algorithms';
import { Jwks, KeySet } from '../../wire/keys';
import { RemoteJwks } from './remote-jwks';

export type AuthMethod = 'bearer' | 'dpop' | 'api_key';

export interface ClientDefinition {
  client_id: string;
  name?: string;
  /** The client's public keys; or, instead, `jwks_uri` (registered at run time): where the Bank fetches them. */
  jwks?: Jwks;
  jwks_uri?: string;
  client_secret_hash: string;
  api_key_hash?: string;
  auth_methods: AuthMethod[];
  connector_base_url?: string;
  connector?: Record<string, unknown>;
}

/** Where a client came from: the clients file, or a registration through /sandbox/clients. */
export type ClientSource = 'file' | 'runtime';

export interface ClientOrigin {
  source: ClientSource;
  /** Changed through /sandbox since it was read from the file (a file client), or registered there. */
  changedAtRuntime: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface RegisteredClient {
  id: string;
  definition: ClientDefinition;
  /** The keys given inline (empty for a `jwks_uri` client: see `remoteKeys`). */
  keys: KeySet;
  /** For a `jwks_uri` client: its fetched and cached key set. */
  remoteKeys?: RemoteJwks;
  authMethods: ReadonlySet<AuthMethod>;
  origin: ClientOrigin;
}

/** Makes the cache of a `jwks_uri` client's key set (the Bank wires the fetcher, the TTL and the clock). */
export type RemoteJwksFactory = (clientId: string, url: string) => RemoteJwks;

const EMPTY_KEYS = new KeySet({ keys: [] });
const FILE_ORIGIN: ClientOrigin = { source: 'file', changedAtRuntime: false, createdAt: 0, updatedAt: 0 };

/**
 * The signer's key for kid and alg: at once from an inline JWKS or a fresh cache, or (a `jwks_uri` client whose
 * cache is stale or lacks the kid) a Promise of the key after one fetch. null: no such key.
 */
export function findClientKey(client: RegisteredClient, kid: string, alg: JwsAlg): KeyObject | null | Promise<KeyObject | null> {
  return client.remoteKeys ? client.remoteKeys.lookup(kid, alg) : client.keys.find(kid, alg);
}

export class ClientRegistry {
  private readonly clients = new Map<string, RegisteredClient>();

  constructor(
    definitions: readonly ClientDefinition[],
    private readonly remoteJwks?: RemoteJwksFactory,
  ) {
    for (const definition of definitions) {
      if (this.clients.has(definition.client_id)) throw new Error(`client ${definition.client_id} is declared twice`);
      this.put(this.build(definition, FILE_ORIGIN));
    }
  }

  /** A registered client from a definition; throws an Error naming the client when its keys are unusable. */
  build(definition: ClientDefinition, origin: ClientOrigin): RegisteredClient {
    let keys = EMPTY_KEYS;
    let remoteKeys: RemoteJwks | undefined;
    try {
      if (definition.jwks_uri !== undefined) {
        if (!this.remoteJwks) throw new Error('jwks_uri is not supported by this registry');
        remoteKeys = this.remoteJwks(definition.client_id, definition.jwks_uri);
      } else if (definition.jwks !== undefined) {
        keys = new KeySet(definition.jwks);
      } else {
        throw new Error('needs jwks or jwks_uri');
      }
    } catch (error) {
      throw new Error(`client ${definition.client_id}: ${(error as Error).message}`);
    }
    return { id: definition.client_id, definition, keys, remoteKeys, authMethods: new Set(definition.auth_methods), origin };
  }

  /** Adds a client, or replaces the one with its id. */
  put(client: RegisteredClient): void {
    this.clients.set(client.id, client);
  }

  /** Removes a client; false when none had that id. */
  remove(clientId: string): boolean {
    return this.clients.delete(clientId);
  }

  find(clientId: string): RegisteredClient | undefined {
    return this.clients.get(clientId);
  }

  all(): RegisteredClient[] {
    return [...this.clients.values()];
  }
}
