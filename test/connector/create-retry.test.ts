// The reference Connector's create retry: after a 5xx, a 429 or no answer it sends the create again with the SAME
// X-Idempotency-Key and the SAME body bytes, freshly signed (new timestamp, nonce, signature), with exponential
// backoff and a 429's or 503's Retry-After honoured; another 4xx is never retried. Against a fake Bank that
// answers as scripted and records every create, then against the real Bank's FAIL_ONCE scenario.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import type { Logger } from 'winston';
import { ManualClock, systemClock } from '../../src/wire/clock';
import { KeySet, publicOnly } from '../../src/wire/keys';
import { checkSignature } from '../../src/wire/verify-request';
import { BankClient, createRetryDelayMs, isRetryableCreateAnswer } from '../../src/connector/bank-client';
import { CONNECTOR_DEFAULTS, ConnectorConfig } from '../../src/connector/config';
import { loadCredentials } from '../../src/connector/connector';
import { openConnectorStore } from '../../src/connector/store';
import { sampleOrder, startBank } from '../helpers/bank';
import { closePair, CREDENTIALS, lateBoundServer, startConnector, unreachableUrl } from './helpers';

type Scripted = { status: number; headers?: Record<string, string>; body?: unknown } | 'drop';

interface RecordedCreate {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const credentials = loadCredentials(CREDENTIALS);
const connectorKeys = new KeySet({ keys: [publicOnly(credentials.private_jwk)] });

/** A Bank that hands out tokens and answers each create with the next scripted answer ('drop': no answer at all). */
async function fakeBank(script: Scripted[]) {
  const creates: RecordedCreate[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/oauth/token') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'token-1', expires_in: 300 }));
      creates.push({ headers: req.headers, body: Buffer.concat(chunks) });
      const next = script.shift() ?? { status: 500 };
      if (next === 'drop') return void req.socket.destroy();
      const body = next.body === undefined ? '' : JSON.stringify(next.body);
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    creates,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

interface Harness {
  client: BankClient;
  waits: number[];
  logged: { level: string; message: string; meta: Record<string, unknown> }[];
  store: ReturnType<typeof openConnectorStore>;
}

/** A BankClient toward `url` whose waits are recorded (and not waited) and whose log lines are kept. */
function harness(url: string, overrides: Partial<ConnectorConfig> = {}): Harness {
  const waits: number[] = [];
  const logged: Harness['logged'] = [];
  const log = (level: string) => (message: string, meta: Record<string, unknown> = {}) => void logged.push({ level, message, meta });
  const logger = { info: log('info'), warn: log('warn'), error: log('error') } as unknown as Logger;
  const store = openConnectorStore(':memory:', 30_000);
  const config = { ...CONNECTOR_DEFAULTS, bankUrl: url, bankStatusUrl: url, ...overrides };
  const client = new BankClient(config, credentials, store, systemClock, logger, {}, async (ms) => void waits.push(ms));
  return { client, waits, logged, store };
}

const order = () => sampleOrder() as { reference: string; initiated_at: string };
const bankAnswer = (reference: string) => ({ status: 'SUCCESS', reference, bank_reference: 'BNK-1', timestamp: '2026-11-22T09:00:00Z' });

/** The create as the Bank would verify it: its signature over the base of these exact headers and bytes. */
function verifies(create: RecordedCreate): boolean {
  const header = (name: string) => {
    const value = create.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return checkSignature('create', { method: 'POST', target: '/payment-orders', header, body: create.body }, (kid, alg) => connectorKeys.find(kid, alg), 'of the connector') === null;
}

describe('create retry against a scripted Bank', () => {
  let bank: Awaited<ReturnType<typeof fakeBank>> | null = null;
  afterEach(async () => {
    await bank?.close();
    bank = null;
  });

  it('after a 500: the same key and body bytes, a fresh timestamp-nonce-signature, and the second answer recorded', async () => {
    const sent = order();
    bank = await fakeBank([{ status: 500, body: { code: 'internal' } }, { status: 200, body: bankAnswer(sent.reference) }]);
    const { client, waits, logged, store } = harness(bank.url);
    const result = await client.createOrder(sent);
    expect(result).toMatchObject({ httpStatus: 200, status: 'SUCCESS' });
    expect(store.order(sent.reference)?.status).toBe('SUCCESS');

    const [first, retry] = bank.creates;
    expect(bank.creates).toHaveLength(2);
    expect(retry.headers['x-idempotency-key']).toBe(`create-${sent.reference}`);
    expect(retry.headers['x-idempotency-key']).toBe(first.headers['x-idempotency-key']);
    expect(retry.body.equals(first.body)).toBe(true);
    expect(retry.headers['content-digest']).toBe(first.headers['content-digest']);
    expect(retry.headers['x-nonce']).not.toBe(first.headers['x-nonce']);
    expect(retry.headers['x-signature']).not.toBe(first.headers['x-signature']);
    expect(retry.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(bank.creates.every(verifies)).toBe(true);

    expect(waits).toEqual([500]);
    expect(logged.filter((line) => /create retry/.test(line.message)).map((line) => line.meta)).toEqual([
      expect.objectContaining({ reference: sent.reference, idempotency_key: `create-${sent.reference}`, retry: 1, http_status: 500, delay_ms: 500 }),
    ]);
  });

  it('after no answer at all (the connection dropped), twice: backoff 500 then 1000 ms, the same key and body each time', async () => {
    const sent = order();
    bank = await fakeBank(['drop', 'drop', { status: 202 }]);
    const { client, waits, logged } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: 202, status: 'AWAITING' });
    expect(bank.creates).toHaveLength(3);
    expect(new Set(bank.creates.map((create) => create.headers['x-idempotency-key'])).size).toBe(1);
    expect(new Set(bank.creates.map((create) => create.body.toString('utf8'))).size).toBe(1);
    expect(new Set(bank.creates.map((create) => create.headers['x-nonce'])).size).toBe(3);
    expect(waits).toEqual([500, 1000]);
    expect(logged.filter((line) => /create retry/.test(line.message)).map((line) => [line.meta.retry, line.meta.http_status])).toEqual([
      [1, null],
      [2, null],
    ]);
  });

  it('gives up after CREATE_RETRIES and reports the last answer; the order stays as it was', async () => {
    const sent = order();
    bank = await fakeBank([{ status: 500 }, { status: 502 }, { status: 503 }, { status: 500, body: { code: 'internal' } }, { status: 200 }]);
    const { client, waits, store } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: 500, body: { code: 'internal' }, status: 'READY' });
    expect(bank.creates).toHaveLength(1 + 3);
    expect(waits).toEqual([500, 1000, 2000]);
    expect(store.pollOf(sent.reference)).toBeUndefined();
  });

  it('CREATE_RETRIES and CREATE_RETRY_INITIAL_MS are honoured (0 retries: one attempt)', async () => {
    bank = await fakeBank([{ status: 500 }, { status: 500 }, { status: 500 }]);
    const none = harness(bank.url, { createRetries: 0 });
    expect(await none.client.createOrder(order())).toMatchObject({ httpStatus: 500 });
    expect(bank.creates).toHaveLength(1);
    const two = harness(bank.url, { createRetries: 2, createRetryInitialMs: 40 });
    await two.client.createOrder(order());
    expect(two.waits).toEqual([40, 80]);
  });

  it('honours Retry-After on a 429 or a 503 when it is longer than the backoff', async () => {
    const sent = order();
    bank = await fakeBank([
      { status: 503, headers: { 'retry-after': '2' } },
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '3' } },
      { status: 200, body: bankAnswer(sent.reference) },
    ]);
    const { client, waits } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: 200, status: 'SUCCESS' });
    expect(waits).toEqual([2000, 1000, 3000]);
  });

  it('does not retry when the Bank asks to wait longer than a minute', async () => {
    bank = await fakeBank([{ status: 503, headers: { 'retry-after': '3600' } }, { status: 200 }]);
    const { client, waits, logged } = harness(bank.url);
    expect(await client.createOrder(order())).toMatchObject({ httpStatus: 503 });
    expect(bank.creates).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(logged.some((line) => /not retried/.test(line.message) && line.meta.retry_after_s === 3600)).toBe(true);
  });

  it.each([400, 401, 403, 404, 409, 415, 422])('never retries a %i', async (status) => {
    bank = await fakeBank([{ status, body: { code: 'x' } }, { status: 200 }]);
    const { client, waits } = harness(bank.url);
    expect(await client.createOrder(order())).toMatchObject({ httpStatus: status, status: 'READY' });
    expect(bank.creates).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('a token failure sends no create, so there is nothing to retry', async () => {
    const { client, waits } = harness(await unreachableUrl());
    const result = await client.createOrder(order());
    expect(result).toMatchObject({ httpStatus: null, error: expect.stringMatching(/^token: /), status: 'READY' });
    expect(waits).toEqual([]);
  });
});

describe('create retry rules', () => {
  it('retries 5xx, 429 and no answer; nothing else', () => {
    expect([null, 429, 500, 502, 503, 504].every(isRetryableCreateAnswer)).toBe(true);
    expect([200, 202, 400, 401, 404, 409, 422].some(isRetryableCreateAnswer)).toBe(false);
  });

  it('doubles the wait, and takes a 429 or 503 Retry-After when longer (never for another status)', () => {
    expect([1, 2, 3, 4].map((retry) => createRetryDelayMs(500, retry, { httpStatus: 500, retryAfterS: null }))).toEqual([500, 1000, 2000, 4000]);
    expect(createRetryDelayMs(500, 1, { httpStatus: 503, retryAfterS: 5 })).toBe(5000);
    expect(createRetryDelayMs(500, 3, { httpStatus: 429, retryAfterS: 1 })).toBe(2000);
    expect(createRetryDelayMs(500, 1, { httpStatus: 500, retryAfterS: 5 })).toBe(500);
    expect(createRetryDelayMs(500, 1, { httpStatus: 429, retryAfterS: 61 })).toBeNull();
  });
});

describe('create retry against the real Bank (scenario FAIL_ONCE:SUCCESS)', () => {
  it('the first create is answered 500, the retry with the same key and body gets 200 SUCCESS, and the Bank holds the order once', async () => {
    const clock = new ManualClock(Date.now());
    const creates: http.IncomingHttpHeaders[] = [];
    const bankServer = await lateBoundServer((req) => {
      if (req.method === 'POST' && req.url === '/payment-orders') creates.push(req.headers);
    });
    const connector = await startConnector(bankServer.url, { CREATE_RETRY_INITIAL_MS: '1' }, clock);
    const bank = await startBank({ sandboxMode: 'relaxed', connectorUrl: await unreachableUrl(), pollCron: 'off' }, { clock });
    bankServer.bind(bank.app);
    try {
      const sent = sampleOrder({ metadata: { initiator: 'create-retry-test', sandbox_scenario: 'FAIL_ONCE:SUCCESS' } }) as { reference: string; initiated_at: string };
      const result = await connector.bankClient.createOrder(sent);
      expect(result).toMatchObject({ httpStatus: 200, status: 'SUCCESS', body: { reference: sent.reference, status: 'SUCCESS' } });
      expect(creates).toHaveLength(2);
      expect(creates[1]['x-idempotency-key']).toBe(creates[0]['x-idempotency-key']);
      expect(creates[1]['content-digest']).toBe(creates[0]['content-digest']);
      expect(creates[1]['x-nonce']).not.toBe(creates[0]['x-nonce']);
      expect(bank.db.prepare('SELECT COUNT(*) FROM orders WHERE reference = ?').pluck().get(sent.reference)).toBe(1);
    } finally {
      await closePair(bank, connector, bankServer.server, 100)();
    }
  });
});
