// The create's "order accepted" line: written at LOG_LEVEL info (the default) with the order's ids and outcome, and
// not even built below it (the create skips winston's entry and stream when info is off: a create's hot path).
import { Writable } from 'node:stream';
import winston from 'winston';
import { Bank } from '../../src/bank/bank';
import { DemoClient, sampleOrder, startBank } from '../helpers/bank';

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
