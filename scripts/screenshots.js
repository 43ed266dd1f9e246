#!/usr/bin/env node
// npm run screenshots: pictures of every dashboard view at 1280×800 and at 390×844, into docs/img/
// (docs/dashboard.md and the README show them). A Bank (relaxed mode, a temporary data directory) and the
// reference Connector run in this process on free ports of 127.0.0.1; a short, realistic session fills them:
// a few pushed orders with different scenarios, one settled by "Force outcome", one badly signed create, a
// client registered through the page, a test clock advanced by an hour, and a conformance run.
// Needs Chromium at /usr/bin/chromium (Debian's chromium package), or CHROMIUM=/path/to/chrome.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'docs', 'img');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

function fail(message) {
  console.error(`screenshots: ${message}`);
  process.exit(1);
}

if (!fs.existsSync(CHROMIUM)) fail(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM`);
require('./build-if-needed.js');

const dist = (module) => require(path.join(ROOT, 'dist', module));
const { createBank } = dist('bank/bank');
const { DEFAULTS } = dist('bank/config');
const { createLogger } = dist('wire/logger');
const { loadConnectorConfig } = dist('connector/config');
const { connectorLogger, startReferenceConnector } = dist('connector/connector');
const { signatureBase } = dist('wire/signature-base');
const { signDetached } = dist('wire/jws');
const { signingKeyFromJwk } = dist('wire/keys');
const { chromium } = require('playwright-core');
const http = require('node:http');
const crypto = require('node:crypto');

const CREDENTIALS = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/demo-connector/credentials.json'), 'utf8'));
const temp = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** An HTTP server whose handler is set later, so the Bank and the Connector can each know the other's URL. */
async function lateServer() {
  let handler = null;
  const server = http.createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}`, bind: (app) => (handler = app) };
}

function order(reference, amount, scenario, reason, debtor) {
  return {
    reference,
    initiated_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reason,
    type: 'DIRECT_DEBIT',
    debtor: { name: debtor, iban: 'DE89370400440532013000' },
    creditors: [{ name: 'Acme Utilities', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount, reason }],
    total_amount: amount,
    currency: 'EUR',
    metadata: { initiator: 'screenshots', sandbox_scenario: scenario },
  };
}

async function sandbox(bankUrl, method, target, body) {
  const response = await fetch(`${bankUrl}/sandbox${target}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  if (!response.ok) fail(`${method} /sandbox${target} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A create signed over one body and sent with another: the journal's signature_invalid example. */
async function badlySignedCreate(bankUrl) {
  const token = await fetch(`${bankUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${CREDENTIALS.client_id}:${CREDENTIALS.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  }).then((response) => response.json());
  const sent = JSON.stringify(order('INV-2099', '99.00', 'SUCCESS', 'Invoice 2099', 'Dana Wrong'));
  const signed = JSON.stringify(order('INV-2099', '9.90', 'SUCCESS', 'Invoice 2099', 'Dana Wrong'));
  const headers = {
    'x-client-id': CREDENTIALS.client_id,
    'x-request-id': crypto.randomUUID(),
    'x-timestamp': new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    'x-nonce': crypto.randomBytes(18).toString('base64url'),
    'x-idempotency-key': `create-INV-2099`,
  };
  const key = signingKeyFromJwk(CREDENTIALS.private_jwk);
  headers['x-signature'] = signDetached(signatureBase('create', { method: 'POST', target: '/payment-orders', headers, body: signed }), key.privateKey, { alg: key.alg, kid: key.kid, typ: 'JOSE' });
  const response = await fetch(`${bankUrl}/payment-orders`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' }, body: sent });
  if (response.status !== 401) fail(`the badly signed create answered ${response.status}`);
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const bankServer = await lateServer();
  const connector = await startReferenceConnector(
    loadConnectorConfig({
      CONNECTOR_PORT: '0',
      CONNECTOR_HOST: '127.0.0.1',
      CONNECTOR_DATA_DIR: temp('screenshots-connector-'),
      CREDENTIALS_FILE: path.join(ROOT, 'fixtures/demo-connector/credentials.json'),
      ORDERS_FIXTURE: path.join(ROOT, 'fixtures/conformance-connector-orders.json'),
      BANK_URL: bankServer.url,
      POLL_INITIAL_MS: '250',
      POLL_MAX_MS: '4000',
    }),
    { logger: connectorLogger('error', true) },
  );
  const bank = await createBank(
    { ...DEFAULTS, dataDir: temp('screenshots-bank-'), clientsFile: path.join(ROOT, 'fixtures/clients.json'), sandboxMode: 'relaxed', connectorUrl: connector.url, connectorToken: 'demo-pull-token', pollCron: 'off', callbackMode: 'unit', retryScheduleS: [0.05], batchWindowMs: 0, logLevel: 'error' },
    { logger: createLogger('error', true) },
  );
  bankServer.bind(bank.app);
  bank.outbound.start();
  const bankUrl = bankServer.url;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'] });
  const pages = {};
  for (const [size, viewport] of Object.entries(SIZES)) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    pages[size] = await context.newPage();
    pages[size].on('console', (message) => message.type() === 'error' && console.error(`[${size}] console: ${message.text()}`));
  }
  const written = [];
  const shoot = async (name, hash, ready, prepare) => {
    for (const [size, page] of Object.entries(pages)) {
      await page.goto(`${bankUrl}/dashboard/${hash}`);
      await ready(page).first().waitFor({ timeout: 20_000 });
      if (prepare) await prepare(page, size);
      await page.waitForTimeout(300);
      const file = path.join(OUT, `dashboard-${name}-${size}.png`);
      await page.screenshot({ path: file });
      written.push(path.relative(ROOT, file));
    }
  };

  try {
    // A short session of pushed orders, one of them settled now by "Force outcome".
    const push = (o) => connector.bankClient.createOrder(o);
    await push(order('INV-2001', '120.00', 'SUCCESS', 'Electricity bill 2026-11', 'Alice Martin'));
    await push(order('INV-2002', '75.50', 'FAILED:BUS_INSUFFICIENT_FUNDS', 'Gym membership 2026-11', 'Bruno Keller'));
    await push(order('INV-2003', '310.00', 'PENDING:3600:SUCCESS', 'Rent 2026-12', 'Chen Wei'));
    await push(order('INV-2004', '42.00', 'PENDING:3600:SUCCESS', 'Phone plan 2026-11', 'Dana Novak'));
    await push(order('INV-2005', '18.90', 'NO_CALLBACK', 'Newspaper 2026-11', 'Emil Sørensen'));
    await badlySignedCreate(bankUrl);
    await sandbox(bankUrl, 'POST', '/orders/demo-connector/INV-2003/outcome', { status: 'SUCCESS' });
    await new Promise((resolve) => setTimeout(resolve, 1000));

    await shoot('orders', '#/orders', (page) => page.locator('.callback-ok'));
    await shoot('order-timeline', '#/orders/demo-connector/INV-2003', (page) => page.getByText('Callback attempt 1 of message').last(), async (page) => {
      const attempt = page.getByRole('listitem').filter({ hasText: 'Callback attempt 1 of message' }).last();
      await attempt.getByText('Signed request').click();
      await attempt.locator('.exchange').waitFor();
      // The status change, then the attempt it caused with its signed request.
      await page.getByRole('listitem').filter({ hasText: 'outcome forced by the control plane' }).evaluate((element) => element.scrollIntoView());
    });
    const refused = await sandbox(bankUrl, 'GET', '/journal?code=signature_invalid&limit=1');
    await shoot('journal', '#/journal', (page) => page.locator('tr.refused'));
    await shoot('journal-signature', `#/journal/${refused.data[0].id}`, (page) => page.getByRole('heading', { name: "The Bank's signature base" }), async (page) => {
      await page.locator('.problem-box').evaluate((element) => element.scrollIntoView());
    });

    // Clients: one registered through the page, its secrets shown once.
    let registered = 0;
    await shoot('clients', '#/clients', (page) => page.getByText('Edit the fault profile'), async (page) => {
      registered += 1;
      await page.getByLabel('Client id').fill(`acme-payments-${registered}`);
      await page.getByLabel('Name').fill('ACME payments');
      await page.getByRole('button', { name: 'Register client' }).click();
      await page.getByRole('button', { name: 'Copy client secret' }).waitFor();
    });

    // Clock: an order due in an hour, then "+1 h".
    await sandbox(bankUrl, 'POST', '/clients/demo-connector/clock', {});
    await push(order('INV-2006', '64.00', 'PENDING:3600:SUCCESS', 'Insurance 2026-12', 'Fatima Zahra'));
    await push(order('INV-2007', '29.00', 'PENDING:7200:FAILED:BUS_ACCOUNT_CLOSED', 'Streaming 2026-12', 'Gus Olsen'));
    // Each size advances one hour: the first fires INV-2006, the second INV-2007.
    const due = { desktop: 'INV-2006', phone: 'INV-2007' };
    await shoot('clock', '#/clock/demo-connector', (page) => page.locator('.clock-now'), async (page, size) => {
      await page.getByRole('button', { name: 'Advance 1 h' }).click();
      await page.getByText(`settlement of ${due[size]}`).waitFor();
    });
    await sandbox(bankUrl, 'DELETE', '/clients/demo-connector/clock');

    // Conformance: the reference Connector, pushing the run's orders as its own.
    const run = await sandbox(bankUrl, 'POST', '/conformance-runs', { client_id: 'demo-connector', window_s: 8 });
    await Promise.all(run.client_orders.map(({ order: runOrder }) => connector.bankClient.createOrder(runOrder)));
    await bank.conformance.finished(run.id);
    await shoot('conformance', `#/conformance/${run.id}`, (page) => page.locator('.badge-finished'));
    // The run's own single-file HTML report, as CI would attach it: the summary, then a case with its exchanges.
    for (const [size, page] of Object.entries(pages)) {
      await page.goto(`${bankUrl}/sandbox/conformance-runs/${run.id}/report.html`);
      await page.locator('h1').first().waitFor();
      const file = path.join(OUT, `conformance-report-${size}.png`);
      await page.screenshot({ path: file });
      written.push(path.relative(ROOT, file));
      const exchange = page.locator('details', { hasText: 'unit.bad_signature_rejected' }).first();
      await exchange.evaluate((element) => {
        element.open = true;
        element.scrollIntoView();
      });
      const detail = path.join(OUT, `conformance-report-case-${size}.png`);
      await page.screenshot({ path: detail });
      written.push(path.relative(ROOT, detail));
    }
  } finally {
    await browser.close();
    await bank.outbound.stop(1000);
    bank.close();
    await connector.close();
    bankServer.server.closeAllConnections();
    bankServer.server.close();
  }
  console.log(`wrote ${written.length} screenshots:\n  ${written.join('\n  ')}`);
}

main().catch((error) => fail(error.stack || String(error)));
