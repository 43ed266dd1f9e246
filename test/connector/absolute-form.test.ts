// The reference Connector verifies the Bank's signature over the path and query also when the Bank's request
// target is in absolute form (RFC 9112 section 3.2.2; wire/http-edge.ts, originForm).
import { Bank } from '../../src/bank/bank';
import { ManualClock } from '../../src/wire/clock';
import { ReferenceConnector } from '../../src/connector/connector';
import { startBank } from '../helpers/bank';
import { rawRequest } from '../helpers/wire';
import { bankSignedHeaders, lateBoundServer, startConnector, unreachableUrl } from './helpers';

const clock = new ManualClock(Date.now());
let bank: Bank;
let connector: ReferenceConnector;
let closeBankServer: () => Promise<void>;

beforeAll(async () => {
  const bankServer = await lateBoundServer();
  bank = await startBank({ sandboxMode: 'relaxed', connectorUrl: await unreachableUrl(), pollCron: 'off' }, { clock });
  bankServer.bind(bank.app);
  closeBankServer = async () => {
    bankServer.server.closeAllConnections();
    await new Promise((resolve) => bankServer.server.close(resolve));
  };
  connector = await startConnector(bankServer.url, {}, clock);
});

afterAll(async () => {
  await connector.close();
  await bank.outbound.stop(100);
  bank.close();
  await closeBankServer();
});

it('a pull signed over its path and sent in absolute form verifies', async () => {
  const target = '/payment-orders?status=READY&limit=1&offset=1970-01-01T00%3A00%3A00Z';
  const headers = { ...bankSignedHeaders(bank.signer, 'pull', 'GET', target, '', clock), authorization: 'Bearer demo-pull-token' };
  const answer = await rawRequest(connector.app, { method: 'GET', path: `http://127.0.0.1:9${target}`, headers });
  expect([answer.status, answer.status === 200 ? 'ok' : answer.text]).toEqual([200, 'ok']);
});
