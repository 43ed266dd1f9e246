// Issue 3/7 acceptance, the README session end to end with the real reference Connector: register a client at
// run time → token → create PENDING:3600:SUCCESS → advance 3599 s (still PENDING) → advance 1 s (SUCCESS, the
// callback verified and applied by the Connector, processed_at the clocked time) → redeliver (same bytes and
// key) → reset.
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ManualClock } from '../../src/wire/clock';
import { sampleOrder, startBank, tempDir } from '../helpers/bank';
import { closePair, lateBoundServer, startConnector } from '../connector/helpers';

const ADMIN = 'readme-session-admin';

it('register → token → PENDING:3600 → advance 3599 s → advance 1 s → callback at the reference Connector → redeliver → reset', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const bankServer = await lateBoundServer();
  const bank = await startBank({ sandboxMode: 'relaxed', adminToken: ADMIN, pollCron: 'off', reportPending: false }, { clock });
  bankServer.bind(bank.app);
  const sandbox = (method: 'get' | 'post' | 'patch', target: string, body?: object) =>
    request(bank.app)[method](`/sandbox${target}`).set('authorization', `Bearer ${ADMIN}`).send(body);

  // Register: the answer alone is enough for a Connector to start.
  const registered = await sandbox('post', '/clients', { client_id: 'acme-connector', auth_methods: ['bearer'] });
  expect(registered.status).toBe(201);
  const { client_id: clientId, client_secret: clientSecret, private_jwk: privateJwk } = registered.body;
  const credentials = path.join(tempDir('readme-session-'), 'credentials.json');
  fs.writeFileSync(credentials, JSON.stringify({ client_id: clientId, client_secret: clientSecret, private_jwk: privateJwk }));
  const connector = await startConnector(bankServer.url, { CREDENTIALS_FILE: credentials, PULL_TOKEN: 'acme-pull-token' }, clock);
  const close = closePair(bank, connector, bankServer.server, 1000);
  try {
    expect((await sandbox('patch', `/clients/${clientId}`, { connector: { url: connector.url, callback_mode: 'unit', poll: false, token: 'acme-pull-token' } })).status).toBe(200);
    expect((await sandbox('post', `/clients/${clientId}/clock`, { frozen_at: '2026-11-22T12:00:00Z' })).status).toBe(201);

    // Token and create, by the Connector itself (client_credentials, then a signed create).
    const order = sampleOrder({ metadata: { sandbox_scenario: 'PENDING:3600:SUCCESS' } });
    const pushed = await request(connector.app).post('/orders').set('content-type', 'application/json').send(JSON.stringify(order));
    expect(pushed.body).toMatchObject({ reference: order.reference, bank_http_status: 200, status: 'PENDING' });
    expect(pushed.body.bank_body).toMatchObject({ status: 'PENDING', timestamp: '2026-11-22T12:00:00.000Z' });

    const early = await sandbox('post', `/clients/${clientId}/clock/advance`, { seconds: 3599 });
    expect(early.body.fired).toEqual([]);
    expect((await sandbox('get', `/orders/${clientId}/${order.reference}`)).body.order.status).toBe('PENDING');

    const due = await sandbox('post', `/clients/${clientId}/clock/advance`, { seconds: 1 });
    expect(due.body.fired.map((item: { kind: string }) => item.kind)).toEqual(['settlement', 'delivery']);
    const state = (await request(connector.app).get('/state')).body as { orders: { reference: string; status: string }[]; status_log: { reference: string; status: string; via: string }[] };
    expect(state.orders.find((row) => row.reference === order.reference)?.status).toBe('SUCCESS');
    expect(state.status_log.filter((row) => row.reference === order.reference).map((row) => [row.status, row.via])).toEqual([
      ['PENDING', 'create'],
      ['SUCCESS', 'callback'],
    ]);
    const detail = (await sandbox('get', `/orders/${clientId}/${order.reference}`)).body;
    expect(detail.order).toMatchObject({ status: 'SUCCESS', processed_at: '2026-11-22T13:00:00.000Z' });
    // The journal entries that touched it: the create (in) and the callback (out).
    expect(detail.journal.map((entry: { direction: string; method: string }) => [entry.direction, entry.method])).toEqual(
      expect.arrayContaining([['in', 'POST'], ['out', 'POST']]),
    );
    const [message] = detail.messages;
    expect(message.attempts).toEqual([expect.objectContaining({ http_status: 200, at: '2026-11-22T13:00:00.000Z' })]);

    // Redeliver: same bytes and key; the Connector recognises the key and changes nothing.
    expect((await sandbox('post', `/callbacks/${message.message_id}/redeliver`)).status).toBe(200);
    await sandbox('post', `/clients/${clientId}/clock/advance`, { seconds: 0 });
    const again = (await sandbox('get', `/callbacks/${message.message_id}`)).body;
    expect(again).toMatchObject({ idempotency_key: message.idempotency_key, state: 'delivered' });
    expect(again.attempts.map((attempt: { http_status: number }) => attempt.http_status)).toEqual([200, 200]);
    expect(again.attempts[1].response_excerpt).toContain('"replayed":true');

    const reset = await sandbox('post', '/reset', { client_id: clientId });
    expect(reset.body.deleted).toMatchObject({ orders: 1, callbacks: 1, callback_attempts: 2, test_clocks: 1 });
    expect((await sandbox('get', `/orders/${clientId}/${order.reference}`)).status).toBe(404);
  } finally {
    await close();
  }
});
