// Outgoing settings per Connector: the registry's connector block, then environment defaults.
import fs from 'node:fs';
import { BankConfig } from '../config';
import { ClientRegistry, RegisteredClient } from '../security/client-registry';
import { TlsMaterial } from '../../wire/signed-client';

export type CallbackMode = 'unit' | 'batch' | 'auto';

/** CA, client certificate and key toward a Connector's HTTPS server (the signed client's TLS material). */
export type ConnectorTls = TlsMaterial;

export interface ConnectorSettings {
  clientId: string;
  baseUrl: string;
  poll: boolean;
  pollStatus: string;
  pollLimit: number;
  callbackMode: CallbackMode;
  staticToken: string | null;
  tokenUrl: string | null;
  tokenClientId: string | null;
  tokenClientSecret: string | null;
  tls: ConnectorTls;
}

/** Per-client `connector` block of the registry (clients.schema.json). */
interface ConnectorBlock {
  poll?: boolean;
  poll_status?: string;
  poll_limit?: number;
  callback_mode?: CallbackMode;
  token?: string;
  token_url?: string;
  token_client_id?: string;
  token_client_secret?: string;
  ca_file?: string;
  cert_file?: string;
  key_file?: string;
}

function readOptional(file: string | undefined): Buffer | undefined {
  return file ? fs.readFileSync(file) : undefined;
}

/**
 * The client CONNECTOR_URL overrides: demo-connector when registered, else the first client. A client changed
 * through /sandbox/clients is not overridden: its stored definition is used as is (a PATCH that leaves the url
 * alone keeps the overridden url it had, see application/client-registrations).
 */
export function overriddenClient(registry: ClientRegistry): RegisteredClient | undefined {
  const target = registry.find('demo-connector') ?? registry.all().find((client) => client.origin.source === 'file');
  return target && !target.origin.changedAtRuntime ? target : undefined;
}

/** The client's Connector base URL: CONNECTOR_URL for the overridden client, else its own (null: none). */
export function connectorBaseUrl(config: BankConfig, client: RegisteredClient, overridden: boolean): string | null {
  const baseUrl = overridden && config.connectorUrl ? config.connectorUrl : client.definition.connector_base_url;
  return baseUrl ? baseUrl.replace(/\/+$/, '') : null;
}

/** One client's outgoing settings; null when it has no Connector to call. */
export function connectorSettingsOf(config: BankConfig, client: RegisteredClient, overridden: boolean, defaultTls: ConnectorTls = {}): ConnectorSettings | null {
  const baseUrl = connectorBaseUrl(config, client, overridden);
  if (!baseUrl) return null;
  const block = (client.definition.connector ?? {}) as ConnectorBlock;
  return {
    clientId: client.id,
    baseUrl,
    poll: block.poll ?? true,
    pollStatus: block.poll_status ?? config.pollStatus,
    pollLimit: block.poll_limit ?? config.pollLimit,
    callbackMode: block.callback_mode ?? config.callbackMode,
    // CONNECTOR_TOKEN is only for clients with neither token nor token_url of their own (docs/configuration.md).
    staticToken: block.token ?? (block.token_url ? null : config.connectorToken),
    tokenUrl: block.token_url ?? null,
    tokenClientId: block.token_client_id ?? config.bankClientId,
    tokenClientSecret: block.token_client_secret ?? null,
    tls: {
      ca: readOptional(block.ca_file) ?? defaultTls.ca,
      cert: readOptional(block.cert_file) ?? defaultTls.cert,
      key: readOptional(block.key_file) ?? defaultTls.key,
    },
  };
}

export function connectorSettings(config: BankConfig, registry: ClientRegistry, defaultTls: ConnectorTls = {}): ConnectorSettings[] {
  const overridden = overriddenClient(registry);
  const settings: ConnectorSettings[] = [];
  for (const client of registry.all()) {
    const one = connectorSettingsOf(config, client, client === overridden, defaultTls);
    if (one) settings.push(one);
  }
  return settings;
}
