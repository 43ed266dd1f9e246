// The inbound exchange keeps its lazy logger on the prototype, not as an accessor of each object: V8 allocates an
// object literal's accessor pair in old space, and that pair's closure held the exchange and so the whole request,
// which made every request's objects survive scavenges and be promoted (issue 15, bench/README.md).
import type { Request, Response } from 'express';
import { Writable } from 'node:stream';
import winston from 'winston';
import { newExchange } from '../../src/bank/http/flow';

function collecting(lines: Record<string, unknown>[]): winston.Logger {
  const stream = new Writable({ objectMode: true, write: (info, _encoding, done) => { lines.push(info); done(); } });
  return winston.createLogger({ transports: [new winston.transports.Stream({ stream })] });
}

function exchangeFor(headers: Record<string, string | string[]>, logger: winston.Logger) {
  const req = { headers } as unknown as Request;
  const res = { locals: { requestId: 'req-1' } } as unknown as Response;
  return newExchange(req, res, logger, 1_700_000_000_000);
}

describe('inbound exchange', () => {
  it('has no accessor of its own: the log getter is shared on the prototype', () => {
    const exchange = exchangeFor({}, winston.createLogger({ silent: true }));
    const accessors = Object.entries(Object.getOwnPropertyDescriptors(exchange)).filter(([, d]) => d.get || d.set).map(([name]) => name);
    expect(accessors).toEqual([]);
    expect(typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(exchange), 'log')?.get).toBe('function');
  });

  it('builds its child logger once, on first use, with the request id and the authenticated client', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = collecting(lines);
    const childOf = jest.spyOn(logger, 'child');
    const exchange = exchangeFor({}, logger);
    expect(childOf).not.toHaveBeenCalled();
    exchange.client = { id: 'demo-connector' } as NonNullable<typeof exchange.client>;
    exchange.log.info('first');
    exchange.log.info('second');
    expect(childOf).toHaveBeenCalledTimes(1);
    expect(lines.map((line) => [line.message, line.request_id, line.client_id])).toEqual([
      ['first', 'req-1', 'demo-connector'],
      ['second', 'req-1', 'demo-connector'],
    ]);
  });

  it('reads single-valued headers, joining repeated ones', () => {
    const exchange = exchangeFor({ 'x-nonce': 'n1', accept: ['a', 'b'] }, winston.createLogger({ silent: true }));
    expect(exchange.header('x-nonce')).toBe('n1');
    expect(exchange.header('accept')).toBe('a, b');
    expect(exchange.header('x-missing')).toBeUndefined();
  });

  it('starts with an empty body and no pipeline results', () => {
    const exchange = exchangeFor({}, winston.createLogger({ silent: true }));
    expect(exchange.rawBody.length).toBe(0);
    expect([exchange.client, exchange.token, exchange.timestampMs, exchange.dpopJti, exchange.references]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(exchange.requestId).toBe('req-1');
    expect(exchange.nowMs).toBe(1_700_000_000_000);
  });
});
