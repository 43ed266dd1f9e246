// Long suite (`npm run test:long`): a longer fault run toward the Connector. Waves of pulled orders keep arriving
// for FAULTS_LONG_S seconds (default 60) while the Connector answers at random with 500, 503, 429, resets and
// answers slower than CONNECTOR_TIMEOUT_MS, with full outages now and then; then it recovers. Every report must
// arrive, each (order, status) under one key with the same bytes, every attempt recorded, retries on the schedule.
import { Bank } from '../../../src/bank/bank';
import { FakeConnector } from '../../helpers/fake-connector';
import { bankWithFakeConnector } from '../../helpers/outbound';
import { Attempt, attempts, callbacks, connectorOrders, expectAllDelivered, expectScheduleFollowed, pumpUntil } from '../fault-kit';

const DURATION_S = Number(process.env.FAULTS_LONG_S ?? 60);
const WAVE_ORDERS = 300;
const WAVE_EVERY_S = 4;
const SCHEDULE_S = [0.02, 0.05, 0.1];

describe(`long fault run: ${DURATION_S} s of mixed Connector faults, then recovery`, () => {
  let bank: Bank;
  let fake: FakeConnector;
  afterAll(async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  it('delivers every report once the Connector recovers, under stable keys, with every attempt recorded', async () => {
    ({ bank, fake } = await bankWithFakeConnector({
      callbackMode: 'auto',
      batchSize: 5,
      autoBatchThreshold: 5,
      retryScheduleS: SCHEDULE_S,
      connectorTimeoutMs: 150,
      dispatchConcurrency: 8,
    }));
    let seed = 0x5eed;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let outage = false;
    let recovered = false;
    const answers = new Map<string, number>();
    fake.behaviour = (kind) => {
      if (kind === 'pull' || recovered) return null;
      const answer = outage ? 'reset' : (() => {
        const roll = random();
        if (roll < 0.3) return 500;
        if (roll < 0.38) return 503;
        if (roll < 0.42) return 429;
        if (roll < 0.5) return 'reset' as const;
        if (roll < 0.54) return 'hang' as const;
        return null;
      })();
      answers.set(String(answer), (answers.get(String(answer)) ?? 0) + 1);
      return answer;
    };

    const expected = new Map<string, string>();
    const started = Date.now();
    let wave = 0;
    let nextWaveAt = 0;
    while (Date.now() - started < DURATION_S * 1000) {
      const elapsedS = (Date.now() - started) / 1000;
      if (elapsedS >= nextWaveAt) {
        const fresh = connectorOrders(`WAVE${wave}`, WAVE_ORDERS, true, Date.parse('2026-11-20T00:00:00Z') + wave * 86_400_000);
        fake.orders.push(...fresh.orders);
        for (const [reference, status] of fresh.expected) expected.set(reference, status);
        const [pull] = await bank.outbound.poller.runCycle();
        expect([wave, pull.outcome, pull.accepted]).toEqual([wave, 'ok', WAVE_ORDERS]);
        wave += 1;
        nextWaveAt += WAVE_EVERY_S;
      }
      // A full outage for 1.5 s in every 10 s.
      outage = elapsedS % 10 >= 7 && elapsedS % 10 < 8.5;
      bank.outbound.settlement.tick();
      await bank.outbound.dispatcher.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const beforeRecovery = { finals: fake.finals.size, orders: expected.size };
    recovered = true;
    outage = false;
    const current = bank;
    await pumpUntil(current, () => fake.finals.size === expected.size && callbacks(current).every((callback) => callback.state === 'delivered'), 'every final after recovery', 300_000);

    expectAllDelivered(current, fake, expected);
    const { retried, maxAttempts } = expectScheduleFollowed(current, SCHEDULE_S);
    const recorded = attempts(current);
    // Hung and reset requests never reached the fake's handler; everything it answered is a recorded attempt:
    // with the status it answered, or, when the answer came after CONNECTOR_TIMEOUT_MS (the fake and the Bank share
    // one event loop, so a stall can hold an answer back), as a timeout of that same message.
    expect(recorded.length).toBeGreaterThanOrEqual(fake.callbacks.length);
    expectAnswersRecorded(fake, recorded);
    expect(recorded.filter((attempt) => attempt.error !== null && /timeout/i.test(attempt.error)).length).toBeGreaterThan(0);
    expect(retried).toBeGreaterThan(0);
    process.stdout.write(
      `faults-long: ${wave} waves, ${expected.size} orders (${beforeRecovery.finals} finals before recovery), ${callbacks(current).length} messages, ` +
        `${recorded.length} attempts, max ${maxAttempts} per message; answers ${JSON.stringify(Object.fromEntries(answers))}\n`,
    );
  }, 30 * 60_000);
});

/** Per message (idempotency key): the answered statuses the Bank recorded are among the fake's answers, and any answer it did not record is matched by a timeout of that message. */
function expectAnswersRecorded(fake: FakeConnector, recorded: Attempt[]): void {
  const answered = new Map<string, number[]>();
  for (const callback of fake.callbacks) answered.set(callback.idempotencyKey, [...(answered.get(callback.idempotencyKey) ?? []), callback.answeredWith]);
  const unexplained: string[] = [];
  for (const [key, statuses] of answered) {
    const mine = recorded.filter((attempt) => attempt.key === key);
    const withStatus = mine.filter((attempt) => attempt.statusCode !== null).map((attempt) => attempt.statusCode as number);
    const timeouts = mine.filter((attempt) => attempt.statusCode === null && /timeout/i.test(attempt.error ?? '')).length;
    const left = [...statuses];
    const strays = withStatus.filter((status) => {
      const index = left.indexOf(status);
      if (index < 0) return true;
      left.splice(index, 1);
      return false;
    });
    if (strays.length > 0 || left.length > timeouts) unexplained.push(`${key}: fake answered ${statuses.join(',')}, recorded ${withStatus.join(',')} and ${timeouts} timeout(s)`);
  }
  expect(unexplained).toEqual([]);
  const recordedWithStatus = recorded.filter((attempt) => attempt.statusCode !== null).length;
  expect(recordedWithStatus).toBeLessThanOrEqual(fake.callbacks.length);
}

