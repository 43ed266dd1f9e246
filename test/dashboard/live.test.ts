// The dashboard in a real browser (issue 14), against a real Bank on a port of 127.0.0.1 in relaxed mode, with a
// fake Connector that receives the callbacks: orders appear live without a reload, "Force outcome" makes an
// order final and its callback attempt appears in the timeline with its signed request, and through it all no
// request leaves this host and the console stays clean.
import type { Browser } from 'playwright-core';
import { Bank } from '../../src/bank/bank';
import { DemoClient, sampleOrder } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector } from '../helpers/outbound';
import { contractCheckExceptDashboardFiles, describeInBrowser, launchChromium, listenOnLocalhost, openPage, WatchedPage } from './browser';

/** A generous wait for what the page shows after an event (never a timing assertion). */
const EVENTUALLY = { timeout: 15_000 };

function withScenario(scenario: string, amount = '42.00') {
  return sampleOrder({ metadata: { initiator: 'dashboard-test', sandbox_scenario: scenario } }, amount);
}

describeInBrowser('dashboard, live (relaxed mode)', () => {
  let bank: Bank;
  let fake: FakeConnector;
  let listener: Awaited<ReturnType<typeof listenOnLocalhost>>;
  let browser: Browser;
  let client: DemoClient;
  let watched: WatchedPage;

  contractCheckExceptDashboardFiles();

  beforeAll(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', reportPending: false }));
    bank.outbound.start();
    listener = await listenOnLocalhost(bank);
    client = new DemoClient(bank);
    browser = await launchChromium();
    watched = await openPage(browser, listener.origin);
  });

  afterAll(async () => {
    await watched?.close();
    await browser?.close();
    await listener?.close();
    await bank?.outbound.stop(1000);
    bank?.close();
    await fake?.stop();
  });

  it('shows an order created through the API within 2 s, without a reload', async () => {
    const { page } = watched;
    await page.goto(`${listener.origin}/dashboard/`);
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor(EVENTUALLY);
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));

    const order = withScenario('PENDING:3600:SUCCESS', '120.00');
    expect((await client.create(order)).status).toBe(200);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: String(order.reference), exact: true }) });
    await row.waitFor({ timeout: 2_000 });

    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells).toEqual([String(order.reference), 'demo-connector', '120.00 EUR', 'PENDING:3600:SUCCESS', 'PENDING', expect.any(String), expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/)]);
  });

  it('"Force outcome" makes the order final, and its callback attempt appears in the timeline with the signed request', async () => {
    const { page } = watched;
    const order = withScenario('PENDING:3600:SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    await page.goto(`${listener.origin}/dashboard/#/orders`);
    await page.getByRole('link', { name: String(order.reference), exact: true }).click();
    await page.getByRole('heading', { name: `Order ${order.reference}` }).waitFor();
    await page.getByRole('list').filter({ hasText: 'Decided' }).waitFor();
    expect(await page.getByText('Callback attempt').count()).toBe(0);

    await page.getByRole('button', { name: 'Force outcome' }).click();

    const attempt = page.getByRole('listitem').filter({ hasText: 'Callback attempt 1 of message' });
    await attempt.waitFor(EVENTUALLY);
    await page.getByText('SUCCESS is final: a final status never changes.').waitFor(EVENTUALLY);
    expect(await page.getByRole('button', { name: 'Force outcome' }).isDisabled()).toBe(true);
    expect(await attempt.textContent()).toContain('HTTP 200');
    const received = fake.callbacks.find((callback) => callback.parsed.reference === order.reference);
    expect(received?.parsed.status).toBe('SUCCESS');
    expect(await attempt.textContent()).toContain(received?.idempotencyKey);

    // One click away: the request as the Bank signed it, from the journal.
    await attempt.getByText('Signed request').click();
    const exchange = attempt.locator('.exchange');
    await exchange.waitFor(EVENTUALLY);
    const base = await exchange.getByRole('region', { name: 'Signature' }).locator('pre').nth(1).textContent();
    expect((base ?? '').split('\n')).toEqual([
      '@method: POST',
      '@target-uri: /callbacks/orders/status',
      'x-client-id: sandbox-bank',
      expect.stringMatching(/^x-timestamp: \d{4}-/),
      expect.stringMatching(/^x-nonce: \S+$/),
      `x-idempotency-key: ${received?.idempotencyKey}`,
      expect.stringMatching(/^content-digest: sha-256=:[A-Za-z0-9+/]+=*:$/),
    ]);
    const jwsHeader = JSON.parse((await exchange.getByRole('region', { name: 'Signature' }).locator('pre').first().textContent()) ?? '{}');
    expect(jwsHeader).toMatchObject({ alg: 'ES256', typ: 'JOSE' });
    expect(await exchange.textContent()).toContain(String(received?.body ? JSON.parse(received.body).bank_reference : 'missing'));
  });

  it('made no request outside this host and logged no console error', () => {
    expect(watched.requests.length).toBeGreaterThan(5);
    expect(watched.requests.filter((url) => !url.startsWith(`${listener.origin}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
  });
});
