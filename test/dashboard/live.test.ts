// The dashboard in a real browser (issue 14), against a real Bank on a port of 127.0.0.1 in relaxed mode, with a
// fake Connector that receives the callbacks: orders appear live without a reload, "Force outcome" makes an
// order final and its callback attempt appears in the timeline with its signed request, "Advance clock" fires a
// pending order, a badly signed create shows in the journal with the Bank's signature base next to its curl,
// every view works by keyboard, labels every control and fits a phone, and through it all no request leaves
// this host and the console stays clean.
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { DemoClient, sampleOrder, sendWith } from '../helpers/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { contractCheckExceptDashboardFiles, describeInBrowser, listenOnLocalhost, openPage, PHONE, relaxedDashboard, unlabelledControls, WatchedPage } from './browser';

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
  const rig = relaxedDashboard();
  beforeAll(() => void ({ bank, fake, listener, browser, client, watched } = rig));

  it('shows an order created through the API as it is created, without a reload', async () => {
    const { page } = watched;
    await page.goto(`${listener.origin}/dashboard/`);
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor(EVENTUALLY);
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));

    const order = withScenario('PENDING:3600:SUCCESS', '120.00');
    expect((await client.create(order)).status).toBe(200);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: String(order.reference), exact: true }) });
    await row.waitFor(EVENTUALLY);

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

  it('"Advance clock" fires a pending order: the advance reports its settlement and the order becomes final', async () => {
    const { page } = watched;
    const sandbox = (method: 'post' | 'delete', path: string, body?: object) => request(bank.app)[method](`/sandbox${path}`).send(body);
    expect((await sandbox('post', '/clients/demo-connector/clock', {})).status).toBe(201);
    try {
      const order = withScenario('PENDING:3600:SUCCESS');
      expect((await client.create(order)).status).toBe(200);
      await page.goto(`${listener.origin}/dashboard/#/clock/demo-connector`);
      await page.getByRole('heading', { name: "demo-connector's time" }).waitFor();
      await page.getByRole('link', { name: String(order.reference), exact: true }).waitFor(EVENTUALLY);
      const before = await page.locator('.clock-now time').getAttribute('datetime');

      await page.getByLabel('Seconds').fill('3599');
      await page.getByRole('button', { name: 'Advance clock', exact: true }).click();
      // 1 s short of due: whatever else fired (earlier tests' orders), not this order.
      const early = page.getByRole('status').filter({ hasText: 'Moved from' });
      await early.waitFor(EVENTUALLY);
      expect(await early.textContent()).not.toContain(String(order.reference));
      expect(await page.getByRole('link', { name: String(order.reference), exact: true }).count()).toBe(1);

      await page.getByRole('button', { name: '+1 min', exact: true }).click();
      const report = page.getByRole('status').filter({ hasText: `settlement of ${order.reference} → SUCCESS` });
      await report.waitFor(EVENTUALLY);
      const after = await page.locator('.clock-now time').getAttribute('datetime');
      expect(Date.parse(String(after)) - Date.parse(String(before))).toBe(3659_000);
      await page.getByRole('link', { name: String(order.reference), exact: true }).waitFor({ state: 'detached', ...EVENTUALLY });

      await page.goto(`${listener.origin}/dashboard/#/orders`);
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: String(order.reference), exact: true }) });
      await row.getByText('SUCCESS', { exact: true }).waitFor(EVENTUALLY);
    } finally {
      expect((await sandbox('delete', '/clients/demo-connector/clock')).status).toBe(200);
    }
  });

  it('while an advance runs, says so and offers neither another advance nor a detach (the Bank would make them wait)', async () => {
    const { page } = watched;
    expect((await request(bank.app).post('/sandbox/clients/demo-connector/clock').send({})).status).toBe(201);
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      await page.route('**/sandbox/clients/demo-connector/clock/advance', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${listener.origin}/dashboard/#/clock/demo-connector`);
      await page.getByRole('button', { name: 'Detach test clock' }).waitFor(EVENTUALLY);
      await page.getByRole('button', { name: '+1 min', exact: true }).click();
      await page.getByText('Advancing 60 s').waitFor(EVENTUALLY);
      expect(await page.getByRole('button', { name: 'Detach test clock' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: '+1 h', exact: true }).isDisabled()).toBe(true);
      release();
      await page.getByRole('status').filter({ hasText: 'Moved from' }).waitFor(EVENTUALLY);
      expect(await page.getByRole('button', { name: 'Detach test clock' }).isDisabled()).toBe(false);
    } finally {
      release();
      await page.unroute('**/sandbox/clients/demo-connector/clock/advance');
      expect((await request(bank.app).delete('/sandbox/clients/demo-connector/clock')).status).toBe(200);
    }
  });

  it('shows a badly signed create in the journal, highlighted, with the Bank\'s signature base next to the curl that reproduces it', async () => {
    const { page } = watched;
    const order = withScenario('SUCCESS');
    // Signed over one body, sent with another: the Bank's base has the digest of what it received.
    const headers = await client.createHeaders(JSON.stringify({ ...order, total_amount: '1.00' }));
    const refused = await sendWith(request(bank.app).post('/payment-orders'), headers, JSON.stringify(order));
    expect([refused.status, refused.body.code, refused.body.reason]).toEqual([401, 'signature_invalid', 'signature_mismatch']);

    await page.goto(`${listener.origin}/dashboard/#/journal`);
    const row = page.locator('tr.refused').filter({ hasText: 'signature_invalid' }).filter({ hasText: 'POST /payment-orders' });
    await row.first().waitFor(EVENTUALLY);
    await row.first().getByRole('link').click();
    await page.getByRole('heading', { name: 'Refused: signature_invalid' }).waitFor(EVENTUALLY);

    const bankBase = page.getByRole('region', { name: "The Bank's signature base" });
    expect(await bankBase.locator('pre').textContent()).toBe(refused.body.signature_base);
    const curl = await page.getByRole('region', { name: 'Reproduce it with curl' }).locator('pre').textContent();
    expect(curl).toContain("curl -sS -X POST '");
    expect(curl).toContain(`-H 'x-signature: ${headers['x-signature']}'`);
    expect(curl).toContain(`--data-binary '${JSON.stringify(order)}'`);
    // Side by side on a wide screen.
    const [left, right] = await Promise.all([bankBase.boundingBox(), page.getByRole('region', { name: 'Reproduce it with curl' }).boundingBox()]);
    expect(right!.x).toBeGreaterThan(left!.x + left!.width - 1);
    expect(Math.abs(right!.y - left!.y)).toBeLessThan(5);
  });

  it('hides its own requests and still shows the exchanges behind more than a page of them', async () => {
    const { page } = watched;
    const order = withScenario('SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    // A dashboard left open a while: its own control-plane calls, newer than the create, fill pages of the journal.
    for (let i = 0; i < 1100; i += 1) expect((await request(bank.app).get('/sandbox/journal?limit=1')).status).toBe(200);
    await page.goto(`${listener.origin}/dashboard/#/journal`);
    await page.locator('tr').filter({ hasText: 'POST /payment-orders' }).first().waitFor(EVENTUALLY);
    expect(await page.getByText("Only the dashboard's own requests so far").count()).toBe(0);
  });

  it('works by keyboard: the skip link, then the views\' links, each view starting at its heading', async () => {
    const { page } = watched;
    await page.goto(`${listener.origin}/dashboard/`);
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');
    for (const view of ['Orders', 'Journal', 'Clients']) {
      await page.keyboard.press('Tab');
      expect(await page.locator(':focus').textContent()).toBe(view);
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Clients', level: 1 }).waitFor();
    expect(await page.locator('main h1:focus').textContent()).toBe('Clients');
    expect(await page.getByRole('link', { name: 'Clients', exact: true }).getAttribute('aria-current')).toBe('page');
  });

  it('labels every control and fits a 390 px wide phone, in every view', async () => {
    const order = withScenario('PENDING:3600:SUCCESS');
    expect((await client.create(order)).status).toBe(200);
    const journal = await request(bank.app).get(`/sandbox/journal?reference=${order.reference}&limit=1`);
    // Each view, and what shows it has loaded its data.
    const views: [string, (page: Page) => ReturnType<Page['locator']>][] = [
      ['#/orders', (page) => page.getByRole('link', { name: String(order.reference), exact: true })],
      [`#/orders/demo-connector/${order.reference}`, (page) => page.getByText('Decided:')],
      ['#/journal', (page) => page.getByRole('link', { name: `#${journal.body.data[0].id}`, exact: true })],
      [`#/journal/${journal.body.data[0].id}`, (page) => page.getByRole('heading', { name: 'The exchange' })],
      ['#/clients', (page) => page.getByText('Edit the fault profile')],
      ['#/clock/demo-connector', (page) => page.locator('.clock-now')],
      ['#/conformance', (page) => page.getByRole('option', { name: 'demo-connector' })],
    ];
    // A client with a test clock, so the Clock view shows its controls enabled.
    expect((await request(bank.app).post('/sandbox/clients/demo-connector/clock').send({})).status).toBe(201);
    const phone = await openPage(browser, listener.origin, PHONE);
    try {
      for (const [view, loaded] of views) {
        for (const page of [watched.page, phone.page] as Page[]) {
          await page.goto(`${listener.origin}/dashboard/${view}`);
          await loaded(page).first().waitFor({ state: 'attached', ...EVENTUALLY });
          expect([view, await unlabelledControls(page)]).toEqual([view, []]);
        }
        const width = await phone.page.evaluate<[number, number]>('[document.documentElement.scrollWidth, window.innerWidth]');
        expect([view, width[0] <= width[1]]).toEqual([view, true]);
      }
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
      await request(bank.app).delete('/sandbox/clients/demo-connector/clock');
    }
  });

  it('made no request outside this host and logged no console error', () => {
    expect(watched.requests.length).toBeGreaterThan(5);
    expect(watched.requests.filter((url) => !url.startsWith(`${listener.origin}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
  });
});
