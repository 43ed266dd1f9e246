// A page of GET /sandbox/orders ends early once its payment orders reach 4 Mi characters (control/orders.ts), so
// the dashboard's order list follows next_cursor until it has the rows it wants: with a page cut short, it showed
// the first part and "Show more orders" never added a row.
import request from 'supertest';
import { sampleOrder } from '../helpers/bank';
import { contractCheckExceptDashboardFiles, describeInBrowser, relaxedDashboard } from './browser';

const EVENTUALLY = { timeout: 30_000 };

/** A create of ~230 KB, under the default BODY_LIMIT_BYTES: 1,000 creditors and 40 long metadata values. */
function largeOrder(): Record<string, unknown> {
  const creditor = (sampleOrder().creditors as Record<string, unknown>[])[0];
  const metadata: Record<string, string> = { initiator: 'large-orders-test' };
  for (let i = 0; i < 40; i += 1) metadata[`note${i}`] = 'x'.repeat(1000);
  return sampleOrder({ creditors: Array.from({ length: 1000 }, () => ({ ...creditor, amount: '0.01' })), metadata }, '10.00');
}

describeInBrowser('dashboard: orders whose page is cut short by size', () => {
  contractCheckExceptDashboardFiles();
  const rig = relaxedDashboard();

  it('lists every order, following the cursor past the first page', async () => {
    const references: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const order = largeOrder();
      const answer = await rig.client.create(order);
      expect(answer.status).toBe(200);
      references.push(String(order.reference));
    }
    // The API's first page is cut short by size: the dashboard must follow its cursor.
    const first = await request(rig.bank.app).get('/sandbox/orders?limit=50');
    expect(first.body.data.length).toBeLessThan(30);
    expect(first.body.next_cursor).not.toBeNull();
    const { page } = rig.watched;
    await page.goto(`${rig.listener.origin}/dashboard/#/orders`);
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
    for (const reference of [references[0], references[29]]) await page.getByRole('link', { name: reference, exact: true }).waitFor(EVENTUALLY);
    expect(await page.locator('table.orders tbody tr').count()).toBe(30);
    expect(await page.getByRole('button', { name: 'Show more orders' }).isHidden()).toBe(true);
    expect(rig.watched.errors).toEqual([]);
  }, 120_000);
});
