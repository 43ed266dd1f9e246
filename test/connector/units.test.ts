// Pure parts of the reference Connector: configuration, the status rules, the backoff math, the contract's
// status objects, and the fixture orders (valid per the Bank's own validation, scenarios as documented).
import fs from 'node:fs';
import path from 'node:path';
import { orderViolations } from '../../src/bank/application/order-validation';
import { hasValidIbanChecksum } from '../../src/bank/domain/iban';
import { decideScenario, formatScenario } from '../../src/bank/domain/scenarios';
import { generateSigningJwk, publicOnly } from '../../src/wire/keys';
import { BankJwks } from '../../src/connector/bank-jwks';
import { CONNECTOR_DEFAULTS, CONNECTOR_SETTINGS, loadConnectorConfig } from '../../src/connector/config';
import { connectorLogger } from '../../src/connector/connector';
import { FLAW_NAMES, Flaws } from '../../src/connector/flaws';
import { intervalSeries, nextPoll } from '../../src/connector/reverse-poller';
import { parseBatchCallback, parseCreateAnswer, parseStatusAnswer, parseUnitCallback } from '../../src/connector/status-objects';
import { decideTransition, openConnectorStore } from '../../src/connector/store';
import { nonceExpiresAt } from '../../src/wire/verify-request';
import { ROOT } from '../helpers/bank';
import { FIXTURE } from './helpers';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConnectorConfig({});
    expect(config).toEqual(CONNECTOR_DEFAULTS);
    expect(config).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: './data/connector',
      bankUrl: 'http://localhost:8080',
      bankStatusUrl: 'http://localhost:8080',
      bankJwksUrl: 'http://localhost:8080/.well-known/jwks.json',
      bankClientId: 'sandbox-bank',
      pullToken: 'demo-pull-token',
      pollInitialMs: 30_000,
      pollMaxMs: 900_000,
      pollFactor: 2,
      timestampWindowS: 300,
      createRetries: 3,
      createRetryInitialMs: 500,
      flaws: [],
    });
  });

  it('derives the status and JWKS URLs from BANK_URL unless they are set', () => {
    expect(loadConnectorConfig({ BANK_URL: 'http://bank:8080/' })).toMatchObject({
      bankUrl: 'http://bank:8080',
      bankStatusUrl: 'http://bank:8080',
      bankJwksUrl: 'http://bank:8080/.well-known/jwks.json',
    });
    expect(loadConnectorConfig({ BANK_URL: 'http://bank:8080', BANK_STATUS_URL: 'https://bank:8443', BANK_JWKS_URL: 'http://keys/jwks.json' })).toMatchObject({
      bankStatusUrl: 'https://bank:8443',
      bankJwksUrl: 'http://keys/jwks.json',
    });
  });

  it('names every bad variable', () => {
    const attempt = () => loadConnectorConfig({ CONNECTOR_PORT: 'abc', BANK_URL: 'ftp://x', POLL_FACTOR: '0.5', CONNECTOR_TLS_CERT: 'cert.pem' });
    expect(attempt).toThrow(/CONNECTOR_PORT/);
    expect(attempt).toThrow(/BANK_URL/);
    expect(attempt).toThrow(/POLL_FACTOR/);
    expect(attempt).toThrow(/CONNECTOR_TLS_KEY/);
    expect(() => loadConnectorConfig({ POLL_INITIAL_MS: '60000', POLL_MAX_MS: '1000' })).toThrow(/POLL_MAX_MS/);
    expect(() => loadConnectorConfig({ CREATE_RETRIES: '-1', CREATE_RETRY_INITIAL_MS: '0' })).toThrow(/CREATE_RETRIES[\s\S]*CREATE_RETRY_INITIAL_MS/);
  });

  it('every setting is in the README\'s Environment table, and the table lists no other variable', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'src/connector/README.md'), 'utf8');
    const section = readme.split(/^## /m).find((part) => part.startsWith('Environment\n')) ?? '';
    const documented = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1]));
    expect(documented.sort()).toEqual(CONNECTOR_SETTINGS.map((setting) => setting.env).sort());
  });

  it('reads CONNECTOR_FLAWS as a comma-separated list of known flaws; an unknown one names the valid ones', () => {
    expect(loadConnectorConfig({ CONNECTOR_FLAWS: ' ignores_limit,accepts_alg_none , ignores_limit' }).flaws).toEqual(['ignores_limit', 'accepts_alg_none']);
    expect(loadConnectorConfig({ CONNECTOR_FLAWS: '' }).flaws).toEqual([]);
    const attempt = () => loadConnectorConfig({ CONNECTOR_FLAWS: 'ignores_limit,accepts_everything' });
    expect(attempt).toThrow(/CONNECTOR_FLAWS: unknown flaw "accepts_everything"; valid: accepts_bad_signature, /);
    expect(attempt).toThrow(new RegExp(FLAW_NAMES.join(', ')));
  });
});

describe('status rules (contract section 3)', () => {
  it.each([
    ['READY', 'PENDING', 'apply'],
    ['READY', 'AWAITING', 'apply'],
    ['READY', 'SUCCESS', 'apply'],
    ['AWAITING', 'PENDING', 'apply'],
    ['AWAITING', 'FAILED', 'apply'],
    ['PENDING', 'SUCCESS', 'apply'],
    ['PENDING', 'PENDING', 'noop'],
    ['PENDING', 'AWAITING', 'noop'],
    ['SUCCESS', 'SUCCESS', 'noop'],
    ['FAILED', 'FAILED', 'noop'],
    ['SUCCESS', 'PENDING', 'noop'],
    ['FAILED', 'AWAITING', 'noop'],
    ['SUCCESS', 'FAILED', 'conflict'],
    ['FAILED', 'SUCCESS', 'conflict'],
  ] as const)('%s + %s -> %s', (current, incoming, decision) => {
    expect(decideTransition(current, incoming)).toBe(decision);
  });

  it('applies a final once, logs only changes, schedules and stops reverse polling', () => {
    const store = openConnectorStore(':memory:', 1000);
    store.insertOrder({ reference: 'R-1', initiated_at: '2026-11-20T08:00:00Z' }, 'push', 0);
    expect(store.applyStatus('R-1', { status: 'AWAITING' }, 'create', 10).outcome).toBe('apply');
    expect(store.pollOf('R-1')).toMatchObject({ next_at: 1010, interval_ms: 1000, stopped_reason: null });
    expect(store.applyStatus('R-1', { status: 'PENDING', bankReference: 'BNK-1' }, 'callback', 20).outcome).toBe('apply');
    expect(store.pollOf('R-1')?.next_at).toBe(1010);
    expect(store.applyStatus('R-1', { status: 'SUCCESS', bankReference: 'BNK-1' }, 'callback', 30).outcome).toBe('apply');
    expect(store.pollOf('R-1')?.stopped_reason).toMatch(/final/);
    expect(store.applyStatus('R-1', { status: 'SUCCESS', bankReference: 'BNK-1' }, 'batch', 40).outcome).toBe('noop');
    expect(store.applyStatus('R-1', { status: 'PENDING', bankReference: 'BNK-1' }, 'callback', 50).outcome).toBe('noop');
    expect(store.applyStatus('R-1', { status: 'FAILED', bankReference: 'BNK-1', reasonCode: 'BUS_NOT_SPECIFIED', reasonMessage: 'x' }, 'callback', 60).outcome).toBe('conflict');
    expect(store.applyStatus('R-1', { status: 'SUCCESS', bankReference: 'BNK-OTHER' }, 'callback', 70).outcome).toBe('conflict');
    expect(store.applyStatus('R-404', { status: 'SUCCESS' }, 'callback', 80).outcome).toBe('unknown');
    expect(store.order('R-1')).toMatchObject({ status: 'SUCCESS', bank_reference: 'BNK-1' });
    expect(store.snapshot().status_log.map((entry) => [entry.status, entry.via])).toEqual([
      ['AWAITING', 'create'],
      ['PENDING', 'callback'],
      ['SUCCESS', 'callback'],
    ]);
    store.close();
  });
});

describe("the Bank's nonces (profile section 2)", () => {
  it('stay spent to the last millisecond of the window, inclusive, then may be used again', () => {
    const store = openConnectorStore(':memory:', 1000);
    const expiresAt = nonceExpiresAt(1_000_000, 1_000_000, 300);
    expect(store.spendNonce('sandbox-bank', 'nonce-aaaaaaaaaaaa', 1_000_000, expiresAt)).toBe(true);
    expect(store.spendNonce('sandbox-bank', 'nonce-aaaaaaaaaaaa', expiresAt, expiresAt + 300_000)).toBe(false);
    expect(store.spendNonce('sandbox-bank', 'nonce-aaaaaaaaaaaa', expiresAt + 1, expiresAt + 300_001)).toBe(true);
    store.close();
  });
});

describe('reverse polling backoff (contract section 8)', () => {
  const policy = { initialMs: 30_000, maxMs: 900_000, factor: 2 };

  it('starts short, grows exponentially and stops growing at the cap', () => {
    expect(intervalSeries(policy, 8)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000]);
    expect(intervalSeries({ initialMs: 1000, maxMs: 5000, factor: 1.5 }, 6)).toEqual([1000, 1500, 2250, 3375, 5000, 5000]);
  });

  it('keeps the schedule on a non-final answer and on technical errors', () => {
    expect(nextPoll(policy, 30_000, { kind: 'not-final' }, 1_000)).toEqual({ stop: false, nextAt: 61_000, intervalMs: 60_000 });
    expect(nextPoll(policy, 900_000, { kind: 'error' }, 0)).toEqual({ stop: false, nextAt: 900_000, intervalMs: 900_000 });
  });

  it('backs off on 429: the interval grows and Retry-After is honoured, even beyond the cap', () => {
    expect(nextPoll(policy, 30_000, { kind: 'rate-limited', retryAfterMs: 5_000 }, 0)).toEqual({ stop: false, nextAt: 60_000, intervalMs: 60_000 });
    expect(nextPoll(policy, 30_000, { kind: 'rate-limited', retryAfterMs: 120_000 }, 0)).toEqual({ stop: false, nextAt: 120_000, intervalMs: 60_000 });
    expect(nextPoll(policy, 900_000, { kind: 'rate-limited', retryAfterMs: 3_600_000 }, 0)).toEqual({ stop: false, nextAt: 3_600_000, intervalMs: 900_000 });
    expect(nextPoll(policy, 30_000, { kind: 'rate-limited', retryAfterMs: null }, 0)).toEqual({ stop: false, nextAt: 60_000, intervalMs: 60_000 });
  });

  it('stops on a final status and on 404', () => {
    expect(nextPoll(policy, 30_000, { kind: 'final' }, 0)).toEqual({ stop: true });
    expect(nextPoll(policy, 30_000, { kind: 'not-found' }, 0)).toEqual({ stop: true });
  });
});

describe('status objects, with the field names of each flow', () => {
  const at = '2026-11-20T08:00:00.000Z';

  it('unit callback and reverse polling: reasonCode/reasonMessage/processed_at', () => {
    expect(parseUnitCallback({ reference: 'R', bank_reference: 'B', status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS', reasonMessage: 'no money', processed_at: at }).value).toEqual({
      reference: 'R', bankReference: 'B', status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS', reasonMessage: 'no money', at,
    });
    expect(parseUnitCallback({ reference: 'R', bank_reference: 'B', status: 'FAILED', processed_at: at }).errors.map((error) => error.path)).toEqual(['/reasonCode', '/reasonMessage']);
    expect(parseUnitCallback({ reference: 'R', bank_reference: 'B', status: 'FAILED', reasonCode: 'NOT_A_CODE', reasonMessage: 'm', processed_at: at }).errors.map((error) => error.path)).toEqual(['/reasonCode']);
    expect(parseUnitCallback({ reference: 'R', status: 'DONE' }).errors.map((error) => error.path)).toEqual(['/bank_reference', '/status', '/processed_at']);
    expect(parseStatusAnswer({ reference: 'OTHER', bank_reference: 'B', status: 'SUCCESS', processed_at: at }, 'R').errors).toEqual([{ path: '/reference', message: 'must be R' }]);
  });

  it('batch: timestamp per item, batch_id equal to the idempotency key', () => {
    const batch = { batch_id: 'batch-1', sent_at: at, orders: [{ reference: 'R', bank_reference: 'B', status: 'SUCCESS', timestamp: at }] };
    expect(parseBatchCallback(batch, 'batch-1').value).toHaveLength(1);
    expect(parseBatchCallback(batch, 'batch-2').errors).toEqual([{ path: '/batch_id', message: 'must equal X-Idempotency-Key' }]);
    expect(parseBatchCallback({ ...batch, orders: [{ reference: 'R', bank_reference: 'B', status: 'SUCCESS', processed_at: at }] }, 'batch-1').errors.map((error) => error.path)).toEqual(['/orders/0/timestamp']);
    expect(parseBatchCallback({ ...batch, orders: [] }, 'batch-1').errors.map((error) => error.path)).toEqual(['/orders']);
  });

  it('create answer: reason_code/reason_message/timestamp, reference equal to the one sent', () => {
    const answer = { status: 'FAILED', reference: 'R', bank_reference: 'B', timestamp: at, reason_code: 'BUS_ACCOUNT_CLOSED', reason_message: 'closed' };
    expect(parseCreateAnswer(answer, 'R').value).toMatchObject({ status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED', reasonMessage: 'closed' });
    expect(parseCreateAnswer(answer, 'X').errors.map((error) => error.path)).toEqual(['/reference']);
    expect(parseCreateAnswer({ ...answer, bank_reference: undefined }, 'R').errors.map((error) => error.path)).toEqual(['/bank_reference']);
    expect(parseCreateAnswer({ ...answer, timestamp: '2026-11-20T09:00:00+01:00' }, 'R').errors.map((error) => error.path)).toEqual(['/timestamp']);
  });
});

describe('fixtures/connector-orders.json', () => {
  const orders = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Record<string, any>[];

  it('holds about a dozen orders that the Bank accepts as they are (contract 2.1, no extra fields)', () => {
    expect(orders.length).toBeGreaterThanOrEqual(10);
    for (const order of orders) {
      expect(orderViolations(order)).toEqual([]);
      expect([order.debtor.iban, ...order.creditors.map((creditor: { iban: string }) => creditor.iban)].every(hasValidIbanChecksum)).toBe(true);
      expect(Object.values(order.metadata).every((value) => typeof value === 'string')).toBe(true);
    }
    expect(new Set(orders.map((order) => order.reference)).size).toBe(orders.length);
  });

  it('has distinct initiated_at values except a couple sharing one instant', () => {
    const instants = orders.map((order) => order.initiated_at);
    expect(new Set(instants).size).toBe(instants.length - 1);
  });

  it('covers the sandbox scenarios by cents and by metadata', () => {
    const scenarios = new Set(orders.map((order) => formatScenario(decideScenario(order as never, []).scenario)));
    for (const expected of ['SUCCESS', 'FAILED:BUS_INSUFFICIENT_FUNDS', 'PENDING:5:SUCCESS', 'ASYNC:5:SUCCESS', 'DUPLICATE_CALLBACK']) {
      expect(scenarios).toContain(expected);
    }
  });
});

describe("the Bank's JWKS cache", () => {
  /** A JWKS source whose published keys the test changes, counting fetches, on a clock the test moves. */
  async function source() {
    const [first, rotated, later] = [publicOnly(await generateSigningJwk()), publicOnly(await generateSigningJwk()), publicOnly(await generateSigningJwk())];
    const state = { published: [first], fetches: 0, now: 1_000_000 };
    const cache = (flaws = Flaws.NONE) =>
      new BankJwks(
        async () => {
          state.fetches += 1;
          return { keys: state.published };
        },
        () => state.now,
        connectorLogger('error', true),
        flaws,
      );
    return { first, rotated, later, state, cache };
  }

  it('fetches on first use and keeps the keys: a known kid never refetches', async () => {
    const { first, state, cache } = await source();
    const jwks = cache();
    expect(await jwks.keyFor(first.kid!, 'ES256')).not.toBeNull();
    state.now += 30 * 60_000;
    expect(await jwks.keyFor(first.kid!, 'ES256')).not.toBeNull();
    expect(state.fetches).toBe(1);
    expect(await jwks.keyFor(first.kid!, 'RS256')).toBeNull(); // a key is only good for its own alg
  });

  it('refetches on an unknown kid even a moment after the first fetch (a key rotated since)', async () => {
    const { first, rotated, state, cache } = await source();
    const jwks = cache();
    await jwks.keyFor(first.kid!, 'ES256');
    state.published = [first, rotated];
    state.now += 10;
    expect(await jwks.keyFor(rotated.kid!, 'ES256')).not.toBeNull();
    expect(state.fetches).toBe(2);
  });

  it('a made-up kid costs one refetch, however often it is repeated', async () => {
    const { first, state, cache } = await source();
    const jwks = cache();
    await jwks.keyFor(first.kid!, 'ES256');
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(await jwks.keyFor('made-up-kid', 'ES256')).toBeNull();
      state.now += 2_000;
    }
    expect(state.fetches).toBe(2);
  });

  it('a made-up kid followed at once by a rotated key: each gets its refetch, the rotated key is found', async () => {
    const { first, rotated, state, cache } = await source();
    const jwks = cache();
    await jwks.keyFor(first.kid!, 'ES256');
    expect(await jwks.keyFor('made-up-kid', 'ES256')).toBeNull();
    state.published = [first, rotated];
    state.now += 5;
    expect(await jwks.keyFor(rotated.kid!, 'ES256')).not.toBeNull();
    expect(state.fetches).toBe(3);
  });

  it('a burst of distinct made-up kids costs at most two refetches per 5 s', async () => {
    const { first, later, state, cache } = await source();
    const jwks = cache();
    await jwks.keyFor(first.kid!, 'ES256');
    for (let kid = 0; kid < 50; kid += 1) {
      expect(await jwks.keyFor(`made-up-${kid}`, 'ES256')).toBeNull();
      state.now += 50;
    }
    expect(state.fetches).toBe(1 + 2);
    // Within the same 5 s, even a real rotation waits; once the window has passed, it is found.
    state.published = [first, later];
    expect(await jwks.keyFor(later.kid!, 'ES256')).toBeNull();
    state.now += 5_000;
    expect(await jwks.keyFor(later.kid!, 'ES256')).not.toBeNull();
    expect(state.fetches).toBe(4);
  });

  it('concurrent requests with one unknown kid share one refetch', async () => {
    const { first, rotated, state, cache } = await source();
    const jwks = cache();
    await jwks.keyFor(first.kid!, 'ES256');
    state.published = [first, rotated];
    const keys = await Promise.all([1, 2, 3].map(() => jwks.keyFor(rotated.kid!, 'ES256')));
    expect(keys.every((key) => key !== null)).toBe(true);
    expect(state.fetches).toBe(2);
  });

  it('refreshes a JWKS older than an hour before use, without spending the unknown-kid budget', async () => {
    const { first, rotated, state, cache } = await source();
    const jwks = cache();
    await jwks.keyFor(first.kid!, 'ES256');
    state.now += 60 * 60_000 + 1;
    state.published = [rotated];
    expect(await jwks.keyFor(rotated.kid!, 'ES256')).not.toBeNull();
    expect(state.fetches).toBe(2);
    for (const kid of ['made-up-1', 'made-up-2', 'made-up-3']) expect(await jwks.keyFor(kid, 'ES256')).toBeNull();
    expect(state.fetches).toBe(2 + 2);
  });

  it('with the flaw no_jwks_refetch, an unknown kid never refetches: the rotated key is refused', async () => {
    const { first, rotated, state, cache } = await source();
    const jwks = cache(new Flaws(['no_jwks_refetch']));
    await jwks.keyFor(first.kid!, 'ES256');
    state.published = [first, rotated];
    state.now += 60_000;
    expect(await jwks.keyFor(rotated.kid!, 'ES256')).toBeNull();
    expect(state.fetches).toBe(1);
  });

  it('answers 503 jwks_unavailable when the JWKS was never fetched', async () => {
    const jwks = new BankJwks(() => Promise.reject(new Error('ECONNREFUSED')), () => 0, connectorLogger('error', true));
    await expect(jwks.keyFor('any', 'ES256')).rejects.toMatchObject({ code: 'jwks_unavailable', status: 503 });
  });
});
