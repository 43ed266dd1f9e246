// Control plane section 4: the journal of every exchange, in (both listeners, every route, /sandbox included) and
// out (pulls, token fetches, callbacks). Secrets never enter it; bodies are cut at JOURNAL_BODY_LIMIT; retention
// is by count and age; it can be switched off; every entry offers a curl command with placeholders for secrets.
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { BankConfig } from '../../src/bank/config';
import { ManualClock } from '../../src/wire/clock';
import { FakeConnector } from '../helpers/fake-connector';
import { demo, DemoClient, ROOT, sampleOrder, startBank, tempDir } from '../helpers/bank';
import { bankWithFakeConnector, connectorOrder, drain } from '../helpers/outbound';
import { expectSchema } from '../helpers/control-schemas';
import { expectProblem } from '../helpers/wire';

const ADMIN = 'admin-token-journal-0123456789';
const CONNECTOR_SECRET = 'connector-secret-0123456789';

type Entry = Record<string, unknown> & {
  id: number;
  at: string;
  direction: 'in' | 'out';
  client_id: string | null;
  method: string;
  path: string;
  url: string;
  status: number | null;
  code: string | null;
  latency_ms: number;
  references: string[];
};

type FullEntry = Entry & {
  request: { headers: Record<string, string>; body: string | null; size: number; truncated: boolean };
  response: { headers: Record<string, string>; body: string | null; size: number; truncated: boolean } | null;
  curl: string;
  curl_note: string | null;
};

/** A registry whose demo client has its Connector at `url`, with a client_credentials token URL there. */
function clientsFileFor(url: string): string {
  const registry = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/clients.json'), 'utf8'));
  registry.clients[0].connector_base_url = url;
  registry.clients[0].connector = { token_url: `${url}/oauth/token`, token_client_id: 'sandbox-bank', token_client_secret: CONNECTOR_SECRET };
  const file = path.join(tempDir(), 'clients.json');
  fs.writeFileSync(file, JSON.stringify(registry));
  return file;
}


function withScenario(scenario: string) {
  return sampleOrder({ metadata: { initiator: 'test-suite', sandbox_scenario: scenario } });
}

function admin(test: request.Test, token = ADMIN): request.Test {
  return test.set('authorization', `Bearer ${token}`);
}

async function list(bank: Bank, query = '', token = ADMIN): Promise<{ data: Entry[]; next_cursor: string | null }> {
  const response = await admin(request(bank.app).get(`/sandbox/journal${query}`), token);
  expect([response.status, response.text.slice(0, 200)]).toEqual([200, expect.any(String)]);
  expectSchema('journal-page', response.body);
  return response.body;
}

async function entry(bank: Bank, id: number, token = ADMIN): Promise<FullEntry> {
  const response = await admin(request(bank.app).get(`/sandbox/journal/${id}`), token);
  expect(response.status).toBe(200);
  expectSchema('journal-entry', response.body);
  return response.body as FullEntry;
}

describe('the journal', () => {
  let fake: FakeConnector;
  let bank: Bank;
  let client: DemoClient;

  beforeAll(async () => {
    fake = new FakeConnector();
    await fake.start();
    bank = await startBank({
      clientsFile: clientsFileFor(fake.url),
      sandboxMode: 'relaxed',
      adminToken: ADMIN,
      pollCron: 'off',
      callbackMode: 'unit',
      retryScheduleS: [0.02],
      batchWindowMs: 0,
    });
    fake.setJwks({ keys: [{ ...bank.signer.publicJwk, kid: bank.signer.kid }] });
    client = new DemoClient(bank);
  });
  afterAll(async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('records inbound token, create, status and refused exchanges with client, code and order references', async () => {
    const token = await client.token();
    const order = withScenario('PENDING:3600:SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    expect((await client.status(order.reference as string)).status).toBe(200);
    const refused = await client.create(withScenario('SUCCESS'), { headers: { 'x-signature': 'not-a-jws' } });
    expect(refused.status).toBe(401);

    const { data } = await list(bank, `?direction=in&client_id=${demo.client_id}`);
    const create = data.find((one) => one.path === '/payment-orders' && one.status === 200) as Entry;
    expect(create).toMatchObject({ direction: 'in', client_id: demo.client_id, method: 'POST', code: null, references: [order.reference] });
    expect(create.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(typeof create.latency_ms).toBe('number');
    const status = data.find((one) => one.path === `/payment-orders/${order.reference}/status`) as Entry;
    expect(status).toMatchObject({ method: 'GET', status: 200, references: [order.reference] });
    const tokenEntry = data.find((one) => one.path === '/oauth/token') as Entry;
    expect(tokenEntry).toMatchObject({ method: 'POST', status: 200, client_id: demo.client_id });
    const refusal = data.find((one) => one.code !== null) as Entry;
    expect(refusal).toMatchObject({ method: 'POST', path: '/payment-orders', status: 401, code: refused.body.code });

    const full = await entry(bank, create.id);
    expect(full.request.headers.authorization).toBe(`Bearer ***${token.slice(-4)}`);
    expect(full.request.headers['x-client-id']).toBe(demo.client_id);
    expect(JSON.parse(full.request.body as string).reference).toBe(order.reference);
    expect(full.request).toMatchObject({ truncated: false, size: Buffer.byteLength(JSON.stringify(order)) });
    expect(full.response).toMatchObject({ truncated: false });
    expect(JSON.parse(full.response?.body as string)).toMatchObject({ reference: order.reference, status: 'PENDING' });
    expect(full.response?.headers['content-type']).toMatch(/^application\/json/);

    const tokenFull = await entry(bank, tokenEntry.id);
    expect(tokenFull.request.headers.authorization).toMatch(/^Basic \*\*\*.{4}$/);
    expect(JSON.parse(tokenFull.response?.body as string).access_token).toBe(`***${token.slice(-4)}`);

    // What the order detail of the control plane lists (journal: [{id, at, direction, method, path, status, code}]).
    const mentions = bank.journal.journalFor(demo.client_id, order.reference as string);
    // Inbound ones here; the PENDING callback (out) may be among them too, once the dispatcher has sent it.
    expect(mentions.map((one) => one.id)).toEqual([...mentions.map((one) => one.id)].sort((a, b) => a - b));
    expect(mentions.filter((one) => one.direction === 'out').every((one) => one.path === '/callbacks/orders/status')).toBe(true);
    expect(mentions.filter((one) => one.direction === 'in').map((one) => [one.id, one.method, one.path, one.status, one.code, one.direction])).toEqual([
      [create.id, 'POST', '/payment-orders', 200, null, 'in'],
      [status.id, 'GET', `/payment-orders/${order.reference}/status`, 200, null, 'in'],
    ]);
    expect(mentions[0].at).toBe(create.at);
    for (const mention of mentions) expectSchema('journal-mention', mention);
    expect(bank.journal.journalFor('someone-else', order.reference as string)).toEqual([]);
  });

  it('records outgoing token fetches, pulls and callbacks, with the references they carried', async () => {
    fake.orders = [connectorOrder('JRN-PULL-1', '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    await drain(bank);
    const { data } = await list(bank, '?direction=out');
    const tokenFetch = data.find((one) => one.path === '/oauth/token') as Entry;
    const pull = data.find((one) => one.path === '/payment-orders') as Entry;
    const callback = data.find((one) => one.path === '/callbacks/orders/status') as Entry;
    expect(tokenFetch).toMatchObject({ direction: 'out', client_id: demo.client_id, method: 'POST', status: 200, code: null });
    expect(pull).toMatchObject({ direction: 'out', client_id: demo.client_id, method: 'GET', status: 200, references: ['JRN-PULL-1'] });
    expect(pull.url.startsWith(`${fake.url}/payment-orders?`)).toBe(true);
    expect(callback).toMatchObject({ direction: 'out', client_id: demo.client_id, method: 'POST', status: 200, references: ['JRN-PULL-1'] });

    const tokenFull = await entry(bank, tokenFetch.id);
    expect(tokenFull.request.headers.authorization).toMatch(/^Basic \*\*\*.{4}$/);
    expect(JSON.parse(tokenFull.response?.body as string).access_token).toBe(`***${fake.issuedToken.slice(-4)}`);
    const pullFull = await entry(bank, pull.id);
    expect(pullFull.request.headers.authorization).toBe(`Bearer ***${fake.issuedToken.slice(-4)}`);
    expect(pullFull.request.headers['x-signature']).toMatch(/^ey/);
    expect(JSON.parse(pullFull.response?.body as string).content[0].reference).toBe('JRN-PULL-1');
    expect(pullFull.curl.startsWith(`curl -sS -X GET '${pull.url}'`)).toBe(true);
    expect(pullFull.curl).toContain("-H 'authorization: Bearer <ACCESS_TOKEN>'");
    const callbackFull = await entry(bank, callback.id);
    expect(JSON.parse(callbackFull.request.body as string)).toMatchObject({ reference: 'JRN-PULL-1', status: 'SUCCESS' });
    expect(callbackFull.curl).toContain(`'${fake.url}/callbacks/orders/status'`);
    expect(callbackFull.curl).toContain('--data-binary');
  });

  it('parses a pulled page once, for the poller and the journal alike', async () => {
    fake.orders = [connectorOrder('JRN-PARSE-1', '2026-11-21T00:00:00Z'), connectorOrder('JRN-PARSE-2', '2026-11-21T00:00:01Z')];
    const parse = jest.spyOn(JSON, 'parse');
    let parsed: unknown[] = [];
    try {
      await bank.outbound.poller.runCycle();
      await drain(bank);
      parsed = parse.mock.calls.map(([text]) => text);
    } finally {
      parse.mockRestore();
    }
    const pageParses = parsed.filter((text) => typeof text === 'string' && text.includes('"content"') && text.includes('JRN-PARSE-1'));
    expect(pageParses).toHaveLength(1);
    const pulls = (await list(bank, '?reference=JRN-PARSE-2')).data.filter((one) => one.path === '/payment-orders');
    expect(pulls.map((one) => one.references)).toEqual([['JRN-PARSE-1', 'JRN-PARSE-2']]);
  });

  it('never keeps a secret: client secrets, API keys, tokens, admin token, private JWK members', async () => {
    const token = await client.token();
    // client_secret_post, an API-key poll, and a body full of secrets sent to a route that does not exist.
    const form = await request(bank.app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret });
    expect(form.status).toBe(200);
    const order = withScenario('PENDING:3600:SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    await client.status(order.reference as string, { headers: { authorization: `X-Api-Key ${demo.api_key}` } });
    const secrets = { client_secret: demo.client_secret, api_key: demo.api_key, private_jwk: demo.private_jwk, nested: [{ access_token: token }] };
    expect((await request(bank.app).post('/nowhere').set('content-type', 'application/json').send(JSON.stringify(secrets))).status).toBe(404);
    expect((await admin(request(bank.app).post('/sandbox/nowhere')).set('content-type', 'application/json').send(JSON.stringify(secrets))).status).toBe(404);
    fake.orders = [connectorOrder('JRN-PULL-2', '2026-11-21T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    await drain(bank);

    const answers: string[] = [];
    const all = await list(bank, '?limit=1000');
    answers.push(JSON.stringify(all));
    for (const one of all.data) answers.push(JSON.stringify(await entry(bank, one.id)));
    bank.journal.flush();
    const table = JSON.stringify(bank.db.prepare('SELECT * FROM journal').all());
    const issued = [token, form.body.access_token as string, fake.issuedToken];
    const privateMembers = Object.entries(demo.private_jwk).filter(([name]) => ['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(name)).map(([, value]) => String(value));
    expect(privateMembers.length).toBeGreaterThan(0);
    const forbidden = [
      demo.client_secret,
      demo.api_key,
      ADMIN,
      CONNECTOR_SECRET,
      ...issued,
      ...privateMembers,
      Buffer.from(`${demo.client_id}:${demo.client_secret}`).toString('base64'),
      Buffer.from(`sandbox-bank:${CONNECTOR_SECRET}`).toString('base64'),
    ];
    for (const text of [table, ...answers]) {
      for (const secret of forbidden) expect([secret.slice(0, 6), text.includes(secret)]).toEqual([secret.slice(0, 6), false]);
    }
    // Markers keep the type and the last four characters, where they are.
    const body = (await entry(bank, all.data.find((one) => one.path === '/sandbox/nowhere')!.id)).request.body as string;
    expect(JSON.parse(body)).toMatchObject({
      client_secret: `***${demo.client_secret.slice(-4)}`,
      api_key: `***${demo.api_key.slice(-4)}`,
      private_jwk: { kty: demo.private_jwk.kty, d: `***${privateMembers[0].slice(-4)}` },
      nested: [{ access_token: `***${token.slice(-4)}` }],
    });
    const apiKeyPoll = all.data.find((one) => one.path === `/payment-orders/${order.reference}/status`)!;
    expect((await entry(bank, apiKeyPoll.id)).request.headers.authorization).toBe(`X-Api-Key ***${demo.api_key.slice(-4)}`);
    const tokenBodies = await Promise.all(all.data.filter((one) => one.path === '/oauth/token' && one.direction === 'in').map(async (one) => (await entry(bank, one.id)).request.body));
    expect(tokenBodies).toContain(`grant_type=client_credentials&client_id=${demo.client_id}&client_secret=***${demo.client_secret.slice(-4)}`);
  });

  it('journals /sandbox requests with the admin token masked, and gives curl commands with placeholders', async () => {
    await admin(request(bank.app).get('/sandbox/journal?limit=1'));
    const [own] = (await list(bank, '?path=/sandbox/journal&limit=1')).data;
    const full = await entry(bank, own.id);
    expect(full.request.headers.authorization).toBe(`Bearer ***${ADMIN.slice(-4)}`);
    expect(full.curl).toMatch(/^curl -sS -X GET 'http:\/\/127\.0\.0\.1:\d+\/sandbox\/journal\?limit=1'/);
    expect(full.curl).toContain("-H 'authorization: Bearer <ADMIN_TOKEN>'");

    const order = withScenario('SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    const [create] = (await list(bank, `?reference=${order.reference}`)).data;
    const curl = (await entry(bank, create.id)).curl;
    expect(curl).toMatch(/^curl -sS -X POST 'http:\/\/127\.0\.0\.1:\d+\/payment-orders' \\\n {2}-H /);
    expect(curl).toContain(`-H 'x-client-id: ${demo.client_id}'`);
    expect(curl).toContain("-H 'authorization: Bearer <ACCESS_TOKEN>'");
    expect(curl).toContain(`--data-binary '${JSON.stringify(order)}'`);
    expect(curl).not.toMatch(/-H 'host:|-H 'content-length:/);

    const form = await request(bank.app).post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: demo.client_id, client_secret: demo.client_secret });
    expect(form.status).toBe(200);
    const basic = await request(bank.app).post('/oauth/token').auth(demo.client_id, demo.client_secret).type('form').send({ grant_type: 'client_credentials' });
    expect(basic.status).toBe(200);
    const [basicEntry, formEntry] = (await list(bank, '?path=/oauth/token&direction=in&limit=2')).data;
    expect((await entry(bank, formEntry.id)).curl).toContain('client_secret=<CLIENT_SECRET>');
    expect((await entry(bank, basicEntry.id)).curl).toContain("-H 'authorization: Basic <BASE64(CLIENT_ID:CLIENT_SECRET)>'");
  });

  it('filters by client, direction, code, reference, path prefix and time, and pages newest first with a cursor', async () => {
    const everything = (await list(bank, '?limit=1000')).data;
    const ids = everything.map((one) => one.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Entry[]; next_cursor: string | null } = await list(bank, `?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(7);
      paged.push(...page.data.map((one) => one.id));
      cursor = page.next_cursor;
    } while (cursor);
    // Each page request is itself journaled, with a larger id: the pages cover everything there was.
    expect(paged.filter((id) => id <= ids[0])).toEqual(ids);

    const out = (await list(bank, '?direction=out&limit=1000')).data;
    expect(out.length).toBeGreaterThan(0);
    expect(out.every((one) => one.direction === 'out')).toBe(true);
    const refused = (await list(bank, '?code=signature_invalid')).data;
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((one) => one.code === 'signature_invalid')).toBe(true);
    const pulled = (await list(bank, '?reference=JRN-PULL-1')).data;
    expect(pulled.map((one) => one.path).sort()).toEqual(['/callbacks/orders/status', '/payment-orders']);
    const tokens = (await list(bank, '?path=/oauth')).data;
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.every((one) => one.path.startsWith('/oauth'))).toBe(true);
    expect((await list(bank, '?client_id=nobody')).data).toEqual([]);
    expect((await list(bank, '?since=2999-01-01T00:00:00Z')).data).toEqual([]);
    const since = everything[5].at;
    expect((await list(bank, `?since=${since}&limit=1000`)).data.every((one) => one.at >= since)).toBe(true);
  });

  it('answers 400 query_invalid for bad parameters and 404 not_found for an unknown entry', async () => {
    for (const query of ['?direction=both', '?limit=0', '?limit=1001', '?since=yesterday', '?cursor=nope', '?client=x', '?code=', '?limit=1&limit=2']) {
      expectProblem(await admin(request(bank.app).get(`/sandbox/journal${query}`)), 400, 'query_invalid');
    }
    expectProblem(await admin(request(bank.app).get('/sandbox/journal/999999999')), 404, 'not_found');
    expectProblem(await admin(request(bank.app).get('/sandbox/journal/abc')), 404, 'not_found');
    expectProblem(await admin(request(bank.app).get('/sandbox/journal/1?x=1')), 400, 'query_invalid');
  });

  it('needs the admin token', async () => {
    expectProblem(await request(bank.app).get('/sandbox/journal'), 401, 'auth_missing');
    expectProblem(await admin(request(bank.app).get('/sandbox/journal'), 'wrong-token'), 401, 'auth_invalid');
    expectProblem(await request(bank.app).delete('/sandbox/journal'), 401, 'auth_missing');
  });

  it('DELETE /sandbox/journal empties it and says how many entries went', async () => {
    const before = (await list(bank, '?limit=1000')).data.length;
    const response = await admin(request(bank.app).delete('/sandbox/journal'));
    expect(response.status).toBe(200);
    expect(response.body.deleted).toBeGreaterThanOrEqual(before);
    expectSchema('journal-deleted', response.body);
    const after = (await list(bank, '?limit=1000')).data;
    expect(after.map((one) => [one.method, one.path])).toEqual([['DELETE', '/sandbox/journal']]);
  });
});

describe('journal settings', () => {
  async function withBank(overrides: Partial<BankConfig>, run: (bank: Bank) => Promise<void>, clock?: ManualClock): Promise<void> {
    const bank = await startBank({ sandboxMode: 'relaxed', ...overrides }, clock ? { clock } : {});
    try {
      await run(bank);
    } finally {
      bank.close();
    }
  }

  const count = (bank: Bank) => {
    bank.journal.flush();
    return bank.db.prepare('SELECT COUNT(*) FROM journal').pluck().get() as number;
  };

  it('cuts bodies beyond JOURNAL_BODY_LIMIT and marks them truncated', async () => {
    await withBank({ journalBodyLimit: 100 }, async (bank) => {
      const order = withScenario('SUCCESS');
      expect((await new DemoClient(bank).create(order)).status).toBe(200);
      const [create] = (await list(bank, '?path=/payment-orders&limit=1')).data;
      const full = await entry(bank, create.id);
      expect(full.request.truncated).toBe(true);
      expect(full.request.size).toBe(Buffer.byteLength(JSON.stringify(order)));
      expect(Buffer.byteLength(full.request.body as string)).toBeLessThanOrEqual(100);
      expect(JSON.stringify(order).startsWith(full.request.body as string)).toBe(true);
      expect(full.curl_note).toContain('100 bytes');
      await request(bank.app).get('/healthz');
      const small = await entry(bank, (await list(bank, '?path=/healthz&limit=1')).data[0].id);
      expect(small.request).toMatchObject({ body: null, truncated: false });
      expect(small.response).toMatchObject({ truncated: false });
    });
  });

  it("cuts an outgoing call's answer the same way: size of the whole, the start of its text", async () => {
    const { bank, fake } = await bankWithFakeConnector({ journalBodyLimit: 100, adminToken: ADMIN });
    try {
      fake.orders = [connectorOrder('JRN-CUT-1', '2026-11-22T00:00:00Z', { metadata: { note: 'è€😀'.repeat(40) } })];
      await bank.outbound.poller.runCycle();
      const [pull] = (await list(bank, '?path=/payment-orders&direction=out&limit=1')).data;
      const full = await entry(bank, pull.id);
      const page = fake.lastPageBody as string;
      expect(full.response).toMatchObject({ size: Buffer.byteLength(page), truncated: true });
      expect(full.response?.body).toBe(Buffer.from(page).subarray(0, 100).toString('utf8'));
    } finally {
      await bank.outbound.stop(1000);
      bank.close();
      await fake.stop();
    }
  });

  it('keeps the newest JOURNAL_MAX_ENTRIES', async () => {
    await withBank({ journalMaxEntries: 5 }, async (bank) => {
      for (let index = 0; index < 12; index += 1) await request(bank.app).get(`/healthz?n=${index}`);
      expect(count(bank)).toBe(5);
      const urls = (await list(bank, '?limit=10')).data.map((one) => new URL(one.url).searchParams.get('n'));
      expect(urls).toEqual(['11', '10', '9', '8', '7']);
    });
  });

  it('drops entries older than JOURNAL_MAX_AGE_S (housekeeping)', async () => {
    const clock = new ManualClock();
    await withBank(
      { journalMaxAgeS: 60 },
      async (bank) => {
        for (let index = 0; index < 3; index += 1) await request(bank.app).get('/healthz');
        clock.advance(61_000);
        await request(bank.app).get('/healthz?fresh=1');
        bank.housekeeping();
        const left = (await list(bank, '?limit=10')).data;
        expect(left.map((one) => one.url.endsWith('?fresh=1'))).toEqual([true]);
      },
      clock,
    );
  });

  it('JOURNAL=off records nothing, in or out', async () => {
    const fake = new FakeConnector();
    await fake.start();
    await withBank({ journal: 'off', connectorUrl: fake.url, pollCron: 'off' }, async (bank) => {
      fake.setJwks({ keys: [{ ...bank.signer.publicJwk, kid: bank.signer.kid }] });
      expect((await new DemoClient(bank).create(withScenario('SUCCESS'))).status).toBe(200);
      fake.orders = [connectorOrder('JRN-OFF-1', '2026-11-20T00:00:00Z')];
      await bank.outbound.poller.runCycle();
      expect(fake.pulls.length).toBe(1);
      expect((await list(bank)).data).toEqual([]);
      expect(count(bank)).toBe(0);
    });
    await fake.stop();
  });

  it('scrubs a short secret from the whole exchange: a 7-character Connector token echoed in connector_env', async () => {
    // Relaxed mode with no ADMIN_TOKEN: /sandbox is open, so the short token is the exchange's only secret by place.
    await withBank({}, async (bank) => {
      const connector = { url: 'http://127.0.0.1:29999', poll: false, token: 'pw12345' };
      const registered = await request(bank.app).post('/sandbox/clients').send({ client_id: 'aud-short', connector });
      expect(registered.status).toBe(201);
      expect(registered.body.examples.connector_env).toContain('\nPULL_TOKEN=pw12345\n');
      const [created] = (await list(bank, '?path=/sandbox/clients&limit=1')).data;
      expect([created.method, created.path]).toEqual(['POST', '/sandbox/clients']);
      const full = await entry(bank, created.id);
      expect(full.request.body).toContain('"token":"***"');
      const examples = JSON.parse(full.response?.body as string).examples as { connector_env: string };
      expect(examples.connector_env).toContain('\nPULL_TOKEN=***\n');
      expect(JSON.stringify(full)).not.toContain('pw12345');
    });
  });
});

describe('journal ids after a kill', () => {
  it('never hands out again an id a stored refusal names, though its entry was lost with the process', async () => {
    const dataDir = tempDir();
    const first = await startBank({ sandboxMode: 'relaxed', dataDir });
    const refused = await request(first.app).post('/payment-orders').set({ 'x-client-id': demo.client_id, 'content-type': 'application/json' }).send('{}');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    first.journal.flush();
    const named = first.db.prepare("SELECT MAX(json_extract(data, '$.journal_id')) FROM events WHERE type = 'request.refused'").pluck().get() as number;
    // What a kill leaves: the refusal's event committed, its journal entry (and a later one's) not yet written.
    first.db.prepare('DELETE FROM journal WHERE id >= ?').run(named);
    first.db.prepare("INSERT INTO events (at, type, client_id, data) VALUES (?, 'request.refused', ?, ?)").run(Date.now(), demo.client_id, JSON.stringify({ code: 'header_missing', journal_id: named + 5 }));
    first.close();
    const second = await startBank({ sandboxMode: 'relaxed', dataDir });
    try {
      expect(second.journal.reserveId()).toBe(named + 6);
    } finally {
      second.close();
    }
  });
});
