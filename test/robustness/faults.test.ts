// Fault injection toward the Connector (issue: robustness suite): answers slower than CONNECTOR_TIMEOUT_MS,
// connection resets, a Connector that is down (connection refused), 50% random 500s over 200 orders, and TLS
// failures (a server certificate from another CA). In every case nothing is lost or doubled: once the Connector
// recovers, every report arrives, each (order, status) under one idempotency key with the same bytes on every
// redelivery, every attempt is recorded, and attempt n+1 starts after attempt n, no earlier than the retry schedule.
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { ensureDevPki, pkiFiles } from '../../src/bank/security/pki';
import { FakeConnector } from '../helpers/fake-connector';
import { startBank, tempDir } from '../helpers/bank';
import { bankWithFakeConnector } from '../helpers/outbound';
import { freePort, portOf, TcpSwitch } from '../helpers/tcp-switch';
import { acceptPulled, attempts, callbacks, connectorOrders, everyCallbackFailed, expectAllDelivered, expectScheduleFollowed, pumpUntil, SCHEDULE_S } from './fault-kit';

describe('fault injection toward the Connector', () => {
  let bank: Bank | null = null;
  const fakes: FakeConnector[] = [];
  const switches: TcpSwitch[] = [];

  afterEach(async () => {
    if (bank) {
      await bank.outbound.stop(1000);
      bank.close();
      bank = null;
    }
    for (const fake of fakes.splice(0)) await fake.stop();
    for (const proxy of switches.splice(0)) await proxy.stop();
  });

  it('answers slower than CONNECTOR_TIMEOUT_MS: attempts time out, and everything arrives once the Connector is fast again', async () => {
    const started = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: SCHEDULE_S, connectorTimeoutMs: 100 });
    bank = started.bank;
    const { fake } = started;
    fakes.push(fake);
    fake.latencyMs = 300;
    const { orders, expected } = connectorOrders('SLOW', 30);
    acceptPulled(bank, orders);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 2), 'two timed-out attempts per callback');
    expect(attempts(current).filter((attempt) => attempt.error !== null).every((attempt) => /timeout/i.test(attempt.error!))).toBe(true);
    expect(callbacks(current).some((callback) => callback.state === 'delivered')).toBe(false);
    fake.latencyMs = 0;
    await pumpUntil(current, () => callbacks(current).every((callback) => callback.state === 'delivered'), 'every callback delivered');
    expectAllDelivered(current, fake, expected);
    const { retried } = expectScheduleFollowed(current);
    expect(retried).toBe(30);
  });

  it('connection resets for a while: every report arrives after the resets stop', async () => {
    const started = await bankWithFakeConnector({ callbackMode: 'unit', retryScheduleS: SCHEDULE_S });
    bank = started.bank;
    const { fake } = started;
    fakes.push(fake);
    let resetting = true;
    fake.behaviour = (kind) => (kind !== 'pull' && resetting ? 'reset' : null);
    const { orders, expected } = connectorOrders('RESET', 30, true);
    fake.orders = orders;
    const [pull] = await bank.outbound.poller.runCycle();
    expect(pull.accepted).toBe(30);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 3), 'three reset attempts per callback');
    expect(fake.finals.size).toBe(0);
    expect(attempts(current).filter((attempt) => attempt.error !== null).every((attempt) => /ECONNRESET|socket hang up|aborted/i.test(attempt.error!))).toBe(true);
    resetting = false;
    await pumpUntil(current, () => fake.finals.size === expected.size && callbacks(current).every((callback) => callback.state === 'delivered'), 'every final');
    expectAllDelivered(current, fake, expected);
    expectScheduleFollowed(current);
  });

  it('a Connector that is down (connection refused) and comes back on the same address gets everything', async () => {
    const fake = new FakeConnector();
    await fake.start();
    fakes.push(fake);
    const port = await freePort();
    const started = await bankWithFakeConnector({ callbackMode: 'batch', batchSize: 7, retryScheduleS: SCHEDULE_S, connectorUrl: `http://127.0.0.1:${port}` });
    bank = started.bank;
    fakes.push(started.fake);
    fake.setJwks((await request(bank.app).get('/.well-known/jwks.json')).body);
    const { orders, expected } = connectorOrders('DOWN', 40);
    acceptPulled(bank, orders);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 3), 'three refused attempts per batch');
    expect(attempts(current).every((attempt) => /ECONNREFUSED/.test(attempt.error ?? ''))).toBe(true);
    const proxy = new TcpSwitch();
    switches.push(proxy);
    await proxy.start(portOf(fake.url), port);
    await pumpUntil(current, () => callbacks(current).every((callback) => callback.state === 'delivered'), 'every batch delivered');
    expectAllDelivered(current, fake, expected);
    expectScheduleFollowed(current);
    expect(callbacks(current).some((callback) => callback.id > 0)).toBe(true);
  });

  it('50% random 500s over 200 orders: all delivered, each (order, status) under one key, every attempt recorded', async () => {
    const started = await bankWithFakeConnector({ callbackMode: 'auto', batchSize: 25, autoBatchThreshold: 3, retryScheduleS: SCHEDULE_S });
    bank = started.bank;
    const { fake } = started;
    fakes.push(fake);
    // A seeded coin, so a failure replays the same answers.
    let seed = 0x2f6b1d;
    const coin = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    fake.behaviour = (kind) => (kind !== 'pull' && coin() < 0.5 ? 500 : null);
    const { orders, expected } = connectorOrders('HALF', 200, true);
    fake.orders = orders;
    const [pull] = await bank.outbound.poller.runCycle();
    expect(pull.accepted).toBe(200);
    const current = bank;
    await pumpUntil(current, () => fake.finals.size === expected.size && callbacks(current).every((callback) => callback.state === 'delivered'), 'all 200 finals', 60_000);
    expectAllDelivered(current, fake, expected);
    const { retried } = expectScheduleFollowed(current);
    expect(retried).toBeGreaterThan(0);
    // Every request the Connector saw is an attempt the Bank recorded, with the answer it got.
    const recorded = attempts(current);
    expect(recorded.length).toBe(fake.callbacks.length);
    expect(recorded.filter((attempt) => attempt.statusCode === 500).length).toBe(fake.callbacks.filter((callback) => callback.answeredWith === 500).length);
    expect(recorded.filter((attempt) => attempt.statusCode === 500).every((attempt) => attempt.error === 'HTTP 500')).toBe(true);
    expect(fake.callbacks.filter((callback) => callback.answeredWith === 500).length).toBeGreaterThan(0);
    // Both shapes were exercised: batches for the bursts, units once few were due.
    expect(new Set(fake.callbacks.map((callback) => callback.kind))).toContain('batch');
  });

  it('TLS failures: a Connector certificate from another CA is refused and nothing is delivered; the right certificate gets everything', async () => {
    // The Bank's dev PKI (its CA, its client certificate, a demo-connector server certificate) and a rogue CA.
    const bankPki = pkiFiles(path.join(tempDir('sandbox-bank-faults-pki-'), 'pki'));
    const roguePki = pkiFiles(path.join(tempDir('sandbox-bank-faults-rogue-'), 'pki'));
    await ensureDevPki({ dir: bankPki.dir, bankClientId: 'sandbox-bank', clientIds: ['demo-connector'], serverNames: [] });
    await ensureDevPki({ dir: roguePki.dir, bankClientId: 'sandbox-bank', clientIds: ['demo-connector'], serverNames: [] });
    const read = (file: string) => fs.readFileSync(file);
    const rogue = new FakeConnector();
    await rogue.start({ cert: read(roguePki.clientCert('demo-connector')), key: read(roguePki.clientKey('demo-connector')), ca: read(bankPki.caCert) });
    const good = new FakeConnector();
    await good.start({ cert: read(bankPki.clientCert('demo-connector')), key: read(bankPki.clientKey('demo-connector')), ca: read(bankPki.caCert) });
    fakes.push(rogue, good);
    const proxy = new TcpSwitch();
    switches.push(proxy);
    const port = await proxy.start(portOf(rogue.url));

    bank = await startBank(
      { sandboxMode: 'strict', connectorUrl: `https://localhost:${port}`, pollCron: 'off', callbackMode: 'unit', retryScheduleS: SCHEDULE_S, batchWindowMs: 0 },
      { connectorTls: { ca: read(bankPki.caCert), cert: read(bankPki.bankClientCert), key: read(bankPki.bankClientKey) } },
    );
    const jwks = (await request(bank.app).get('/.well-known/jwks.json')).body;
    rogue.setJwks(jwks);
    good.setJwks(jwks);
    const { orders, expected } = connectorOrders('TLS', 20);
    acceptPulled(bank, orders);
    const current = bank;
    await pumpUntil(current, everyCallbackFailed(current, 2), 'two refused handshakes per callback');
    // The handshake failed on the Bank's side: the rogue server never saw a request.
    expect(rogue.callbacks).toEqual([]);
    const errors = attempts(current).map((attempt) => attempt.error ?? '');
    expect(errors.every((error) => /certificate|CERT|SIGNATURE|self.signed|issuer/i.test(error))).toBe(true);
    expect(callbacks(current).every((callback) => callback.state === 'pending')).toBe(true);

    proxy.switchTo(portOf(good.url));
    await pumpUntil(current, () => callbacks(current).every((callback) => callback.state === 'delivered'), 'every callback over verified TLS');
    expectAllDelivered(current, good, expected);
    expectScheduleFollowed(current);
    expect(new Set(good.peerNames)).toEqual(new Set(['sandbox-bank']));
    expect(rogue.callbacks).toEqual([]);
  });
});
