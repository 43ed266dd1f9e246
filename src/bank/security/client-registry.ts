// The Connectors the Bank knows, with their verification keys turned into KeyObjects once.
import { Jwks, KeySet } from '../../wire/keys';

export type AuthMethod = 'bearer' | 'dpop' | 'api_key';

export interface ClientDefinition {
  client_id: string;
  name?: string;
  jwks: Jwks;
  client_secret_hash: string;
  api_key_hash?: string;
  auth_methods: AuthMethod[];
  connector_base_url?: string;
  connector?: Record<string, unknown>;
}

export interface RegisteredClient {
  id: string;
  definition: ClientDefinition;
  keys: KeySet;
  authMethods: ReadonlySet<AuthMethod>;
}

export class ClientRegistry {
  private readonly clients = new Map<string, RegisteredClient>();

  constructor(definitions: readonly ClientDefinition[]) {
    for (const definition of definitions) {
      if (this.clients.has(definition.client_id)) throw new Error(`client ${definition.client_id} is declared twice`);
      let keys: KeySet;
      try {
        keys = new KeySet(definition.jwks);
      } catch (error) {
        throw new Error(`client ${definition.client_id}: ${(error as Error).message}`);
      }
      this.clients.set(definition.client_id, { id: definition.client_id, definition, keys, authMethods: new Set(definition.auth_methods) });
    }
  }

  find(clientId: string): RegisteredClient | undefined {
    return this.clients.get(clientId);
  }

  all(): RegisteredClient[] {
    return [...this.clients.values()];
  }
}
