// Helpers for the reference Connector tests: a Bank on a real port (the app bound late, so the Bank and the
// Connector can each know the other's URL), a Connector pointed at it, and the Bank's own signing code.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import type express from 'express';
import { Bank } from '../../src/bank/bank';
import { BankConfig } from '../../src/bank/config';
import { Clock } from '../../src/wire/clock';
import { signDetached } from '../../src/wire/jws';
import { SigningKey } from '../../src/wire/keys';
import { SignedFlow, signatureBase } from '../../src/wire/signature-base';
import { ConnectorConfig, loadConnectorConfig } from '../../src/connector/config';
import { connectorLogger, ReferenceConnector, startReferenceConnector } from '../../src/connector/connector';
import { ROOT, startBank, tempDir, newNonce, isoNow } from '../helpers/bank';

export const FIXTURE = path.join(ROOT, 'fixtures/connector-orders.json');
export const CREDENTIALS = path.join(ROOT, 'fixtures/demo-connector/credentials.json');

/** An HTTP server whose app is set later: its URL is known before the Bank is created. `observe` sees each request first. */
export async function lateBoundServer(observe?: (req: http.IncomingMessage) => void): Promise<{ url: string; server: http.Server; bind(app: express.Express): void }> {
  let app: express.Express | null = null;
  const server = http.createServer((req, res) => {
    observe?.(req);
    if (!app) return void res.writeHead(503).end();
    app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, bind: (bound) => void (app = bound) };
}

/** A URL where nothing listens (a port just released). */
export async function unreachableUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

/** A Connector toward `bankUrl`, configured by `env` (as from the environment), then by `overrides` (as a config object). */
export async function startConnector(bankUrl: string, env: Record<string, string> = {}, clock?: Clock, overrides: Partial<ConnectorConfig> = {}): Promise<ReferenceConnector> {
  const config = loadConnectorConfig({
    CONNECTOR_PORT: '0',
    CONNECTOR_HOST: '127.0.0.1',
    CONNECTOR_DATA_DIR: tempDir('reference-connector-test-'),
    CREDENTIALS_FILE: CREDENTIALS,
    ORDERS_FIXTURE: FIXTURE,
    BANK_URL: bankUrl,
    ...env,
  });
  return startReferenceConnector({ ...config, ...overrides }, { clock, logger: connectorLogger('error', true), startPoller: false });
}

export interface Pair {
  bank: Bank;
  connector: ReferenceConnector;
  close(): Promise<void>;
}

/** A Connector and a relaxed-mode Bank pointed at each other, sharing one clock. */
export async function startPair(clock: Clock, bankOverrides: Partial<BankConfig> = {}, connectorEnv: Record<string, string> = {}): Promise<Pair> {
  const bankServer = await lateBoundServer();
  const connector = await startConnector(bankServer.url, connectorEnv, clock);
  const bank = await startBank(
    {
      sandboxMode: 'relaxed',
      connectorUrl: connector.url,
      connectorToken: 'demo-pull-token',
      pollCron: 'off',
      retryScheduleS: [0.05],
      batchWindowMs: 0,
      ...bankOverrides,
    },
    { clock },
  );
  bankServer.bind(bank.app);
  return { bank, connector, close: closePair(bank, connector, bankServer.server, 1000) };
}

/** Stops the Connector, then the Bank's outgoing side, store and listener. */
export function closePair(bank: Bank, connector: ReferenceConnector, server: http.Server, drainMs: number): () => Promise<void> {
  return async () => {
    await connector.close();
    await bank.outbound.stop(drainMs);
    bank.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}

/** Headers of a request signed the way the Bank signs pulls and callbacks (its own signature-base code). */
export function bankSignedHeaders(
  signer: SigningKey,
  flow: SignedFlow,
  method: string,
  target: string,
  body: string,
  clock: Clock,
  overrides: Record<string, string> = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    'x-client-id': 'sandbox-bank',
    'x-timestamp': isoNow(clock),
    'x-nonce': newNonce(),
    'x-idempotency-key': `key-${newNonce()}`,
    ...(flow === 'pull' ? { 'x-request-id': `req-${newNonce()}` } : {}),
    ...overrides,
  };
  const base = signatureBase(flow, { method, target, headers, body });
  headers['x-signature'] = signDetached(base, signer.privateKey, { alg: signer.alg, kid: signer.kid, typ: 'JOSE' });
  return headers;
}
