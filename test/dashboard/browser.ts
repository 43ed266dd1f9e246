// The dashboard's browser tests drive Debian's chromium (/usr/bin/chromium; .ci/run installs it) with
// playwright-core, one browser per test file. Where chromium is missing they are skipped, loudly.
// Every page is watched: each request URL it makes (through a route handler that lets only this host through),
// every console error and every uncaught page error.
import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { Bank } from '../../src/bank/bank';
import { DemoClient } from '../helpers/bank';
import { takeContractViolations } from '../helpers/contract';
import { FakeConnector } from '../helpers/fake-connector';
import { bankWithFakeConnector } from '../helpers/outbound';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

export const chromiumAvailable = fs.existsSync(CHROMIUM);

/** `describe`, or `describe.skip` with a warning that names what is missing (never a silent skip). */
export function describeInBrowser(name: string, body: () => void): void {
  if (chromiumAvailable) {
    describe(name, body);
    return;
  }
  console.warn(
    `\n${'!'.repeat(100)}\n!! SKIPPED: the dashboard browser tests "${name}" need Chromium at ${CHROMIUM}, which is missing.\n` +
      `!! Install Debian's chromium (apt-get install -y chromium; .ci/run does it) to run them.\n${'!'.repeat(100)}\n`,
  );
  describe.skip(name, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** A page of the dashboard, with everything it asked for and everything it complained about. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Every URL the page requested, in order (the aborted ones too). */
  requests: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * Opens a fresh context (its own sessionStorage) on `origin`. Requests to any other origin are recorded and
 * aborted, so a page that reached out would both fail visibly and be listed.
 */
export async function openPage(browser: Browser, origin: string, viewport = DESKTOP): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const requests: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    return url.startsWith(`${origin}/`) || url === origin ? route.continue() : route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return { page, context, requests, errors, close: () => context.close() };
}

/** The Bank's app on a real port of 127.0.0.1 (the browser needs a socket; supertest has none). */
export async function listenOnLocalhost(bank: Bank): Promise<{ server: http.Server; origin: string; close(): Promise<void> }> {
  const server = http.createServer(bank.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The contract check of test/helpers/contract.ts (every answer against /openapi.json) stays on for everything
 * the page asks of /sandbox. The dashboard's own files are the exception: static files of a UI, not operations
 * of the API, so /openapi.json does not describe them (their headers are tested in serve.test.ts).
 * Registered inside a describe block, this hook runs before the helpers' own one, which then finds nothing.
 */
export function contractCheckExceptDashboardFiles(): void {
  afterEach(() => {
    const violations = takeContractViolations().filter((violation) => !/^(GET|HEAD) \/dashboard[/ ]/.test(violation));
    if (violations.length > 0) throw new Error(`${violations.length} response(s) do not match the Bank's OpenAPI document:\n  ${violations.join('\n  ')}`);
  });
}

/**
 * Every visible form control or button of the page without an accessible name (a label, aria-label,
 * aria-labelledby, or text for a button), described by tag and name attribute. Runs in the page (as source text:
 * this project's TypeScript has no DOM types).
 */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`
    [...document.querySelectorAll('input, select, textarea, button, summary, a[href]')]
      .filter((element) => element.offsetParent !== null && !element.closest('[aria-hidden="true"]'))
      .filter((element) => {
        if (element.getAttribute('aria-label')?.trim() || element.getAttribute('aria-labelledby')) return false;
        if (['INPUT', 'SELECT', 'TEXTAREA'].includes(element.tagName)) return element.labels.length === 0;
        return (element.textContent ?? '').trim() === '';
      })
      .map((element) => element.tagName.toLowerCase() + '[name=' + (element.getAttribute('name') ?? '') + ']')
  `);
}

/** What relaxedDashboard sets up: filled in before the describe block's tests run. */
export interface DashboardRig {
  bank: Bank;
  fake: FakeConnector;
  listener: Awaited<ReturnType<typeof listenOnLocalhost>>;
  browser: Browser;
  client: DemoClient;
  watched: WatchedPage;
}

/**
 * Registered in a describe block: a relaxed Bank with a fake Connector (unit callbacks, no PENDING reports), its
 * outbound started, served on 127.0.0.1, and a watched page in Chromium; all torn down after the block.
 */
export function relaxedDashboard(): DashboardRig {
  const rig = {} as DashboardRig;
  beforeAll(async () => {
    ({ bank: rig.bank, fake: rig.fake } = await bankWithFakeConnector({ callbackMode: 'unit', reportPending: false }));
    rig.bank.outbound.start();
    rig.listener = await listenOnLocalhost(rig.bank);
    rig.client = new DemoClient(rig.bank);
    rig.browser = await launchChromium();
    rig.watched = await openPage(rig.browser, rig.listener.origin);
  });
  afterAll(async () => {
    await rig.watched?.close();
    await rig.browser?.close();
    await rig.listener?.close();
    await rig.bank?.outbound.stop(1000);
    rig.bank?.close();
    await rig.fake?.stop();
  });
  return rig;
}
