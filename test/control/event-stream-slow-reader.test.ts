// Control plane section 6, hostile readers of GET /sandbox/events: a subscriber that never reads is cut off
// (its socket destroyed, its buffer freed, a warn logged) once its unsent bytes pass the cap, while a reader that
// reads gets every event; a replay of more than a socket can hold waits for the reader instead of buffering it
// all, then goes on live without a gap or a repeat.
import http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import winston from 'winston';
import { Bank } from '../../src/bank/bank';
import { listeningOnLocalhost, startBank } from '../helpers/bank';
import { takeSseMessages } from '../helpers/sse';

jest.setTimeout(120_000);

const ADMIN = 'admin-token-of-the-slow-reader-test';

function capturingLogger(lines: string[]): winston.Logger {
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(chunk.toString()), done()) });
  return winston.createLogger({ level: 'warn', format: winston.format.json(), transports: [new winston.transports.Stream({ stream: sink })] });
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function waitUntil(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (check()) return resolve();
      if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(poll, 20);
    };
    poll();
  });
}

let bank: Bank;
let port: number;
const logs: string[] = [];
/** The Bank's side of every connection, in the order they were accepted. */
const serverSockets: net.Socket[] = [];

let listener: Awaited<ReturnType<typeof listeningOnLocalhost>>;

beforeAll(async () => {
  bank = await startBank({ adminToken: ADMIN, eventsRetention: 10_000 }, { logger: capturingLogger(logs) });
  listener = await listeningOnLocalhost(bank.app);
  listener.server.on('connection', (socket: net.Socket) => serverSockets.push(socket));
  port = listener.port;
});

afterAll(async () => {
  await listener.close();
  bank.close();
});

/** A raw socket that asks for the stream and never reads a byte; answers it and the Bank's side of it. */
async function neverReading(path: string): Promise<{ client: net.Socket; bankSide: net.Socket }> {
  const before = serverSockets.length;
  const subscribers = bank.events.subscribers;
  const client = net.connect(port, '127.0.0.1');
  client.pause();
  client.on('error', () => undefined);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  client.write(`GET ${path} HTTP/1.1\r\nHost: bank\r\nAuthorization: Bearer ${ADMIN}\r\nAccept: text/event-stream\r\n\r\n`);
  await waitUntil(() => serverSockets.length > before && bank.events.subscribers > subscribers, 'the stream to be subscribed');
  return { client, bankSide: serverSockets[before] };
}

interface Reader {
  ids: number[];
  ended: boolean;
  response: http.IncomingMessage;
  close(): void;
}

/** A reader that reads the stream (paused until `resume()` when `paused`) and keeps the ids it got. */
function reading(path: string, paused = false): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${ADMIN}` }, agent: false }, (res) => {
      const reader: Reader = { ids: [], ended: false, response: res, close: () => req.destroy() };
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const taken = takeSseMessages<{ id: number }>(pending + chunk);
        pending = taken.rest;
        for (const message of taken.messages) reader.ids.push(message.data.id);
      });
      res.on('end', () => (reader.ended = true));
      res.on('error', () => (reader.ended = true));
      if (paused) res.pause();
      resolve(reader);
    });
    req.on('error', reject);
  });
}

/** Ids newestId+1 .. newestId+count, published in batches that are delivered in between. */
async function publish(count: number, bytesEach: number, stopWhen: () => boolean = () => false): Promise<number[]> {
  const ids: number[] = [];
  const padding = 'p'.repeat(bytesEach);
  while (ids.length < count && !stopWhen()) {
    for (let i = 0; i < 8 && ids.length < count; i += 1) {
      bank.events.publish('request.refused', null, { code: 'not_found', method: 'GET', path: `/nope-${padding}`, request_id: null, journal_id: null });
      ids.push(bank.events.newestId());
    }
    await tick();
  }
  return ids;
}

function expectConsecutive(got: number[], from: number, to: number): void {
  expect(got.length).toBe(to - from + 1);
  expect(got[0]).toBe(from);
  expect(got[got.length - 1]).toBe(to);
  expect(got.every((id, i) => i === 0 || id === got[i - 1] + 1)).toBe(true);
}

test('a live subscriber that never reads is destroyed past the cap (and logged); a reading subscriber gets every event', async () => {
  const { client, bankSide } = await neverReading('/sandbox/events');
  let bankSideClosed = false;
  bankSide.once('close', () => (bankSideClosed = true));
  const reader = await reading('/sandbox/events');
  await waitUntil(() => bank.events.subscribers >= 2, 'both streams to be subscribed');

  // 64 KiB events until the Bank lets go of the silent socket: the 8 MiB cap plus what the kernel buffers on
  // loopback is far below the bound (96 MiB).
  const published = await publish(1536, 64 * 1024, () => bankSideClosed);
  await waitUntil(() => bankSideClosed, 'the Bank to destroy the silent subscriber');
  expect(published.length).toBeLessThan(1536);

  // Once the Bank's side is gone, the silent client sees its connection end (after what was in flight).
  const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  client.resume();
  await clientClosed;

  const warn = logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.message === 'event stream reader too slow; stream closed');
  expect(warn).toBeDefined();
  expect(warn?.level).toBe('warn');
  expect(warn?.pending_bytes).toBeGreaterThan(8 * 1024 * 1024);

  // The reading subscriber is unaffected: every event, in order, once.
  await waitUntil(() => reader.ids.length >= published.length, 'the reader to get every event');
  expectConsecutive(reader.ids, published[0], published[published.length - 1]);
  expect(reader.ended).toBe(false);
  reader.close();
  client.destroy();
});

test('a replay larger than the socket holds waits for the reader, then goes on live without a gap or a repeat', async () => {
  const start = bank.events.newestId();
  // 2500 events of 8 KiB (about 21 MiB): more than the 8 MiB cap plus the kernel's buffers.
  await publish(2500, 8 * 1024);
  const reader = await reading(`/sandbox/events?last_event_id=${start}`, true);
  await waitUntil(() => bank.events.subscribers >= 1, 'the stream to be subscribed');
  // Events committed while the replay waits for the reader: delivered by the replay or live, never twice.
  await publish(300, 8 * 1024);
  await new Promise((resolve) => setTimeout(resolve, 200));
  reader.response.resume();
  await publish(200, 100);
  const newest = bank.events.newestId();
  await waitUntil(() => reader.ids.length >= newest - start || reader.ended, 'the reader to get every event');
  expect(reader.ended).toBe(false);
  expectConsecutive(reader.ids, start + 1, newest);
  reader.close();
});
