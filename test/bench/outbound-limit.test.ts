// The outbound limit (bench/lib/outbound-limit.js) is the yardstick bench/outbound.js divides the Bank's outbound
// pipeline by: it must pull every order and deliver a final for each, in both modes and over both transports,
// against the bench's own fake Connector.

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { outboundPipeline } = require('../../bench/outbound');

interface OutboundResult {
  mode: string;
  transport: string;
  server: string;
  orders: number;
  callbacks: number;
  ordersPerS: number;
}

it('pulls 1,200 orders and delivers a final for each: unit and batch, plain HTTP and mutual TLS', async () => {
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  const results: OutboundResult[] = await outboundPipeline(1_200, { transports: ['http', 'mtls'], modes: ['unit', 'batch'], servers: ['limit'] });
  log.mockRestore();
  expect(results.map(({ mode, transport, server, orders, callbacks }) => ({ mode, transport, server, orders, callbacks }))).toEqual([
    { mode: 'unit', transport: 'http', server: 'limit', orders: 1_200, callbacks: 1_200 },
    { mode: 'batch', transport: 'http', server: 'limit', orders: 1_200, callbacks: 3 },
    { mode: 'unit', transport: 'mtls', server: 'limit', orders: 1_200, callbacks: 1_200 },
    { mode: 'batch', transport: 'mtls', server: 'limit', orders: 1_200, callbacks: 3 },
  ]);
  for (const result of results) expect(result.ordersPerS).toBeGreaterThan(0);
}, 120_000);
