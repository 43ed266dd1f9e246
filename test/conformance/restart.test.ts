// A restart during a run (conformance.md section 1): the Bank that starts again on the same data dir marks the run
// that was going on `aborted` with a clear error, keeps the cases it had finished, and lets the client run again.
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { BankConfig } from '../../src/bank/config';
import { startBank, tempDir } from '../helpers/bank';
import { waitFor } from '../helpers/outbound';
import { acceptsAnything, hangs, HostileConnector, httpConnector } from './hostile-connectors';

jest.setTimeout(60_000);

const PULL_CASES = ['pull.signed_request_accepted', 'pull.unsigned_rejected'];

let connector: HostileConnector;
const banks: Bank[] = [];

afterAll(async () => {
  for (const bank of banks) {
    await bank.outbound.stop(0);
    bank.close();
  }
  await connector.close();
});

async function bankOn(dataDir: string, connectorUrl: string): Promise<Bank> {
  // A deadline far beyond the test: the run is still waiting on its Connector when the Bank goes away.
  const settings: Partial<BankConfig> = { dataDir, sandboxMode: 'relaxed', pollCron: 'off', connectorUrl, connectorToken: 'pull-token', conformanceExchangeTimeoutMs: 30_000 };
  const bank = await startBank(settings);
  banks.push(bank);
  return bank;
}

it('a Bank started on the data dir of one that stopped mid-run marks the run aborted, with the cases it had finished', async () => {
  // Answers the two discovery pulls (a page, then nothing new) and the first case, then never again: the second
  // case is in flight when the Bank stops.
  connector = await httpConnector((req, res) => (connector.hits <= 3 ? acceptsAnything(req, res) : hangs(req, res)));
  const dataDir = tempDir('conformance-restart-');
  const first = await bankOn(dataDir, connector.url);
  const started = await request(first.app).post('/sandbox/conformance-runs').send({ client_id: 'demo-connector', cases: PULL_CASES });
  expect(started.status).toBe(202);
  const runPath = `/sandbox/conformance-runs/${started.body.id}`;
  await waitFor(() => connector.hits === 4, 20_000, 'the second case to reach the Connector');
  const during = await request(first.app).get(runPath);
  expect(during.body).toMatchObject({ state: 'running', finished_at: null });
  expect(during.body.results.map((result: { id: string }) => result.id)).toEqual(['pull.signed_request_accepted']);

  // The Bank goes away mid-run, as a process that ends would; a second one opens the same store.
  await first.outbound.stop(0);
  first.close();
  const second = await bankOn(dataDir, connector.url);

  const after = await request(second.app).get(runPath);
  expect(after.status).toBe(200);
  expect(after.body).toMatchObject({ id: started.body.id, client_id: 'demo-connector', state: 'aborted', error: 'the Bank stopped during the run' });
  expect(after.body.finished_at).not.toBeNull();
  expect(after.body.results.map((result: { id: string; verdict: string }) => [result.id, result.verdict])).toEqual([['pull.signed_request_accepted', 'PASSED']]);
  // The reports say the run was cut short.
  const junit = await request(second.app).get(`${runPath}/junit.xml`);
  expect(junit.text).toContain('the Bank stopped during the run');

  // The client is free again: its pulls are not held, and a new run starts (no 409 from the aborted one).
  expect(second.outbound.connectors.pullable().map((one) => one.settings.clientId)).toContain('demo-connector');
  const again = await request(second.app).post('/sandbox/conformance-runs').send({ client_id: 'demo-connector', cases: ['pull.unsigned_rejected'] });
  expect(again.status).toBe(202);

  // The first Bank's run learns nothing more once its store is closed, and ends without a word to it.
  await connector.close();
  await expect(first.conformance.finished(started.body.id)).resolves.toBeUndefined();
  const secondRun = await second.conformance.finished(again.body.id);
  expect(secondRun?.state).toBe('aborted');
  expect((await request(second.app).get(runPath)).body.state).toBe('aborted');
  // An aborted run is deleted like a finished one.
  expect((await request(second.app).delete(runPath)).status).toBe(200);
});
