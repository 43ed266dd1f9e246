// The dashboard when /sandbox is guarded (ADMIN_TOKEN set): without the token the page shows the token form and
// no data (it asks /sandbox nothing); a wrong token is refused; the right one shows the data, live, for this tab
// only (sessionStorage) until "Forget token". In strict mode without ADMIN_TOKEN the page says the control plane
// is off, and asks nothing either.
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { DemoClient, sampleOrder, startBank } from '../helpers/bank';
import { contractCheckExceptDashboardFiles, describeInBrowser, launchChromium, listenOnLocalhost, openPage } from './browser';

const ADMIN = 'dashboard-strict-admin-token';
const EVENTUALLY = { timeout: 15_000 };

const sandboxCalls = (urls: string[]) => urls.filter((url) => new URL(url).pathname.startsWith('/sandbox'));

describeInBrowser('dashboard, strict mode with ADMIN_TOKEN', () => {
  let bank: Bank;
  let listener: Awaited<ReturnType<typeof listenOnLocalhost>>;
  let browser: Browser;
  let client: DemoClient;
  let reference: string;

  contractCheckExceptDashboardFiles();

  beforeAll(async () => {
    bank = await startBank({ adminToken: ADMIN, pollCron: 'off' });
    listener = await listenOnLocalhost(bank);
    client = new DemoClient(bank);
    const order = sampleOrder({ metadata: { sandbox_scenario: 'PENDING:3600:SUCCESS' } });
    reference = String(order.reference);
    expect((await client.create(order)).status).toBe(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await listener?.close();
    bank?.close();
  });

  it('without the token: the token form, and no data (the page asks /sandbox nothing)', async () => {
    const watched = await openPage(browser, listener.origin);
    try {
      const { page } = watched;
      await page.goto(`${listener.origin}/dashboard/#/orders`);
      await page.getByRole('heading', { name: 'Admin token required' }).waitFor();
      expect(await page.getByLabel('Admin token', { exact: true }).evaluate((input) => (input as unknown as { type: string }).type)).toBe('password');
      await page.waitForLoadState('load');
      expect(await page.getByRole('navigation').count()).toBe(0);
      expect(await page.locator('body').textContent()).not.toContain(reference);
      expect(sandboxCalls(watched.requests)).toEqual([]);
      expect(watched.requests.length).toBeGreaterThan(3);
      expect(watched.errors).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  it('a wrong token is refused; the right one shows the orders, live, for this tab until "Forget token"', async () => {
    const watched = await openPage(browser, listener.origin);
    try {
      const { page } = watched;
      await page.goto(`${listener.origin}/dashboard/`);
      await page.getByLabel('Admin token', { exact: true }).fill('not-the-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'The Bank refused this token.' }).waitFor(EVENTUALLY);
      expect(await page.locator('body').textContent()).not.toContain(reference);
      // The one refusal is the browser's own report of that 401, nothing else.
      expect(watched.errors).toEqual([expect.stringMatching(/status of 401 .*\/sandbox\/clients\?limit=1\)$/)]);
      watched.errors.length = 0;

      await page.getByLabel('Admin token', { exact: true }).fill(ADMIN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: reference, exact: true }).waitFor(EVENTUALLY);
      expect(await page.evaluate<string | null>(`sessionStorage.getItem('sandbox-bank-admin-token')`)).toBe(ADMIN);

      // The event stream carries the token too (streaming fetch): a new order appears without a reload.
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor(EVENTUALLY);
      const next = sampleOrder();
      expect((await client.create(next)).status).toBe(200);
      await page.getByRole('link', { name: String(next.reference), exact: true }).waitFor(EVENTUALLY);

      // A reload keeps the tab signed in; "Forget token" forgets it.
      await page.reload();
      await page.getByRole('link', { name: reference, exact: true }).waitFor(EVENTUALLY);
      await page.getByRole('button', { name: 'Forget token' }).click();
      await page.getByRole('heading', { name: 'Admin token required' }).waitFor();
      expect(await page.evaluate<string | null>(`sessionStorage.getItem('sandbox-bank-admin-token')`)).toBeNull();
      expect(await page.locator('main').textContent()).not.toContain(reference);

      expect(watched.requests.filter((url) => !url.startsWith(`${listener.origin}/`))).toEqual([]);
      expect(watched.errors).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  it('strict mode without ADMIN_TOKEN: the page says the control plane is off and asks nothing', async () => {
    const closed = await startBank({ pollCron: 'off' });
    const closedListener = await listenOnLocalhost(closed);
    const watched = await openPage(browser, closedListener.origin);
    try {
      expect((await request(closed.app).get('/sandbox/orders')).status).toBe(401);
      await watched.page.goto(`${closedListener.origin}/dashboard/`);
      await watched.page.getByRole('heading', { name: 'The control plane is off' }).waitFor();
      await watched.page.waitForLoadState('load');
      expect(sandboxCalls(watched.requests)).toEqual([]);
      expect(watched.errors).toEqual([]);
    } finally {
      await watched.close();
      await closedListener.close();
      closed.close();
    }
  });
});
