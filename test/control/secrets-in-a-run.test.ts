// Issue 3/7, safety: after a full run (runtime registration, tokens by every method, creates, a pull, callbacks,
// refused requests, control-plane reads), no secret the run used appears in the logs, in the journal table or in
// any /sandbox answer after the registration's own.
import { Writable } from 'node:stream';
import request from 'supertest';
import winston from 'winston';
import { Bank } from '../../src/bank/bank';
import { demo, sampleOrder } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector, connectorOrder, drain } from '../helpers/outbound';
import { createAs, registerClient, sandbox, tokenFor } from './client-helpers';

const ADMIN = 'admin-token-of-the-secrets-run';

function capturingLogger(lines: string[]): winston.Logger {
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(chunk.toString()), done()) });
  return winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
}

let bank: Bank;
let fake: FakeConnector;
const logs: string[] = [];

beforeAll(async () => {
  ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', adminToken: ADMIN }, { logger: capturingLogger(logs) }));
});
afterAll(async () => {
  await bank.outbound.stop(1000);
  bank.close();
  await fake.stop();
});

it('keeps every secret of the run out of logs, the journal and later /sandbox answers', async () => {
  const admin = sandbox(bank, ADMIN);
  const created = await registerClient(bank, { client_id: 'secret-run-client', auth_methods: ['bearer', 'api_key'] }, ADMIN);
  const secrets: Record<string, string> = { admin_token: ADMIN, client_secret: created.client_secret, api_key: created.api_key as string, demo_secret: demo.client_secret, demo_api_key: demo.api_key };
  for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi'] as const) {
    const value = (created.private_jwk as Record<string, string> | undefined)?.[member];
    if (value) secrets[`private_jwk.${member}`] = value;
  }
  if (created.certificate_key_pem) secrets.certificate_key = created.certificate_key_pem.split('\n').filter((line) => line && !line.startsWith('-----')).join('').slice(0, 64);

  // Tokens by Basic and by post, creates with both clients, a pull with callbacks, refused requests with secrets.
  const token = await tokenFor(bank, created.client_id, created.client_secret);
  secrets.access_token = token;
  const posted = await request(bank.app).post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret });
  secrets.demo_token = posted.body.access_token;
  expect((await createAs(bank, { clientId: created.client_id, jwk: created.private_jwk!, token }, sampleOrder())).status).toBe(200);
  fake.orders = [connectorOrder('SECRET-RUN-1', '2026-11-20T00:00:00Z', { metadata: { sandbox_scenario: 'ASYNC:0:SUCCESS' } })];
  await bank.outbound.poller.runCycle();
  await drain(bank);
  await request(bank.app).post('/oauth/token').auth(created.client_id, `${created.client_secret}x`).type('form').send({ grant_type: 'client_credentials' });
  await request(bank.app).post('/payment-orders').set('authorization', `Bearer ${token}x`).send('{}');
  await request(bank.app).get('/payment-orders/x/status').set('authorization', `X-API-Key ${created.api_key}`).set('x-client-id', demo.client_id);
  await request(bank.app).get('/sandbox/orders').set('authorization', `Bearer ${ADMIN}x`);

  // Later /sandbox answers: clients, orders, callbacks, the journal and each of its entries.
  const answers: string[] = [];
  for (const target of ['/sandbox/clients', `/sandbox/clients/${created.client_id}`, '/sandbox/orders', '/sandbox/callbacks', '/sandbox/journal?limit=1000']) {
    answers.push((await admin.get(target)).text);
  }
  const journal = JSON.parse(answers[answers.length - 1]) as { data: { id: number }[] };
  expect(journal.data.length).toBeGreaterThan(10);
  for (const entry of journal.data) answers.push((await admin.get(`/sandbox/journal/${entry.id}`)).text);

  bank.journal.flush();
  const table = JSON.stringify(bank.db.prepare('SELECT * FROM journal').all(), (_key, value) => (Buffer.isBuffer(value) ? value.toString('utf8') : value));
  const places: Record<string, string> = { logs: logs.join('\n'), journal_table: table, sandbox_answers: answers.join('\n') };
  const leaks = Object.entries(places).flatMap(([place, text]) => Object.entries(secrets).filter(([, secret]) => text.includes(secret)).map(([name]) => `${name} in ${place}`));
  expect(leaks).toEqual([]);
  // The run did reach the places searched.
  expect(logs.length).toBeGreaterThan(10);
  expect(table).toContain('/oauth/token');
});

it("tags the control plane's log lines with the request's request_id, as every line about a request is (operations.md)", async () => {
  const admin = { authorization: `Bearer ${ADMIN}` };
  const from = logs.length;
  const registered = await request(bank.app).post('/sandbox/clients').set(admin).set('x-request-id', 'req-log-register').send({ client_id: 'log-tagged-client' });
  expect(registered.status).toBe(201);
  await request(bank.app).patch('/sandbox/clients/log-tagged-client').set(admin).set('x-request-id', 'req-log-change').send({ name: 'Renamed' });
  await request(bank.app).post(`/sandbox/clients/${demo.client_id}/clock`).set(admin).set('x-request-id', 'req-log-clock').send({});
  await request(bank.app).delete(`/sandbox/clients/${demo.client_id}/clock`).set(admin).set('x-request-id', 'req-log-unclock');
  await request(bank.app).delete('/sandbox/clients/log-tagged-client').set(admin).set('x-request-id', 'req-log-delete');
  const lines = logs.slice(from).map((line) => JSON.parse(line) as { message: string; request_id?: string });
  const idOf = (message: string) => lines.find((line) => line.message === message)?.request_id;
  expect([
    idOf('client registered at run time'),
    idOf('client changed at run time'),
    idOf('test clock attached'),
    idOf('test clock detached'),
    idOf('client deleted at run time'),
  ]).toEqual(['req-log-register', 'req-log-change', 'req-log-clock', 'req-log-unclock', 'req-log-delete']);
});
