// Two promises of docs/dashboard.md and docs/demo.md, in a real browser: the skip link moves the focus to the
// main region and leaves the view where it is (it is not an address of the router), and "Redeliver" says when
// the message goes out: at once on wall time, on the clock's next advance for a client with a test clock.
import request from 'supertest';
import { sampleOrder } from '../helpers/bank';
import { waitFor } from '../helpers/outbound';
import { contractCheckExceptDashboardFiles, describeInBrowser, relaxedDashboard } from './browser';

const EVENTUALLY = { timeout: 15_000 };
const CLIENT = 'demo-connector';

describeInBrowser('dashboard, the skip link and Redeliver', () => {
  contractCheckExceptDashboardFiles();
  const rig = relaxedDashboard();

  it('the skip link puts the focus in main and keeps the view and its address', async () => {
    const { page } = rig.watched;
    await page.goto(`${rig.listener.origin}/dashboard/#/journal`);
    await page.getByRole('heading', { name: 'Journal', level: 1 }).waitFor(EVENTUALLY);
    await page.locator('body').focus();
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);

    expect(new URL(page.url()).hash).toBe('#/journal');
    expect(await page.getByRole('heading', { name: 'Journal', level: 1 }).count()).toBe(1);
    expect(await page.getByText('No view at this address').count()).toBe(0);
    expect(await page.evaluate(() => Boolean((globalThis as unknown as { document: { activeElement: { closest(s: string): unknown } | null } }).document.activeElement?.closest('main')))).toBe(true);
    // The next Tab goes on inside the view, not back to the header.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => Boolean((globalThis as unknown as { document: { activeElement: { closest(s: string): unknown } | null } }).document.activeElement?.closest('main')))).toBe(true);
    // An address that is not a view still says so.
    await page.goto(`${rig.listener.origin}/dashboard/#/nowhere`);
    await page.getByText('No view at this address').waitFor(EVENTUALLY);
  });

  async function deliveredOrder(): Promise<string> {
    const order = sampleOrder({ metadata: { initiator: 'dashboard-test', sandbox_scenario: 'ASYNC:0:SUCCESS' } });
    expect((await rig.client.create(order)).status).toBe(202);
    return String(order.reference);
  }

  async function clickRedeliver(reference: string): Promise<string> {
    const { page } = rig.watched;
    await page.goto(`${rig.listener.origin}/dashboard/#/orders/${CLIENT}/${reference}`);
    await page.getByRole('heading', { name: `Order ${reference}` }).waitFor(EVENTUALLY);
    await page.getByRole('button', { name: 'Redeliver' }).first().waitFor(EVENTUALLY);
    await page.getByRole('button', { name: 'Redeliver' }).first().click();
    const said = page.locator('.form-status').filter({ hasText: /Message \d+/ });
    await said.waitFor(EVENTUALLY);
    return (await said.textContent()) ?? '';
  }

  it('Redeliver on wall time: sent again now', async () => {
    const reference = await deliveredOrder();
    await waitFor(() => rig.fake.callbacks.some((callback) => callback.parsed.reference === reference), 15_000, 'the first callback');
    const said = await clickRedeliver(reference);
    expect(said).toMatch(/^Message \d+ will be sent again: same body, same key\.$/);
    await waitFor(() => rig.fake.callbacks.filter((callback) => callback.parsed.reference === reference).length === 2, 15_000, 'the redelivery');
  });

  it('Redeliver for a client with a test clock: it says the message waits for the next advance', async () => {
    const sandbox = (path: string, body: object = {}) => request(rig.bank.app).post(`/sandbox${path}`).send(body);
    expect((await sandbox(`/clients/${CLIENT}/clock`)).status).toBe(201);
    try {
      const reference = await deliveredOrder();
      expect((await sandbox(`/clients/${CLIENT}/clock/advance`, { seconds: 0 })).status).toBe(200);
      await waitFor(() => rig.fake.callbacks.some((callback) => callback.parsed.reference === reference), 15_000, 'the first callback');
      const said = await clickRedeliver(reference);
      expect(said).toContain('test clock');
      expect(said).toContain('next advance');
      expect(await rig.watched.page.getByRole('link', { name: 'Advance the clock' }).getAttribute('href')).toBe(`#/clock/${CLIENT}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(rig.fake.callbacks.filter((callback) => callback.parsed.reference === reference)).toHaveLength(1);
      // The note outlives the view's own refresh after the click (it once vanished within ~150 ms, link and all).
      expect(await rig.watched.page.getByRole('link', { name: 'Advance the clock' }).count()).toBe(1);
      expect((await sandbox(`/clients/${CLIENT}/clock/advance`, { seconds: 0 })).status).toBe(200);
      await waitFor(() => rig.fake.callbacks.filter((callback) => callback.parsed.reference === reference).length === 2, 15_000, 'the redelivery');
    } finally {
      expect((await request(rig.bank.app).delete(`/sandbox/clients/${CLIENT}/clock`)).status).toBe(200);
    }
  });

  it('made no request outside this host and logged no console error', () => {
    expect(rig.watched.requests.filter((url) => !url.startsWith(`${rig.listener.origin}/`))).toEqual([]);
    expect(rig.watched.errors).toEqual([]);
  });
});
