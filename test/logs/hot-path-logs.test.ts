// The log lines of the hot paths, written at their level with their fields and not even built below it (winston
// builds the entry and runs it through its stream before dropping it): a create's "order accepted" (info, the
// default level) and a unit callback's "callback delivered" (debug; a failed attempt warns whatever the level).
import { Writable } from 'node:stream';
import winston from 'winston';
import { Bank } from '../../src/bank/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { DemoClient, sampleOrder, startBank } from '../helpers/bank';
import { bankWithFakeConnector, connectorOrder, drain } from '../helpers/outbound';

/** A JSON logger at `level` writing its entries into `entries`. */
function capturingLogger(level: string, entries: Record<string, unknown>[]): winston.Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) entries.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return winston.createLogger({ level, format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
}

describe("the create's log line", () => {
  let bank: Bank | null = null;
  afterEach(() => {
    bank?.close();
    bank = null;
  });

  it('is written at info with the request, the order and its outcome', async () => {
    const entries: Record<string, unknown>[] = [];
    bank = await startBank({}, { logger: capturingLogger('info', entries) });
    const order = sampleOrder();
    const response = await new DemoClient(bank).create(order);
    expect(response.status).toBe(200);
    const accepted = entries.filter((entry) => entry.message === 'order accepted');
    expect(accepted).toEqual([expect.objectContaining({
      level: 'info',
      request_id: response.headers['x-request-id'],
      client_id: 'demo-connector',
      reference: order.reference,
      bank_reference: JSON.parse(response.text).bank_reference,
      status: 'SUCCESS',
      scenario_source: expect.any(String),
    })]);
  });

  it('is not built at warn: no info call reaches winston', async () => {
    const entries: Record<string, unknown>[] = [];
    const logger = capturingLogger('warn', entries);
    bank = await startBank({}, { logger });
    // A request's logger is a child of this one (winston's child inherits its methods through the prototype).
    const info = jest.spyOn(logger, 'info');
    const response = await new DemoClient(bank).create(sampleOrder());
    expect(response.status).toBe(200);
    expect(info.mock.calls.filter(([message]) => message === 'order accepted')).toEqual([]);
    expect(entries.filter((entry) => entry.level === 'info')).toEqual([]);
  });
});

describe("a unit callback's log lines", () => {
  let bank: Bank;
  let fake: FakeConnector;
  afterEach(async () => {
    await bank.outbound.stop(1000);
    bank.close();
    await fake.stop();
  });

  /** One pulled order called back, its first attempt answered 500 when `failFirst`. */
  async function deliverOne(logger: winston.Logger, failFirst: boolean): Promise<void> {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit' }, { logger }));
    let failed = false;
    fake.behaviour = (kind) => (kind !== 'pull' && failFirst && !failed ? ((failed = true), 500) : null);
    fake.orders = [connectorOrder('LOGGED-1', '2026-11-20T00:00:00Z')];
    await bank.outbound.poller.runCycle();
    await drain(bank);
  }

  it('logs a delivery at debug with the message, its key and the answer', async () => {
    const entries: Record<string, unknown>[] = [];
    await deliverOne(capturingLogger('debug', entries), false);
    const delivered = entries.filter((entry) => entry.message === 'callback delivered');
    expect(delivered).toEqual([expect.objectContaining({ level: 'debug', kind: 'unit', attempt: 1, status: 200, idempotency_key: fake.callbacks[0].idempotencyKey })]);
  });

  it('builds no entry for a delivery at info, and still warns of a failed attempt', async () => {
    const entries: Record<string, unknown>[] = [];
    const logger = capturingLogger('info', entries);
    const debug = jest.spyOn(logger, 'debug');
    await deliverOne(logger, true);
    expect(debug.mock.calls.filter(([message]) => message === 'callback delivered')).toEqual([]);
    expect(entries.filter((entry) => entry.message === 'callback attempt failed')).toEqual([expect.objectContaining({ level: 'warn', attempt: 1, status: 500, error: 'HTTP 500' })]);
    expect(fake.callbacks.map((callback) => callback.answeredWith)).toEqual([500, 200]);
  });
});
