// A Bank and a reference Connector pointed at each other on real ports, the Connector's reverse poller running
// fast enough to show its backoff within a short window, for conformance runs end to end.
import path from 'node:path';
import request from 'supertest';
import { Bank, BankOptions } from '../../src/bank/bank';
import { BankConfig } from '../../src/bank/config';
import { ConformanceRun } from '../../src/bank/conformance/model';
import { loadConnectorConfig } from '../../src/connector/config';
import { connectorLogger, ReferenceConnector, startReferenceConnector } from '../../src/connector/connector';
import { closePair, CREDENTIALS, lateBoundServer } from '../connector/helpers';
import { ROOT, startBank, tempDir } from '../helpers/bank';

export const CONFORMANCE_FIXTURE = path.join(ROOT, 'fixtures/conformance-connector-orders.json');

export interface RunPair {
  bank: Bank;
  /** The Bank's listener (a real port: the CLI and the Connector call it). */
  bankUrl: string;
  connector: ReferenceConnector;
  close(): Promise<void>;
}

export async function startRunPair(connectorEnv: Record<string, string> = {}, bankOverrides: Partial<BankConfig> = {}, bankOptions: BankOptions = {}): Promise<RunPair> {
  const bankServer = await lateBoundServer();
  const config = loadConnectorConfig({
    CONNECTOR_PORT: '0',
    CONNECTOR_HOST: '127.0.0.1',
    CONNECTOR_DATA_DIR: tempDir('conformance-connector-'),
    CREDENTIALS_FILE: CREDENTIALS,
    ORDERS_FIXTURE: CONFORMANCE_FIXTURE,
    BANK_URL: bankServer.url,
    POLL_INITIAL_MS: '250',
    // Intervals of 0.75, 2.25 and 4 s: client.polls_with_backoff allows an interval 10 % + 50 ms shorter than the one
    // before, and at a factor of 2 a pause of ~0.5 s of this process (the Bank, the Connector and the run share
    // it) between two polls was enough to fail it; at 3 it takes ~1.2 s, and 4 polls still fall in the 8 s window.
    POLL_FACTOR: '3',
    POLL_MAX_MS: '4000',
    CREATE_RETRY_INITIAL_MS: '200',
    ...connectorEnv,
  });
  const connector = await startReferenceConnector(config, { logger: connectorLogger('error', true) });
  const bank = await startBank({ sandboxMode: 'relaxed', connectorUrl: connector.url, connectorToken: 'demo-pull-token', pollCron: 'off', retryScheduleS: [0.05], batchWindowMs: 0, ...bankOverrides }, bankOptions);
  bankServer.bind(bank.app);
  return { bank, bankUrl: bankServer.url, connector, close: closePair(bank, connector, bankServer.server, 1000) };
}

/** Starts a run through the API, pushes the client orders through the Connector as its own, and waits for the end. */
export async function runConformance(pair: RunPair, body: Record<string, unknown> = {}): Promise<ConformanceRun> {
  const started = await request(pair.bank.app).post('/sandbox/conformance-runs').send({ client_id: 'demo-connector', window_s: 8, ...body });
  if (started.status !== 202) throw new Error(`the run did not start: ${started.status} ${JSON.stringify(started.body)}`);
  const orders = started.body.client_orders as { order: { reference: string; initiated_at: string } }[];
  await Promise.all(orders.map(({ order }) => pair.connector.bankClient.createOrder(order)));
  const run = await pair.bank.conformance.finished(started.body.id);
  if (!run) throw new Error('the run disappeared');
  return run;
}

/** "verdict id: seen (reason)" for every case that did not pass, to read in a failed expectation. */
export function notPassed(run: ConformanceRun): string[] {
  return run.results.filter((result) => result.verdict !== 'PASSED').map((result) => `${result.verdict} ${result.id}: ${result.seen}${result.reason ? ` (${result.reason})` : ''}`);
}
