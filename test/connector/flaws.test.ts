// The deliberately broken variants of the reference Connector (CONNECTOR_FLAWS, src/connector/flaws.ts): each flaw
// does what it says, the very same request is refused (or handled) correctly without it, and each flaw breaks its
// one behaviour and nothing else. One Bank (relaxed, for create and reverse polling), a JWKS server that serves the
// Bank's keys plus keys the tests publish (a "rotation"), and one Connector per flaw; requests to the Connectors are
// signed with the Bank's own key and signature-base code, as the Bank's conformance run signs them.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { CASES } from '../../src/bank/conformance/model';
import { b64url } from '../../src/wire/base64url';
import { ManualClock } from '../../src/wire/clock';
import { generateSigningJwk, PublicJwk, publicOnly, SigningKey, signingKeyFromJwk } from '../../src/wire/keys';
import { contentDigest } from '../../src/wire/signature-base';
import { ReferenceConnector } from '../../src/connector/connector';
import { Flaw, FLAW_NAMES, FLAWS } from '../../src/connector/flaws';
import { isoNow, sampleOrder, startBank, uniqueReference } from '../helpers/bank';
import { bankSignedHeaders, lateBoundServer, startConnector, unreachableUrl } from './helpers';

const clock = new ManualClock(Date.now());
let bank: Bank;
let bankUrl: string;
let closeBankServer: () => Promise<void>;
/** What the JWKS server publishes besides the Bank's own keys. */
const publishedExtra: PublicJwk[] = [];
let jwksServer: http.Server;
let jwksUrl: string;
const connectors = new Map<string, ReferenceConnector>();

beforeAll(async () => {
  const bankServer = await lateBoundServer();
  bankUrl = bankServer.url;
  bank = await startBank({ sandboxMode: 'relaxed', connectorUrl: await unreachableUrl(), pollCron: 'off', retryScheduleS: [3600], statusRatePerS: 10_000, statusRateBurst: 10_000 }, { clock });
  bankServer.bind(bank.app);
  closeBankServer = async () => {
    bankServer.server.closeAllConnections();
    await new Promise((resolve) => bankServer.server.close(resolve));
  };
  const bankKeys = ((await (await fetch(`${bankUrl}/.well-known/jwks.json`)).json()) as { keys: PublicJwk[] }).keys;
  jwksServer = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [...bankKeys, ...publishedExtra] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
});

afterAll(async () => {
  for (const connector of connectors.values()) await connector.close();
  await bank.outbound.stop(100);
  bank.close();
  await closeBankServer();
  jwksServer.closeAllConnections();
  await new Promise((resolve) => jwksServer.close(resolve));
});

const CONNECTOR_ENV = { POLL_INITIAL_MS: '200', POLL_MAX_MS: '1600', POLL_FACTOR: '2' };

/**
 * The Connector with `flaw` (or none), one per `set`: 'focused' ones get the flaw from CONNECTOR_FLAWS, 'matrix'
 * ones from the config object (the two ways a flaw is set).
 */
async function connectorWith(flaw: Flaw | null, set: 'focused' | 'matrix' = 'focused'): Promise<ReferenceConnector> {
  const name = `${set}:${flaw ?? 'none'}`;
  let connector = connectors.get(name);
  if (!connector) {
    const env = { ...CONNECTOR_ENV, BANK_JWKS_URL: jwksUrl, ...(set === 'focused' && flaw ? { CONNECTOR_FLAWS: flaw } : {}) };
    connector = await startConnector(bankUrl, env, clock, set === 'matrix' ? { flaws: flaw ? [flaw] : [] } : {});
    connectors.set(name, connector);
  }
  return connector;
}

// --- requests as the Bank sends them ---------------------------------------------------------------------------

interface Prepared {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  code: string | undefined;
  body: Record<string, any>;
}

async function send(connector: ReferenceConnector, prepared: Prepared): Promise<Answer> {
  const test = prepared.method === 'GET' ? request(connector.app).get(prepared.path) : request(connector.app).post(prepared.path);
  const response = await test.set(prepared.headers).send(prepared.body ?? '');
  return { status: response.status, code: response.body?.code, body: response.body };
}

const pullTarget = (limit: number) => `/payment-orders?status=READY&limit=${limit}&offset=1970-01-01T00%3A00%3A00Z`;

function pull(limit = 5, overrides: Record<string, string> = {}): Prepared {
  const path = pullTarget(limit);
  const headers = bankSignedHeaders(bank.signer, 'pull', 'GET', path, '', clock, overrides);
  return { method: 'GET', path, headers: { ...headers, authorization: 'Bearer demo-pull-token' } };
}

/** A pull from `offset` (an initiated_at), as the Bank's cursor asks for the next page. */
function pullFrom(offset: string, limit = 100): Prepared {
  const path = `/payment-orders?status=READY&limit=${limit}&offset=${encodeURIComponent(offset)}`;
  const headers = bankSignedHeaders(bank.signer, 'pull', 'GET', path, '', clock);
  return { method: 'GET', path, headers: { ...headers, authorization: 'Bearer demo-pull-token' } };
}

/** The first order the pull serves from the epoch: its reference and initiated_at. */
async function firstServed(connector: ReferenceConnector): Promise<{ reference: string; initiated_at: string }> {
  const answer = await send(connector, pull(1));
  expect(answer.status).toBe(200);
  return answer.body.content[0];
}

const servedReferences = (answer: Answer): string[] => (answer.body.content ?? []).map((order: { reference: string }) => order.reference);

const UNIT_PATH = '/callbacks/orders/status';
const BATCH_PATH = '/callbacks/orders/status/batch';

/** A callback signed over `signedBody` by `signer`; `sentBody` (default: the same) is what travels. */
function callback(path: string, signedBody: string, options: { signer?: SigningKey; sentBody?: string; headers?: Record<string, string> } = {}): Prepared {
  const headers = bankSignedHeaders(options.signer ?? bank.signer, 'callback', 'POST', path, signedBody, clock, options.headers);
  return { method: 'POST', path, headers: { ...headers, 'content-type': 'application/json' }, body: options.sentBody ?? signedBody };
}

const now = () => new Date(clock.now()).toISOString();
const tenMinutesAgo = () => isoNow({ now: () => clock.now() - 10 * 60_000 });

/** A pushed order the Connector knows (so a callback can report on it), READY, out of the pull. */
function newOrder(...targets: ReferenceConnector[]): string {
  const reference = uniqueReference('FLAW');
  for (const connector of targets) connector.store.insertOrder({ reference, initiated_at: '2026-11-21T00:00:00Z' }, 'push', clock.now());
  return reference;
}

const success = (reference: string) => JSON.stringify({ reference, bank_reference: `BNK-${reference}`, status: 'SUCCESS', processed_at: now() });

/** A callback signed over a PENDING body, carrying a SUCCESS body, with a Content-Digest of the `digestOf` body. */
function changedBody(reference: string, digestOf: 'sent' | 'signed'): Prepared {
  const signedBody = JSON.stringify({ reference, bank_reference: 'BNK-1', status: 'PENDING', processed_at: now() });
  const sentBody = success(reference);
  const prepared = callback(UNIT_PATH, signedBody, { sentBody });
  return { ...prepared, headers: { ...prepared.headers, 'content-digest': contentDigest(digestOf === 'sent' ? sentBody : signedBody) } };
}

/** X-Signature with alg "none": a protected header and an empty signature part. */
function algNone(prepared: Prepared): Prepared {
  const header = b64url(JSON.stringify({ alg: 'none', kid: bank.signer.kid, typ: 'JOSE' }));
  return { ...prepared, headers: { ...prepared.headers, 'x-signature': `${header}..` } };
}

/** A key the Bank's JWKS does not hold, under its own kid. */
async function strangerKey(): Promise<SigningKey> {
  return signingKeyFromJwk(await generateSigningJwk());
}

/** A new key published in the JWKS from now on (the Bank rotated its key). */
async function rotatedKey(): Promise<SigningKey> {
  const jwk = await generateSigningJwk();
  publishedExtra.push(publicOnly(jwk));
  return signingKeyFromJwk(jwk);
}

/** Makes sure the Connector has fetched the JWKS (a correct pull), so that a key published later is new to it. */
async function fetchedJwks(connector: ReferenceConnector): Promise<void> {
  expect((await send(connector, pull())).status).toBe(200);
}

/** Creates an order with `scenario` through the Connector, then runs one reverse-polling pass when it is due. */
async function createAndPollOnce(connector: ReferenceConnector, scenario: string): Promise<{ reference: string; polledAt: number }> {
  const order = sampleOrder({ metadata: { initiator: 'flaws-test', sandbox_scenario: scenario } }) as { reference: string; initiated_at: string };
  expect(await connector.bankClient.createOrder(order)).toMatchObject({ httpStatus: 202 });
  clock.set(connector.store.pollOf(order.reference)!.next_at);
  await connector.reversePoller.tick();
  return { reference: order.reference, polledAt: clock.now() };
}

// --- each flaw, focused -----------------------------------------------------------------------------------------

describe('accepts_bad_signature', () => {
  it('accepts a pull whose target changed after signing; without the flaw, 401 signature_invalid', async () => {
    const [flawed, correct] = [await connectorWith('accepts_bad_signature'), await connectorWith(null)];
    const signed = pull(5);
    const tampered = { ...signed, path: pullTarget(500) };
    expect(await send(flawed, tampered)).toMatchObject({ status: 200, body: { limit: 500, size: 12 } });
    expect(await send(correct, tampered)).toMatchObject({ status: 401, code: 'signature_invalid' });
  });

  it('accepts a callback whose body changed after signing, with or without the Content-Digest of the signed body', async () => {
    const [flawed, correct] = [await connectorWith('accepts_bad_signature'), await connectorWith(null)];
    for (const withDigest of [true, false]) {
      const reference = newOrder(flawed, correct);
      const signedBody = JSON.stringify({ reference, bank_reference: 'BNK-1', status: 'PENDING', processed_at: now() });
      const sentBody = success(reference);
      const digest: Record<string, string> = withDigest ? { 'content-digest': contentDigest(signedBody) } : {};
      const prepared = callback(UNIT_PATH, signedBody, { sentBody });
      const tampered = { ...prepared, headers: { ...prepared.headers, ...digest } };
      expect(await send(flawed, tampered)).toMatchObject({ status: 200, body: { applied: 1 } });
      expect(flawed.store.order(reference)?.status).toBe('SUCCESS');
      const refused = await send(correct, tampered);
      expect([refused.status, refused.code]).toEqual([401, 'signature_invalid']);
      expect(refused.body.detail).toMatch(withDigest ? /Content-Digest/ : /does not match the signature base/);
      expect(correct.store.order(reference)?.status).toBe('READY');
    }
  });

  it('still refuses a missing signature, alg none and an unknown kid (even with a changed body)', async () => {
    const flawed = await connectorWith('accepts_bad_signature');
    const reference = newOrder(flawed);
    const { 'x-signature': _dropped, ...unsigned } = pull().headers;
    expect(await send(flawed, { ...pull(), headers: unsigned })).toMatchObject({ status: 401, code: 'signature_missing' });
    expect(await send(flawed, algNone(callback(UNIT_PATH, success(reference))))).toMatchObject({ status: 401, code: 'signature_invalid' });
    const stranger = await strangerKey();
    expect(await send(flawed, callback(UNIT_PATH, success(reference), { signer: stranger }))).toMatchObject({ status: 401, code: 'signature_invalid' });
    const signedBody = JSON.stringify({ reference, bank_reference: 'BNK-1', status: 'PENDING', processed_at: now() });
    const prepared = callback(UNIT_PATH, signedBody, { signer: stranger, sentBody: success(reference) });
    const tampered = { ...prepared, headers: { ...prepared.headers, 'content-digest': contentDigest(signedBody) } };
    expect(await send(flawed, tampered)).toMatchObject({ status: 401, code: 'signature_invalid' });
    expect(flawed.store.order(reference)?.status).toBe('READY');
  });
});

describe('checks_only_digest', () => {
  it('accepts a callback whose body changed after signing when its Content-Digest matches the changed body; without the flaw, 401 signature_invalid', async () => {
    const [flawed, correct] = [await connectorWith('checks_only_digest'), await connectorWith(null)];
    const reference = newOrder(flawed, correct);
    const tampered = changedBody(reference, 'sent');
    expect(await send(flawed, tampered)).toMatchObject({ status: 200, body: { applied: 1 } });
    expect(flawed.store.order(reference)?.status).toBe('SUCCESS');
    const refused = await send(correct, tampered);
    expect([refused.status, refused.code, refused.body.detail]).toEqual([401, 'signature_invalid', expect.stringMatching(/does not match the signature base/)]);
    expect(correct.store.order(reference)?.status).toBe('READY');
  });

  it('still refuses a body that does not match its Content-Digest, alg none, an unknown kid, and a pull whose target changed after signing', async () => {
    const flawed = await connectorWith('checks_only_digest');
    const reference = newOrder(flawed);
    expect(await send(flawed, changedBody(reference, 'signed'))).toMatchObject({ status: 401, code: 'signature_invalid', body: { detail: expect.stringMatching(/Content-Digest/) } });
    expect(await send(flawed, algNone(callback(UNIT_PATH, success(reference))))).toMatchObject({ status: 401, code: 'signature_invalid' });
    expect(await send(flawed, callback(UNIT_PATH, success(reference), { signer: await strangerKey() }))).toMatchObject({ status: 401, code: 'signature_invalid' });
    expect(await send(flawed, { ...pull(1), path: pullTarget(3) })).toMatchObject({ status: 401, code: 'signature_invalid' });
    expect(flawed.store.order(reference)?.status).toBe('READY');
  });
});

describe('accepts_alg_none', () => {
  it('accepts a callback whose JWS says alg "none"; without the flaw, 401 signature_invalid', async () => {
    const [flawed, correct] = [await connectorWith('accepts_alg_none'), await connectorWith(null)];
    const reference = newOrder(flawed, correct);
    const unsigned = algNone(callback(UNIT_PATH, success(reference)));
    expect(await send(flawed, unsigned)).toMatchObject({ status: 200, body: { applied: 1 } });
    expect(flawed.store.order(reference)?.status).toBe('SUCCESS');
    expect(await send(correct, unsigned)).toMatchObject({ status: 401, code: 'signature_invalid' });
    expect(correct.store.order(reference)?.status).toBe('READY');
  });

  it('still refuses a real signature that does not verify', async () => {
    const flawed = await connectorWith('accepts_alg_none');
    const reference = newOrder(flawed);
    const signedBody = JSON.stringify({ reference, bank_reference: 'BNK-1', status: 'PENDING', processed_at: now() });
    expect(await send(flawed, callback(UNIT_PATH, signedBody, { sentBody: success(reference) }))).toMatchObject({ status: 401, code: 'signature_invalid' });
  });
});

describe('ignores_limit', () => {
  it('answers every matching order whatever the limit; without the flaw, at most limit', async () => {
    const [flawed, correct] = [await connectorWith('ignores_limit'), await connectorWith(null)];
    const prepared = pull(2);
    expect(await send(flawed, prepared)).toMatchObject({ status: 200, body: { limit: 2, size: 12, total_elements: 12 } });
    expect(await send(correct, prepared)).toMatchObject({ status: 200, body: { limit: 2, size: 2, total_elements: 12 } });
  });
});

describe('exclusive_offset', () => {
  it('leaves out the orders initiated exactly at the offset; without the flaw, the offset is inclusive', async () => {
    const [flawed, correct] = [await connectorWith('exclusive_offset'), await connectorWith(null)];
    const first = await firstServed(correct);
    const prepared = pullFrom(first.initiated_at);
    expect(servedReferences(await send(correct, prepared))).toContain(first.reference);
    const answer = await send(flawed, prepared);
    expect(answer.status).toBe(200);
    expect(servedReferences(answer)).not.toContain(first.reference);
    expect(answer.body.content.every((order: { initiated_at: string }) => order.initiated_at > first.initiated_at)).toBe(true);
  });
});

describe('accepts_stale_timestamp', () => {
  it('accepts a correctly signed pull whose X-Timestamp is 10 minutes old; without the flaw, 401 timestamp_out_of_window', async () => {
    const [flawed, correct] = [await connectorWith('accepts_stale_timestamp'), await connectorWith(null)];
    const stale = pull(5, { 'x-timestamp': tenMinutesAgo() });
    expect(await send(flawed, stale)).toMatchObject({ status: 200 });
    expect(await send(correct, stale)).toMatchObject({ status: 401, code: 'timestamp_out_of_window' });
  });
});

describe('accepts_replayed_nonce', () => {
  it('accepts a pull sent twice with one nonce, and a callback replayed byte for byte; without the flaw, 401 nonce_replayed', async () => {
    const [flawed, correct] = [await connectorWith('accepts_replayed_nonce'), await connectorWith(null)];
    const prepared = pull();
    expect((await send(flawed, prepared)).status).toBe(200);
    expect((await send(flawed, prepared)).status).toBe(200);
    expect((await send(correct, prepared)).status).toBe(200);
    expect(await send(correct, prepared)).toMatchObject({ status: 401, code: 'nonce_replayed' });

    const reference = newOrder(flawed, correct);
    const replayed = callback(UNIT_PATH, success(reference));
    expect((await send(flawed, replayed)).status).toBe(200);
    expect(await send(flawed, replayed)).toMatchObject({ status: 200, body: { replayed: true } });
    expect((await send(correct, replayed)).status).toBe(200);
    expect(await send(correct, replayed)).toMatchObject({ status: 401, code: 'nonce_replayed' });
  });
});

describe('applies_partial_batch', () => {
  it('applies the valid items of a batch with a FAILED item without reasonCode and answers 200; without the flaw, 400 and nothing applied', async () => {
    const [flawed, correct] = [await connectorWith('applies_partial_batch'), await connectorWith(null)];
    const [first, second, third] = [newOrder(flawed, correct), newOrder(flawed, correct), newOrder(flawed, correct)];
    const items = [
      { reference: first, bank_reference: 'BNK-A', status: 'SUCCESS', timestamp: now() },
      { reference: second, bank_reference: 'BNK-B', status: 'FAILED', timestamp: now() },
      { reference: third, bank_reference: 'BNK-C', status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED', reasonMessage: 'Account closed', timestamp: now() },
    ];
    const batch = (key: string, orders: unknown[]) => callback(BATCH_PATH, JSON.stringify({ batch_id: key, sent_at: now(), orders }), { headers: { 'x-idempotency-key': key } });
    const prepared = batch('batch-partial-1', items);

    expect(await send(flawed, prepared)).toMatchObject({ status: 200, body: { applied: 2 } });
    expect([first, second, third].map((reference) => flawed.store.order(reference)?.status)).toEqual(['SUCCESS', 'READY', 'FAILED']);

    const refused = await send(correct, prepared);
    expect([refused.status, refused.code, refused.body.errors.map((error: { path: string }) => error.path)]).toEqual([400, 'body_invalid', ['/orders/1/reasonCode', '/orders/1/reasonMessage']]);
    expect([first, second, third].map((reference) => correct.store.order(reference)?.status)).toEqual(['READY', 'READY', 'READY']);
    // The two valid items in a new batch: 200, applied now (nothing of the first batch was).
    expect(await send(correct, batch('batch-partial-2', [items[0], items[2]]))).toMatchObject({ status: 200, body: { applied: 2 } });
  });
});

describe('no_jwks_refetch', () => {
  it('refuses a callback signed by a key published after its JWKS fetch; without the flaw, refetches and accepts', async () => {
    const [flawed, correct] = [await connectorWith('no_jwks_refetch'), await connectorWith(null)];
    await fetchedJwks(flawed);
    await fetchedJwks(correct);
    const reference = newOrder(flawed, correct);
    const rotated = callback(UNIT_PATH, success(reference), { signer: await rotatedKey() });
    expect(await send(flawed, rotated)).toMatchObject({ status: 401, code: 'signature_invalid' });
    expect(await send(correct, rotated)).toMatchObject({ status: 200, body: { applied: 1 } });
  });
});

describe('accepts_failed_without_reason', () => {
  it('accepts and applies FAILED without reasonCode and reasonMessage; without the flaw, 400 body_invalid', async () => {
    const [flawed, correct] = [await connectorWith('accepts_failed_without_reason'), await connectorWith(null)];
    const reference = newOrder(flawed, correct);
    const prepared = callback(UNIT_PATH, JSON.stringify({ reference, bank_reference: 'BNK-1', status: 'FAILED', processed_at: now() }));
    expect(await send(flawed, prepared)).toMatchObject({ status: 200, body: { applied: 1 } });
    expect(flawed.store.order(reference)).toMatchObject({ status: 'FAILED', reason_code: null, reason_message: null });
    const refused = await send(correct, prepared);
    expect([refused.status, refused.code, refused.body.errors.map((error: { path: string }) => error.path)]).toEqual([400, 'body_invalid', ['/reasonCode', '/reasonMessage']]);
    expect(correct.store.order(reference)?.status).toBe('READY');
  });
});

describe('ignores_retry_after', () => {
  it("polls again on its own short schedule after a 429 with Retry-After: 2; without the flaw, not before 2 s", async () => {
    const flawed = await connectorWith('ignores_retry_after');
    const throttled = await createAndPollOnce(flawed, 'POLL_429:1:ASYNC:60:SUCCESS');
    expect(flawed.store.pollOf(throttled.reference)).toMatchObject({ attempts: 1, next_at: throttled.polledAt + 400 });
    clock.set(throttled.polledAt + 400);
    await flawed.reversePoller.tick();
    expect(flawed.store.pollOf(throttled.reference)?.attempts).toBe(2); // polled again 0.4 s after the 429

    const correct = await connectorWith(null);
    const honoured = await createAndPollOnce(correct, 'POLL_429:1:ASYNC:60:SUCCESS');
    expect(correct.store.pollOf(honoured.reference)).toMatchObject({ attempts: 1, next_at: honoured.polledAt + 2000 });
  });
});

describe('polls_after_404', () => {
  it('keeps polling an order the Bank answered 404; without the flaw, stops and raises an alert', async () => {
    const flawed = await connectorWith('polls_after_404');
    const lost = await createAndPollOnce(flawed, 'POLL_404');
    expect(flawed.store.pollOf(lost.reference)).toMatchObject({ attempts: 1, stopped_reason: null });
    clock.set(flawed.store.pollOf(lost.reference)!.next_at);
    await flawed.reversePoller.tick();
    expect(flawed.store.pollOf(lost.reference)).toMatchObject({ attempts: 2, stopped_reason: null });

    const correct = await connectorWith(null);
    const stopped = await createAndPollOnce(correct, 'POLL_404');
    expect(correct.store.pollOf(stopped.reference)).toMatchObject({ attempts: 0, stopped_reason: expect.stringMatching(/404/) });
    expect(correct.store.snapshot().alerts).toContainEqual(expect.objectContaining({ reference: stopped.reference }));
  });
});

// --- each flaw breaks its one behaviour and nothing else ----------------------------------------------------------

/** For each flaw, a quick probe: true when the Connector shows that flawed behaviour. */
const PROBES: Record<Flaw, (connector: ReferenceConnector) => Promise<boolean>> = {
  accepts_bad_signature: async (connector) => (await send(connector, { ...pull(1), path: pullTarget(3) })).status === 200,
  accepts_alg_none: async (connector) => (await send(connector, algNone(callback(UNIT_PATH, success(newOrder(connector)))))).status === 200,
  checks_only_digest: async (connector) => {
    // Refuses a body that does not match its Content-Digest (accepts_bad_signature takes it), takes one that does.
    const reference = newOrder(connector);
    return (await send(connector, changedBody(reference, 'signed'))).status !== 200 && (await send(connector, changedBody(reference, 'sent'))).status === 200;
  },
  ignores_limit: async (connector) => (await send(connector, pull(1))).body.size !== 1,
  exclusive_offset: async (connector) => {
    const first = await firstServed(connector);
    return !servedReferences(await send(connector, pullFrom(first.initiated_at))).includes(first.reference);
  },
  accepts_stale_timestamp: async (connector) => (await send(connector, pull(1, { 'x-timestamp': tenMinutesAgo() }))).status === 200,
  accepts_replayed_nonce: async (connector) => {
    const prepared = pull(1);
    await send(connector, prepared);
    return (await send(connector, prepared)).status === 200;
  },
  applies_partial_batch: async (connector) => {
    // An invalid item that has nothing to do with reasons, so that accepts_failed_without_reason does not show here.
    const orders = [
      { reference: newOrder(connector), bank_reference: 'BNK-A', status: 'SUCCESS', timestamp: now() },
      { reference: newOrder(connector), bank_reference: 'BNK-B', status: 'DONE', timestamp: now() },
    ];
    const key = `batch-${uniqueReference('PROBE')}`;
    return (await send(connector, callback(BATCH_PATH, JSON.stringify({ batch_id: key, sent_at: now(), orders }), { headers: { 'x-idempotency-key': key } }))).status === 200;
  },
  no_jwks_refetch: async (connector) => {
    await fetchedJwks(connector);
    return (await send(connector, callback(UNIT_PATH, success(newOrder(connector)), { signer: await rotatedKey() }))).status !== 200;
  },
  accepts_failed_without_reason: async (connector) => {
    const reference = newOrder(connector);
    return (await send(connector, callback(UNIT_PATH, JSON.stringify({ reference, bank_reference: 'BNK-1', status: 'FAILED', processed_at: now() })))).status === 200;
  },
  ignores_retry_after: async (connector) => {
    const { reference, polledAt } = await createAndPollOnce(connector, 'POLL_429:1:ASYNC:60:SUCCESS');
    return connector.store.pollOf(reference)!.next_at - polledAt < 2000;
  },
  polls_after_404: async (connector) => {
    const { reference } = await createAndPollOnce(connector, 'POLL_404');
    return connector.store.pollOf(reference)!.stopped_reason === null;
  },
};

describe('each flaw breaks its one behaviour and nothing else (flaws set through the config object)', () => {
  it.each([['no flaw', null] as const, ...FLAW_NAMES.map((flaw) => [flaw, flaw] as const)])('%s', async (_name, flaw) => {
    const connector = await connectorWith(flaw, 'matrix');
    expect(connector.config.flaws).toEqual(flaw ? [flaw] : []);
    const shown: Flaw[] = [];
    for (const probed of FLAW_NAMES) if (await PROBES[probed](connector)) shown.push(probed);
    expect(shown).toEqual(flaw ? [flaw] : []);
  });

  it('a flaw that does not exist is refused at start, naming the valid ones', async () => {
    await expect(startConnector(bankUrl, {}, clock, { flaws: ['accepts_anything' as Flaw] })).rejects.toThrow(/unknown flaw "accepts_anything"; valid: accepts_bad_signature/);
  });

  it('every flaw names the conformance cases it must fail, by their fixed ids', () => {
    const ids = new Set(CASES.map((one) => one.id));
    for (const flaw of FLAW_NAMES) {
      expect(FLAWS[flaw].cases.length).toBeGreaterThan(0);
      expect(FLAWS[flaw].cases.filter((id) => !ids.has(id))).toEqual([]);
    }
  });
});
