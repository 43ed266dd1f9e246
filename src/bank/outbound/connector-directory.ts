// The Connectors the Bank calls, by client id: one signed HTTP client each, changed at run time when a client is
// registered, patched or deleted (control plane), and paused or resumed without losing queued work.
import { ConnectorClient, OutboundIdentity } from './connector-client';
import { ConnectorSettings } from './connectors';

export class ConnectorDirectory {
  private readonly clients = new Map<string, ConnectorClient>();
  private readonly paused = new Set<string>();
  /** Clients whose normal pull waits: a conformance run is pulling from their Connector. */
  private readonly heldByRuns = new Set<string>();
  private readonly changeListeners: (() => void)[] = [];

  constructor(
    private readonly identity: OutboundIdentity,
    private readonly timeoutMs: number,
    private readonly maxSockets: number,
    settings: readonly ConnectorSettings[] = [],
  ) {
    for (const one of settings) this.clients.set(one.clientId, this.clientFor(one));
  }

  /** Told after a Connector is added, changed or removed (the pull schedule may have to start). */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /** Adds or replaces a client's Connector; the replaced one's sockets close once its requests under way end. */
  upsert(settings: ConnectorSettings): void {
    this.clients.get(settings.clientId)?.retire();
    this.clients.set(settings.clientId, this.clientFor(settings));
    this.changed();
  }

  remove(clientId: string): void {
    this.clients.get(clientId)?.retire();
    this.clients.delete(clientId);
    this.paused.delete(clientId);
    this.changed();
  }

  get(clientId: string): ConnectorClient | undefined {
    return this.clients.get(clientId);
  }

  /** Whether the client has a Connector to call back: only those get outgoing messages. */
  has(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  all(): ConnectorClient[] {
    return [...this.clients.values()];
  }

  /** The Connectors pulled from and called back now (paused ones wait). */
  active(): ConnectorClient[] {
    return this.all().filter((connector) => !this.paused.has(connector.settings.clientId));
  }

  /** The Connectors the poller pulls from now: active, pulling, and not held by a conformance run. */
  pullable(): ConnectorClient[] {
    return this.active().filter((connector) => connector.settings.poll && !this.heldByRuns.has(connector.settings.clientId));
  }

  /** Whether a conformance run holds this client's pulls. */
  pullsHeld(clientId: string): boolean {
    return this.heldByRuns.has(clientId);
  }

  holdPulls(clientId: string, held: boolean): void {
    if (held) this.heldByRuns.add(clientId);
    else this.heldByRuns.delete(clientId);
  }

  setPaused(clientId: string, paused: boolean): void {
    if (paused) this.paused.add(clientId);
    else this.paused.delete(clientId);
  }

  isPaused(clientId: string): boolean {
    return this.paused.has(clientId);
  }

  close(): void {
    for (const connector of this.clients.values()) connector.close();
  }

  private clientFor(settings: ConnectorSettings): ConnectorClient {
    return new ConnectorClient(settings, this.identity, this.timeoutMs, this.maxSockets);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }
}
