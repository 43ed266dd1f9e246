// RFC 9112 section 3.2: a request with more than one Host header line is a 400 (wire/http-edge.ts, missingHost).
import { Bank } from '../../src/bank/bank';
import { startBank } from '../helpers/bank';
import http from 'node:http';
import net, { AddressInfo } from 'node:net';
import { rawRequest } from '../helpers/wire';

/** Raw bytes to the app on a server made as the Bank's are (node:http will not send two Host lines). */
async function rawExchange(bank: Bank, bytes: string): Promise<string> {
  const server = http.createServer({ requireHostHeader: false }, bank.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await new Promise<string>((resolve, reject) => {
      const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(bytes));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('two Host headers', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
  });
  afterAll(() => bank.close());

  it('are 400 header_invalid, as a missing Host is', async () => {
    const answer = await rawExchange(bank, 'GET /healthz HTTP/1.1\r\nHost: a\r\nhost: b\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\ncontent-type: application\/problem\+json\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: 'header_invalid' });
    expect(body.detail).toMatch(/more than one Host/);
  });

  it('one Host is served', async () => {
    const answer = await rawRequest(bank.app, { method: 'GET', path: '/healthz', headers: { host: 'a' } });
    expect(answer.status).toBe(200);
  });
});
