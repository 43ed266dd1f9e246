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

/** The client CONNECTOR_URL overrides: demo-connector when registered, else the first client. */
export function overriddenClient(registry: ClientRegistry): RegisteredClient | undefined {
  return registry.find('demo-connector') ?? registry.all()[0];
}

export function connectorSettings(config: BankConfig, registry: ClientRegistry, defaultTls: ConnectorTls = {}): ConnectorSettings[] {
  const overridden = overriddenClient(registry);
  const settings: ConnectorSettings[] = [];
  for (const client of registry.all()) {
    const baseUrl = client === overridden && config.connectorUrl ? config.connectorUrl : client.definition.connector_base_url;
    if (!baseUrl) continue;
    const block = (client.definition.connector ?? {}) as ConnectorBlock;
    settings.push({
      clientId: client.id,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      poll: block.poll ?? true,
      pollStatus: block.poll_status ?? config.pollStatus,
      pollLimit: block.poll_limit ?? config.pollLimit,
      callbackMode: block.callback_mode ?? config.callbackMode,
      staticToken: block.token ?? config.connectorToken,
      tokenUrl: block.token_url ?? null,
      tokenClientId: block.token_client_id ?? config.bankClientId,
      tokenClientSecret: block.token_client_secret ?? null,
      tls: {
        ca: readOptional(block.ca_file) ?? defaultTls.ca,
        cert: readOptional(block.cert_file) ?? defaultTls.cert,
        key: readOptional(block.key_file) ?? defaultTls.key,
      },
    });
  }
  return settings;
}
