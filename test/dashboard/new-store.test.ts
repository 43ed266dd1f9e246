// A Bank restarted on an empty store (DATA_DIR=:memory:, or a new DATA_DIR) numbers its events from 1 again, so
// a reader that resumes with the old Bank's Last-Event-ID asks for an id beyond the newest this Bank has. The
// stream must not starve it: it sends `stream.reset` (id 0) and then everything it has from the start. An id the
// Bank has still resumes exactly. In the browser, the dashboard reads its view again on `stream.reset`: the old
// Bank's orders go, the new Bank's come, without a reload.
import http from 'node:http';
import type { Browser } from 'playwright-core';
import { Bank } from '../../src/bank/bank';
import { DemoClient, listeningOnLocalhost, sampleOrder, startBank } from '../helpers/bank';
import { expectSchema } from '../helpers/control-schemas';
import { SseMessage, takeSseMessages } from '../helpers/sse';
import { contractCheckExceptDashboardFiles, describeInBrowser, launchChromium, openPage, WatchedPage } from './browser';

const EVENTUALLY = { timeout: 15_000 };

type Message = SseMessage<{ id: number; type: string; client_id: string | null; data: Record<string, unknown> }>;

interface Reader {
  messages: Message[];
  next(count: number): Promise<Message[]>;
  close(): void;
}

/** A Bank's app on a port of 127.0.0.1 (the given one, or any). */
function serve(bank: Bank, port = 0): ReturnType<typeof listeningOnLocalhost> {
  return listeningOnLocalhost(bank.app, port);
}

/** Reads GET `path` as Server-Sent Events as they arrive. */
function readEvents(port: number, path: string, headers: Record<string, string> = {}): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET ${path} answered ${res.statusCode}`));
      const messages: Message[] = [];
      const waiters: (() => void)[] = [];
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const taken = takeSseMessages<Message['data']>(pending + chunk);
        pending = taken.rest;
        messages.push(...taken.messages);
        for (const wake of waiters.splice(0)) wake();
      });
      res.on('error', () => undefined);
      resolve({
        messages,
        next: (count) =>
          new Promise((found, fail) => {
            const timer = setTimeout(() => fail(new Error(`expected ${count} messages, got ${messages.map((m) => `${m.id}:${m.event}`).join(', ') || 'none'}`)), 5_000);
            const check = () => {
              if (messages.length >= count) {
                clearTimeout(timer);
                found(messages.slice(0, count));
              } else waiters.push(check);
            };
            check();
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function pendingOrder() {
  return sampleOrder({ metadata: { initiator: 'dashboard-test', sandbox_scenario: 'PENDING:3600:SUCCESS' } });
}

describe('GET /sandbox/events with a Last-Event-ID from another store', () => {
  let bank: Bank;
  let listener: Awaited<ReturnType<typeof serve>>;
  let client: DemoClient;
  const readers: Reader[] = [];

  beforeAll(async () => {
    // No callbacks (no PENDING report, no Connector): the only events are the creates this test makes.
    bank = await startBank({ sandboxMode: 'relaxed', pollCron: 'off', reportPending: false });
    listener = await serve(bank);
    client = new DemoClient(bank);
    for (let n = 0; n < 2; n++) expect((await client.create(pendingOrder())).status).toBe(200);
  });

  afterEach(() => {
    for (const reader of readers.splice(0)) reader.close();
  });

  afterAll(async () => {
    await listener?.close();
    bank?.close();
  });

  const open = async (path: string, headers: Record<string, string> = {}) => {
    const reader = await readEvents(listener.port, path, headers);
    readers.push(reader);
    return reader;
  };
  const newest = () => bank.db.prepare('SELECT MAX(id) FROM events').pluck().get() as number;

  it.each([
    ['?last_event_id=', (id: number) => [`/sandbox/events?last_event_id=${id}`, {}] as const],
    ['Last-Event-ID', (id: number) => ['/sandbox/events', { 'last-event-id': String(id) }] as const],
  ])('an id beyond the newest (%s): stream.reset with id 0, then every event it has from the first, then live ones', async (_how, ask) => {
    const last = newest();
    expect(last).toBeGreaterThanOrEqual(2);
    const [path, headers] = ask(last + 500);
    const reader = await open(path, headers);
    const replayed = await reader.next(1 + last);
    expect(replayed[0]).toEqual({ id: '0', event: 'stream.reset', data: { id: 0, type: 'stream.reset', at: expect.any(String), client_id: null, data: { last_event_id: last + 500, newest_event_id: last } } });
    expectSchema('event', replayed[0].data);
    expect(replayed.slice(1).map((message) => Number(message.id))).toEqual(Array.from({ length: last }, (_, index) => index + 1));

    const order = pendingOrder();
    expect((await client.create(order)).status).toBe(200);
    const all = await reader.next(2 + last);
    const live = all[all.length - 1];
    expect([live.event, live.data.data.reference, Number(live.id)]).toEqual(['order.created', order.reference, last + 1]);
    await sleep(100);
    expect(reader.messages.map((message) => message.event).filter((event) => event === 'stream.reset')).toHaveLength(1);
  });

  it('an id it has resumes exactly after it: no stream.reset, no repeat', async () => {
    const last = newest();
    const reader = await open(`/sandbox/events?last_event_id=${last - 1}`);
    const [only] = await reader.next(1);
    expect(Number(only.id)).toBe(last);
    const atNewest = await open('/sandbox/events', { 'last-event-id': String(last) });
    expect((await client.create(pendingOrder())).status).toBe(200);
    const [next] = await atNewest.next(1);
    expect([next.event, Number(next.id)]).toEqual(['order.created', last + 1]);
    await sleep(100);
    expect(reader.messages.map((message) => message.event)).not.toContain('stream.reset');
    expect(atNewest.messages.map((message) => message.event)).not.toContain('stream.reset');
  });
});

describeInBrowser('dashboard, the Bank restarted on an empty store', () => {
  let first: Bank | undefined;
  let second: Bank | undefined;
  let firstListener: Awaited<ReturnType<typeof serve>> | undefined;
  let secondListener: Awaited<ReturnType<typeof serve>> | undefined;
  let browser: Browser;
  let watched: WatchedPage;

  contractCheckExceptDashboardFiles();

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await watched?.close();
    await browser?.close();
    await firstListener?.close();
    await secondListener?.close();
    first?.close();
    second?.close();
  });

  it("drops the old Bank's orders and shows the new Bank's, without a reload", async () => {
    first = await startBank({ sandboxMode: 'relaxed', pollCron: 'off' });
    firstListener = await serve(first);
    const origin = `http://127.0.0.1:${firstListener.port}`;
    watched = await openPage(browser, origin);
    const { page } = watched;
    await page.goto(`${origin}/dashboard/#/orders`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor(EVENTUALLY);
    const old = [pendingOrder(), pendingOrder(), pendingOrder()];
    for (const order of old) expect((await new DemoClient(first).create(order)).status).toBe(200);
    for (const order of old) await page.getByRole('link', { name: String(order.reference), exact: true }).waitFor(EVENTUALLY);
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));

    // The same address, another Bank with an empty store.
    const port = firstListener.port;
    await firstListener.close();
    firstListener = undefined;
    first.close();
    first = undefined;
    second = await startBank({ sandboxMode: 'relaxed', pollCron: 'off' });
    secondListener = await serve(second, port);

    await page.getByRole('link', { name: String(old[0].reference), exact: true }).waitFor({ state: 'detached', ...EVENTUALLY });
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor(EVENTUALLY);
    const fresh = pendingOrder();
    expect((await new DemoClient(second).create(fresh)).status).toBe(200);
    await page.getByRole('link', { name: String(fresh.reference), exact: true }).waitFor(EVENTUALLY);
    for (const order of old) expect(await page.getByRole('link', { name: String(order.reference), exact: true }).count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    // The break shows in the console as a failed fetch of the stream; nothing else.
    expect(watched.errors.filter((error) => !/^console: Failed to load resource: net::ERR_\w+ \(http:\/\/127\.0\.0\.1:\d+\/sandbox\/events\)$/.test(error))).toEqual([]);
  });
});
