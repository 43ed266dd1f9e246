// Hostile input to /sandbox/*: a body far over the limit is refused (413 body_too_large, Connection: close)
// without being read, and query parameters named after Object.prototype members are unknown parameters like
// any other (400 query_invalid), not a crash and not silently accepted.
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { listeningOnLocalhost, startBank } from '../helpers/bank';
import { expectProblem } from '../helpers/wire';

jest.setTimeout(60_000);

const ADMIN = 'admin-token-of-the-hostile-input-test';
const LIMIT = 256 * 1024;

let bank: Bank;
let listener: Awaited<ReturnType<typeof listeningOnLocalhost>>;
let port: number;

beforeAll(async () => {
  bank = await startBank({ adminToken: ADMIN });
  listener = await listeningOnLocalhost(bank.app);
  port = listener.port;
});

afterAll(async () => {
  await listener.close();
  bank.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Sends `head` then `body` on a raw socket and sends nothing more (the rest of the declared body never comes):
 * answers what arrived before the Bank closed the connection. Fails if the Bank does not close it.
 */
function sendAndWaitForClose(head: string, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the Bank did not answer and close; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 300))}`));
    }, 20_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no answer before the close: ${JSON.stringify(raw)}`));
      const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text: raw.slice(split + 4) });
    });
    socket.once('connect', () => {
      socket.write(head);
      socket.write(body);
    });
  });
}

function postHead(extra: string): string {
  return `POST /sandbox/clients HTTP/1.1\r\nHost: bank\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\n${extra}\r\n`;
}

function chunk(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

function expectRefusedTooLarge(answer: Answer): void {
  expectProblem(answer, 413, 'body_too_large');
  expect(answer.headers.connection).toBe('close');
}

describe('a /sandbox body over the limit is refused without being read', () => {
  test.each([400_000, 2_000_000_000])('Content-Length %d: 413 and the connection closed after a few bytes', async (length) => {
    expectRefusedTooLarge(await sendAndWaitForClose(postHead(`Content-Length: ${length}\r\n`), Buffer.from('{"client_id":"x",')));
  });

  test('a chunked body is refused once it passes the limit (the rest never sent)', async () => {
    const body = Buffer.concat([chunk(Buffer.alloc(LIMIT / 2, 0x20)), chunk(Buffer.alloc(LIMIT / 2, 0x20)), chunk(Buffer.alloc(4096, 0x20))]);
    expectRefusedTooLarge(await sendAndWaitForClose(postHead('Transfer-Encoding: chunked\r\n'), body));
  });

  test('a body within the limit is still read and judged', async () => {
    const answer = await request(bank.app).post('/sandbox/clients').set('Authorization', `Bearer ${ADMIN}`).set('Content-Type', 'application/json').send('{"client_id": ');
    expectProblem(answer, 400, 'body_malformed');
  });
});

test('a compressed body is 415 (it is read as the bytes sent, never inflated)', async () => {
  const answer = await request(bank.app)
    .post('/sandbox/clients')
    .set('Authorization', `Bearer ${ADMIN}`)
    .set('Content-Type', 'application/json')
    .set('Content-Encoding', 'gzip')
    .send(gzipSync('{}'));
  expectProblem(answer, 415, 'unsupported_media_type');
});

describe('query parameters named after Object.prototype members are unknown parameters', () => {
  const names = ['__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'toString', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__'];
  const endpoints = ['/sandbox/orders', '/sandbox/journal', '/sandbox/callbacks', '/sandbox/events'];
  const cases = endpoints.flatMap((endpoint) => names.map((name) => [endpoint, name] as const));

  test.each(cases)('%s?%s=1 is 400 query_invalid', async (endpoint, name) => {
    // A parameter taken as known would start the event stream: a short time-out turns that into a failure.
    const answer = await request(bank.app).get(`${endpoint}?${name}=1`).set('Authorization', `Bearer ${ADMIN}`).timeout(10_000);
    const problem = expectProblem(answer, 400, 'query_invalid');
    expect(problem.detail).toContain(`unknown query parameter "${name}"`);
  });
});
