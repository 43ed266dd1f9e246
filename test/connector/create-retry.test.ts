// The reference Connector's create retry: after a 5xx, a 429 or no answer it sends the create again with the SAME
// X-Idempotency-Key and the SAME body bytes, freshly signed (new timestamp, nonce, signature), with exponential
// backoff and a 429's or 503's Retry-After honoured; a 409 idempotency_in_progress is retried the same way (and
// hands over to reverse polling when the retries run out); another 4xx is never retried. Against a fake Bank that
// answers as scripted and records every create, then against the real Bank (FAIL_ONCE, CREATE_LATENCY_MS).
import http from 'node:http';
import { AddressInfo } from 'node:net';
import type { Logger } from 'winston';
import { ManualClock, systemClock } from '../../src/wire/clock';
import { KeySet, publicOnly } from '../../src/wire/keys';
import { checkSignature } from '../../src/wire/verify-request';
import { BankClient, createRetryDelayMs, isRetryableCreateAnswer, PaymentOrderBody } from '../../src/connector/bank-client';
import { CONNECTOR_DEFAULTS, ConnectorConfig } from '../../src/connector/config';
import { loadCredentials } from '../../src/connector/connector';
import { ReversePoller } from '../../src/connector/reverse-poller';
import { openConnectorStore } from '../../src/connector/store';
import { sampleOrder, startBank, tempDir } from '../helpers/bank';
import { closePair, CREDENTIALS, lateBoundServer, startConnector, unreachableUrl } from './helpers';

type Scripted = { status: number; headers?: Record<string, string>; body?: unknown } | 'drop';

interface RecordedCreate {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const credentials = loadCredentials(CREDENTIALS);
const connectorKeys = new KeySet({ keys: [publicOnly(credentials.private_jwk)] });

/**
 * A Bank that hands out tokens and answers each create with the next scripted answer ('drop': no answer at all),
 * and a status poll (GET .../status) with `statusAnswer` (404 without one).
 */
async function fakeBank(script: Scripted[], statusAnswer?: unknown) {
  const creates: RecordedCreate[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/oauth/token') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'token-1', expires_in: 300 }));
      if (req.method === 'GET' && req.url?.endsWith('/status')) {
        if (statusAnswer === undefined) return void res.writeHead(404, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ code: 'order_not_found' }));
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(statusAnswer));
      }
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

  it.each([['{}', {}], ['the JSON literal null', null]])('a 202 with a body (%s) breaks contract 4.1.1: an alert, not AWAITING', async (_name, body) => {
    const sent = order();
    bank = await fakeBank([{ status: 202, body }]);
    const { client, store } = harness(bank.url);
    const result = await client.createOrder(sent);
    expect(result.status).not.toBe('AWAITING');
    expect(store.snapshot().alerts).toEqual([expect.objectContaining({ reference: sent.reference, message: expect.stringContaining('202 with a body') })]);
  });

  it('no answer at all when the retries run out: the outcome is unknown, so the order is handed to reverse polling', async () => {
    const sent = order();
    bank = await fakeBank(['drop', 'drop', 'drop', 'drop']);
    const { client, logged, store } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: null, status: 'READY' });
    expect(bank.creates).toHaveLength(1 + 3);
    expect(store.pollOf(sent.reference)).toMatchObject({ stopped_reason: null, attempts: 0 });
    expect(logged.some((line) => line.level === 'warn' && /create unanswered after the last retry: reverse polling scheduled/.test(line.message))).toBe(true);
  });

  it('gives up after CREATE_RETRIES of 5xx and reports the last answer; the order stays as it was (a 500 stores nothing)', async () => {
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

  it('after a 409 idempotency_in_progress (an earlier attempt still processing): Retry-After waited, the same key and body, the stored answer recorded', async () => {
    const sent = order();
    const inProgress = { status: 409, headers: { 'retry-after': '1' }, body: { code: 'idempotency_in_progress', status: 409 } };
    bank = await fakeBank([inProgress, { status: 200, body: bankAnswer(sent.reference) }]);
    const { client, waits, logged, store } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: 200, status: 'SUCCESS' });
    expect(store.order(sent.reference)?.status).toBe('SUCCESS');
    const [first, retry] = bank.creates;
    expect(bank.creates).toHaveLength(2);
    expect(retry.headers['x-idempotency-key']).toBe(first.headers['x-idempotency-key']);
    expect(retry.body.equals(first.body)).toBe(true);
    expect(retry.headers['x-nonce']).not.toBe(first.headers['x-nonce']);
    expect(bank.creates.every(verifies)).toBe(true);
    expect(waits).toEqual([1000]); // Retry-After: 1 is longer than the 500 ms backoff
    expect(logged.some((line) => /create retry/.test(line.message) && line.meta.http_status === 409)).toBe(true);
  });

  it('still 409 idempotency_in_progress when the retries run out: the order is handed to reverse polling, which finds the outcome', async () => {
    const sent = order();
    const inProgress = { status: 409, headers: { 'retry-after': '1' }, body: { code: 'idempotency_in_progress', status: 409 } };
    bank = await fakeBank([inProgress, inProgress, inProgress, inProgress, { status: 200 }], { reference: sent.reference, bank_reference: 'BNK-1', status: 'SUCCESS', processed_at: '2026-11-22T09:00:00Z' });
    const { client, waits, logged, store } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: 409, status: 'READY' });
    expect(bank.creates).toHaveLength(1 + 3);
    expect(waits).toEqual([1000, 1000, 2000]);
    expect(store.pollOf(sent.reference)).toMatchObject({ stopped_reason: null, attempts: 0 });
    expect(logged.some((line) => line.level === 'warn' && /reverse polling scheduled/.test(line.message))).toBe(true);

    const clock = new ManualClock(Date.now() + 30_001); // past POLL_INITIAL_MS
    const poller = new ReversePoller(store, client, { initialMs: 30_000, maxMs: 900_000, factor: 2 }, clock, { info() {}, warn() {}, error() {} } as unknown as Logger);
    expect(await poller.tick()).toBe(1);
    expect(store.order(sent.reference)).toMatchObject({ status: 'SUCCESS', bank_reference: 'BNK-1' });
    expect(store.pollOf(sent.reference)?.stopped_reason).toMatch(/final/);
  });

  it('a 409 idempotency_in_progress that asks to wait over a minute is not retried, but still handed to reverse polling', async () => {
    const sent = order();
    bank = await fakeBank([{ status: 409, headers: { 'retry-after': '3600' }, body: { code: 'idempotency_in_progress' } }, { status: 200 }]);
    const { client, waits, store } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: 409, status: 'READY' });
    expect(bank.creates).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(store.pollOf(sent.reference)).toMatchObject({ stopped_reason: null });
  });

  it('another 409 (duplicate_reference) is the Bank\'s decision: never retried, nothing scheduled', async () => {
    const sent = order();
    bank = await fakeBank([{ status: 409, body: { code: 'duplicate_reference' } }, { status: 200 }]);
    const { client, waits, store } = harness(bank.url);
    expect(await client.createOrder(sent)).toMatchObject({ httpStatus: 409, status: 'READY' });
    expect(bank.creates).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(store.pollOf(sent.reference)).toBeUndefined();
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
  it('retries 5xx, 429, 409 idempotency_in_progress and no answer; nothing else', () => {
    const answer = (httpStatus: number | null, code?: string) => ({ httpStatus, body: code ? { code } : null });
    expect([null, 429, 500, 502, 503, 504].every((status) => isRetryableCreateAnswer(answer(status)))).toBe(true);
    expect(isRetryableCreateAnswer(answer(409, 'idempotency_in_progress'))).toBe(true);
    expect([200, 202, 400, 401, 404, 409, 422].some((status) => isRetryableCreateAnswer(answer(status)))).toBe(false);
    expect(['duplicate_reference', 'order_final'].some((code) => isRetryableCreateAnswer(answer(409, code)))).toBe(false);
  });

  it('doubles the wait, and takes a 429 or 503 Retry-After when longer (never for another status)', () => {
    expect([1, 2, 3, 4].map((retry) => createRetryDelayMs(500, retry, { httpStatus: 500, retryAfterS: null }))).toEqual([500, 1000, 2000, 4000]);
    expect(createRetryDelayMs(500, 1, { httpStatus: 503, retryAfterS: 5 })).toBe(5000);
    expect(createRetryDelayMs(500, 3, { httpStatus: 429, retryAfterS: 1 })).toBe(2000);
    expect(createRetryDelayMs(500, 1, { httpStatus: 500, retryAfterS: 5 })).toBe(500);
    expect(createRetryDelayMs(500, 1, { httpStatus: 429, retryAfterS: 61 })).toBeNull();
    expect(createRetryDelayMs(500, 1, { httpStatus: 409, retryAfterS: 1, body: { code: 'idempotency_in_progress' } })).toBe(1000);
    expect(createRetryDelayMs(500, 1, { httpStatus: 409, retryAfterS: 1, body: { code: 'duplicate_reference' } })).toBe(500);
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

describe('create retry against the real Bank while an earlier attempt is still processing (CREATE_LATENCY_MS)', () => {
  it('a second push of the same order meets 409 idempotency_in_progress, waits Retry-After, and gets the stored 200', async () => {
    const creates: { key: string | undefined }[] = [];
    const bankServer = await lateBoundServer((req) => {
      if (req.method === 'POST' && req.url === '/payment-orders') creates.push({ key: req.headers['x-idempotency-key'] as string | undefined });
    });
    const connector = await startConnector(bankServer.url, { CREATE_RETRY_INITIAL_MS: '1' });
    const bank = await startBank({ sandboxMode: 'relaxed', connectorUrl: await unreachableUrl(), pollCron: 'off', createLatencyMs: 400 });
    bankServer.bind(bank.app);
    try {
      const sent = sampleOrder({ metadata: { initiator: 'create-retry-test', sandbox_scenario: 'SUCCESS' } }) as { reference: string; initiated_at: string };
      const first = connector.bankClient.createOrder(sent);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the first is now held by the Bank's latency
      const second = await connector.bankClient.createOrder(sent);
      expect(second).toMatchObject({ httpStatus: 200, status: 'SUCCESS', body: { reference: sent.reference, status: 'SUCCESS' } });
      expect(await first).toMatchObject({ httpStatus: 200, status: 'SUCCESS' });
      expect(creates).toHaveLength(3); // the first, the second (409), its retry (replayed)
      expect(new Set(creates.map((create) => create.key)).size).toBe(1);
      expect(connector.store.order(sent.reference)?.status).toBe('SUCCESS');
      expect(bank.db.prepare('SELECT COUNT(*) FROM orders WHERE reference = ?').pluck().get(sent.reference)).toBe(1);
    } finally {
      await closePair(bank, connector, bankServer.server, 100)();
    }
  }, 15_000);
});

describe('a create whose answer a stop lost', () => {
  it('is reverse-polled by the next start: the Bank may hold the order, even a final it never calls back', async () => {
    // A Bank that takes the create and never answers it, like one still working when the Connector stops.
    const received: string[] = [];
    const silent = http.createServer((req, res) => {
      if (req.url === '/oauth/token') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'token-1', expires_in: 300 }));
      received.push(String(req.url));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const bankUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const dataDir = tempDir('reference-connector-lost-create-');
    const first = await startConnector(bankUrl, { CONNECTOR_DATA_DIR: dataDir, CREATE_RETRIES: '0' });
    const order = sampleOrder() as PaymentOrderBody;
    const create = first.bankClient.createOrder(order).catch(() => undefined);
    while (!received.includes('/payment-orders')) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.close();
    await create;
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));

    const second = await startConnector(await unreachableUrl(), { CONNECTOR_DATA_DIR: dataDir });
    try {
      expect(second.store.order(String(order.reference))?.status).toBe('READY');
      expect(second.store.pollOf(String(order.reference))).toMatchObject({ stopped_reason: null });
    } finally {
      await second.close();
    }
  });
});
