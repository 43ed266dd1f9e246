// The Clients and Conformance views in a real browser: a client registered through the form gets its secrets
// shown once, with copy and download buttons that give exactly what the Bank answered (and the downloaded
// credentials work); a fault profile set in the form is the one the Bank applies; "Run conformance" runs the
// cases against the fake Connector and the run's page follows it to the end, with its HTML report.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector } from '../helpers/outbound';
import { contractCheckExceptDashboardFiles, describeInBrowser, launchChromium, listenOnLocalhost, openPage, WatchedPage } from './browser';

const EVENTUALLY = { timeout: 20_000 };

describeInBrowser('dashboard, clients and conformance', () => {
  let bank: Bank;
  let fake: FakeConnector;
  let listener: Awaited<ReturnType<typeof listenOnLocalhost>>;
  let browser: Browser;
  let watched: WatchedPage;

  contractCheckExceptDashboardFiles();

  beforeAll(async () => {
    ({ bank, fake } = await bankWithFakeConnector({ callbackMode: 'unit', reportPending: false }));
    bank.outbound.start();
    listener = await listenOnLocalhost(bank);
    browser = await launchChromium();
    watched = await openPage(browser, listener.origin);
    await watched.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: listener.origin });
  });

  afterAll(async () => {
    await watched?.close();
    await browser?.close();
    await listener?.close();
    await bank?.outbound.stop(1000);
    bank?.close();
    await fake?.stop();
  });

  it('registers a client: its secrets shown once, copied and downloaded as the Bank answered them, and they work', async () => {
    const { page } = watched;
    await page.goto(`${listener.origin}/dashboard/#/clients`);
    await page.getByText('Edit the fault profile').first().waitFor(EVENTUALLY);
    await page.getByLabel('Client id').fill('acme-dashboard');
    await page.getByLabel('Name').fill('ACME payments');
    await page.getByLabel('api_key').check();
    await page.getByLabel('Connector URL').fill(fake.url);
    await page.getByLabel('Callback mode').selectOption('unit');
    await page.getByLabel('Pull orders from the Connector').uncheck();
    await page.getByRole('button', { name: 'Register client' }).click();

    const panel = page.getByRole('region', { name: /^Registered acme-dashboard/ });
    await panel.waitFor(EVENTUALLY);
    const secret = (await panel.locator('.secret').filter({ hasText: 'client secret' }).locator('pre').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);

    await panel.getByRole('button', { name: 'Copy client secret' }).click();
    await page.getByText('client secret copied').waitFor(EVENTUALLY);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);

    const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Download credentials.json' }).click()]);
    expect(download.suggestedFilename()).toBe('acme-dashboard.credentials.json');
    const credentials = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    expect(credentials).toEqual({ client_id: 'acme-dashboard', client_secret: secret, private_jwk: expect.objectContaining({ kty: 'EC', d: expect.any(String) }), api_key: expect.any(String) });
    expect(await panel.locator('.secret').filter({ hasText: 'API key' }).locator('pre').textContent()).toBe(credentials.api_key);
    const [jwkFile] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Download private signing key (JWK)' }).click()]);
    expect(JSON.parse(fs.readFileSync(await jwkFile.path(), 'utf8'))).toEqual(credentials.private_jwk);

    // What the page handed over is what works: a token for the new client.
    const token = await request(bank.app).post('/oauth/token').auth('acme-dashboard', credentials.client_secret).type('form').send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(200);

    await panel.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('The credentials of acme-dashboard are no longer shown.').waitFor();
    expect(await page.locator('main').textContent()).not.toContain(secret);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'acme-dashboard (ACME payments)' }) });
    await card.waitFor(EVENTUALLY);
    expect(await card.textContent()).toContain(`${fake.url} — callbacks unit, pull off`);
  });

  it('sets and removes a fault profile: the form\'s values are the ones the Bank applies', async () => {
    const { page } = watched;
    await page.goto(`${listener.origin}/dashboard/#/clients`);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'acme-dashboard (ACME payments)' }) });
    await card.getByText('Fault profile').first().waitFor(EVENTUALLY);
    await card.getByText('Edit the fault profile').click();
    await card.getByLabel('Drop rate').fill('0.33');
    await card.getByLabel('Seed').fill('7');
    await card.getByRole('button', { name: 'Save fault profile' }).click();
    await card.getByText('drop rate 0.33 (seed 7)').waitFor(EVENTUALLY);
    expect((await request(bank.app).get('/sandbox/clients/acme-dashboard/faults')).body).toMatchObject({ active: true, drop_rate: 0.33, seed: 7, duplicate_rate: 0 });

    await card.getByRole('button', { name: 'Remove fault profile' }).click();
    await card.locator('dd').filter({ hasText: /^none$/ }).waitFor(EVENTUALLY);
    expect((await request(bank.app).get('/sandbox/clients/acme-dashboard/faults')).body.active).toBe(false);
  });

  it('"Run conformance" runs the cases against the Connector; the run\'s page follows it to the end, with its report', async () => {
    const { page } = watched;
    await page.goto(`${listener.origin}/dashboard/#/conformance`);
    await page.getByRole('option', { name: 'demo-connector' }).waitFor({ state: 'attached', ...EVENTUALLY });
    await page.getByLabel('Client').selectOption('demo-connector');
    await page.getByLabel('Window (seconds)').fill('1');
    await page.getByRole('button', { name: 'Run conformance' }).click();

    await page.getByRole('heading', { name: /^Conformance run / }).waitFor(EVENTUALLY);
    const runId = decodeURIComponent(new URL(page.url()).hash.replace('#/conformance/', ''));
    await page.locator('.badge-finished').waitFor(EVENTUALLY);
    const run = (await request(bank.app).get(`/sandbox/conformance-runs/${runId}`)).body;
    expect(run.state).toBe('finished');
    await page.getByText(`${run.results.length} of ${run.cases.length} cases finished`).waitFor(EVENTUALLY);
    const rows = page.getByRole('table').locator('tbody tr');
    expect(await rows.count()).toBe(run.results.length);
    for (const [index, result] of (run.results as { id: string; verdict: string }[]).entries()) {
      expect(await rows.nth(index).getByRole('cell').nth(1).textContent()).toBe(result.verdict);
      expect(await rows.nth(index).getByRole('cell').first().textContent()).toContain(result.id);
    }

    const [report] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the HTML report' }).click()]);
    expect(report.suggestedFilename()).toBe(`conformance-${runId}.html`);
    expect(fs.readFileSync(await report.path(), 'utf8')).toBe((await request(bank.app).get(`/sandbox/conformance-runs/${runId}/report.html`)).text);
    expect(await page.getByRole('link', { name: 'Open the HTML report' }).getAttribute('href')).toBe(run.links.report);

    await page.getByRole('link', { name: '← Conformance' }).click();
    await page.getByRole('link', { name: runId, exact: true }).waitFor(EVENTUALLY);
  });

  it('made no request outside this host and logged no console error', () => {
    expect(watched.requests.filter((url) => !url.startsWith(`${listener.origin}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
  });
});
