// Requests that node's HTTP parser refuses before express sees them still get a problem body (profile section 5).
import net from 'node:net';
import { ChildBank, kill, startChildBank } from '../helpers/child-bank';
import { tempDir } from '../helpers/bank';

function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

describe('HTTP parser errors', () => {
  let bank: ChildBank;
  let port: number;

  beforeAll(async () => {
    bank = await startChildBank({ DATA_DIR: tempDir(), POLL_CRON: 'off' });
    port = Number(new URL(bank.httpUrl).port);
  });
  afterAll(async () => {
    await kill(bank, 'SIGTERM');
  });

  it.each([
    ['two Content-Length headers', 'POST /payment-orders HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['Content-Length with Transfer-Encoding', 'POST /payment-orders HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}'],
    ['headers over the parser limit', `GET /payment-orders/${'A'.repeat(20_000)}/status HTTP/1.1\r\nHost: x\r\n\r\n`],
  ])('%s: 400 problem+json header_invalid', async (_name, request) => {
    const answer = await rawExchange(port, request);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('Content-Type: application/problem+json');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 400, code: 'header_invalid', title: 'A header is malformed' });
    expect(typeof body.request_id).toBe('string');
  });
});
