// An in-process fake Connector on a real socket. It serves the pull (inclusive offset cursor), receives unit and
// batch callbacks, and verifies every Bank signature with plain node:crypto against the Bank's published JWKS.
import { createHash, createPublicKey, KeyObject, verify } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  kind: 'unit' | 'batch';
  idempotencyKey: string;
  body: string;
  parsed: Record<string, unknown>;
  signatureOk: boolean;
  answeredWith: number;
  at: number;
}

export interface FinalRecord {
  status: string;
  key: string;
}

export type Behaviour = (kind: 'pull' | 'unit' | 'batch', key: string) => number | 'hang' | 'reset' | null;

const digest = (body: Buffer) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

export class FakeConnector {
  orders: Record<string, unknown>[] = [];
  readonly callbacks: ReceivedCallback[] = [];
  readonly pulls: { offset: string; limit: number; signatureOk: boolean; authorization?: string }[] = [];
  /** The body of the last page served (200). */
  lastPageBody: string | null = null;
  /** Final status per reference as this Connector applied it (first final wins; later different finals are conflicts). */
  readonly finals = new Map<string, FinalRecord>();
  readonly conflicts: string[] = [];
  /** Idempotency key -> body bytes first seen, to prove redeliveries reuse key and bytes. */
  readonly bodiesByKey = new Map<string, string>();
  readonly keyBodyMismatches: string[] = [];
  behaviour: Behaviour = () => null;
  /** Artificial latency per answer, to make a run long enough to be interrupted. */
  latencyMs = 0;
  /** The kind of each request as it arrives, before latencyMs: what is on the wire now. */
  readonly arrivals: ('pull' | 'batch' | 'unit')[] = [];
  private keys = new Map<string, KeyObject>();
  private server: http.Server | null = null;
  url = '';

  setJwks(jwks: { keys: (Record<string, unknown> & { kid: string })[] }): void {
    this.keys = new Map(jwks.keys.map((jwk) => [jwk.kid, createPublicKey({ key: jwk as never, format: 'jwk' })]));
  }

  /** Client certificate CN of each TLS request (HTTPS mode only). */
  readonly peerNames: (string | null)[] = [];

  /** Plain HTTP by default; with `tls`, HTTPS that requires a client certificate chained to `tls.ca`. */
  async start(tls?: { cert: Buffer; key: Buffer; ca: Buffer }): Promise<void> {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (tls) {
        const cert = (req.socket as TLSSocket).getPeerCertificate();
        this.peerNames.push(cert?.subject?.CN ? String(cert.subject.CN) : null);
      }
      void this.handle(req, res);
    };
    this.server = tls ? https.createServer({ ...tls, requestCert: true, rejectUnauthorized: true }, handler) : http.createServer(handler);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `${tls ? 'https://localhost' : 'http://127.0.0.1'}:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Verifies X-Signature over the profile's signature base, with the Bank's JWKS only. */
  verifySignature(req: http.IncomingMessage, body: Buffer, headerNames: string[]): boolean {
    const signature = req.headers['x-signature'];
    if (typeof signature !== 'string') return false;
    const [protectedB64, payload, sigB64] = signature.split('.');
    if (payload !== '' || !protectedB64 || !sigB64) return false;
    const header = JSON.parse(Buffer.from(protectedB64, 'base64url').toString('utf8')) as { alg: string; kid: string };
    const key = this.keys.get(header.kid);
    if (!key || header.alg !== 'ES256') return false;
    const lines = [`@method: ${req.method}`, `@target-uri: ${req.url}`];
    for (const name of headerNames) lines.push(`${name}: ${req.headers[name] ?? ''}`);
    lines.push(`content-digest: ${digest(body)}`);
    const input = `${protectedB64}.${Buffer.from(lines.join('\n')).toString('base64url')}`;
    return verify('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sigB64, 'base64url'));
  }

  private async readBody(req: http.IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/oauth/token') return this.issueToken(req, res, body);
    const key = String(req.headers['x-idempotency-key'] ?? '');
    const kind = url.pathname === '/payment-orders' ? 'pull' : url.pathname.endsWith('/batch') ? 'batch' : 'unit';
    this.arrivals.push(kind);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    const forced = this.behaviour(kind, key);
    if (forced === 'reset') {
      req.socket.destroy();
      return;
    }
    if (forced === 'hang') return;
    if (kind === 'pull') return this.servePull(req, res, url, body, forced);
    this.receiveCallback(req, res, kind, key, body, forced);
  }

  /** A client_credentials endpoint, so the Bank's token fetching can be tested. */
  readonly tokenRequests: { authorization?: string; body: string }[] = [];
  issuedToken = 'fake-connector-token';

  private issueToken(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    this.tokenRequests.push({ authorization: req.headers.authorization, body: body.toString('utf8') });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: this.issuedToken, token_type: 'Bearer', expires_in: 3600 }));
  }

  private servePull(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer, forced: number | null): void {
    const signatureOk = this.verifySignature(req, body, ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key']);
    const offset = url.searchParams.get('offset') ?? '';
    const limit = Number(url.searchParams.get('limit'));
    this.pulls.push({ offset, limit, signatureOk, authorization: req.headers.authorization });
    if (forced !== null) return void res.writeHead(forced).end();
    if (!signatureOk) return void res.writeHead(401).end();
    const matching = this.orders
      .filter((order) => Date.parse(order.initiated_at as string) >= Date.parse(offset))
      .sort((a, b) => Date.parse(a.initiated_at as string) - Date.parse(b.initiated_at as string) || String(a.reference).localeCompare(String(b.reference)));
    const content = matching.slice(0, limit);
    if (content.length === 0) return void res.writeHead(204).end();
    const page = JSON.stringify({ offset, limit, size: content.length, total_elements: matching.length, content });
    this.lastPageBody = page;
    res.writeHead(200, { 'content-type': 'application/json' }).end(page);
  }

  private receiveCallback(req: http.IncomingMessage, res: http.ServerResponse, kind: 'unit' | 'batch', key: string, body: Buffer, forced: number | null): void {
    const signatureOk = this.verifySignature(req, body, ['x-client-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key']);
    const text = body.toString('utf8');
    const previous = this.bodiesByKey.get(key);
    if (previous !== undefined && previous !== text) this.keyBodyMismatches.push(key);
    this.bodiesByKey.set(key, text);
    const status = forced ?? (signatureOk ? 200 : 401);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    this.callbacks.push({ kind, idempotencyKey: key, body: text, parsed, signatureOk, answeredWith: status, at: Date.now() });
    if (status === 200) {
      const items = kind === 'batch' ? (parsed.orders as Record<string, string>[]) : [parsed as Record<string, string>];
      for (const item of items) this.applyStatus(item, key);
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: status === 200 }));
  }

  private applyStatus(item: Record<string, string>, key: string): void {
    if (item.status !== 'SUCCESS' && item.status !== 'FAILED') return;
    const existing = this.finals.get(item.reference);
    if (!existing) this.finals.set(item.reference, { status: item.status, key });
    else if (existing.status !== item.status) this.conflicts.push(item.reference);
  }

  /** The status objects one callback carries: the unit body, or the batch's orders. */
  static itemsOf(callback: ReceivedCallback): Record<string, string>[] {
    return callback.kind === 'batch' ? (callback.parsed.orders as Record<string, string>[]) : [callback.parsed as Record<string, string>];
  }

  /** Statuses received in accepted (200) callbacks for one reference, in order. */
  statusesOf(reference: string): string[] {
    return this.callbacks
      .filter((callback) => callback.answeredWith === 200)
      .flatMap((callback) => FakeConnector.itemsOf(callback))
      .filter((item) => item.reference === reference)
      .map((item) => item.status);
  }

  /** `reference:STATUS` -> every idempotency key that carried it, however often it was sent. */
  keysByReport(): Map<string, Set<string>> {
    const keys = new Map<string, Set<string>>();
    for (const callback of this.callbacks) {
      for (const item of FakeConnector.itemsOf(callback)) {
        const report = `${item.reference}:${item.status}`;
        keys.set(report, (keys.get(report) ?? new Set()).add(callback.idempotencyKey));
      }
    }
    return keys;
  }
}
