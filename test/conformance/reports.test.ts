// Conformance reports (conformance.md section 2): the JUnit file validates against the Jenkins junit-10.xsd and says
// what each case found in the form CI parsers read; the HTML report is one self-contained file that shows every
// case, references nothing on the network, renders a hostile Connector answer as text, and loads in a real browser
// without a single request or console error.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { validateXML } from 'xmllint-wasm';
import { htmlReport } from '../../src/bank/conformance/html-report';
import { junitXml, showControlCharacters } from '../../src/bank/conformance/junit';
import { CaseResult, ConformanceRun, failureMessage } from '../../src/bank/conformance/model';
import { abortedRun, CONNECTOR_URL, exchange, HOSTILE_MARKER, result, sampleRun } from './sample-run';

const XSD = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'junit-10.xsd'), 'utf8');

/** Characters XML 1.0 forbids, and C1 controls: none may reach either report raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

async function expectValidJunit(xml: string): Promise<void> {
  const validation = await validateXML({ xml: { fileName: 'conformance.xml', contents: xml }, schema: { fileName: 'junit-10.xsd', contents: XSD } });
  if (!validation.valid) console.error(`junit.xml is not valid against junit-10.xsd:\n${validation.errors.map((error) => error.rawMessage).join('\n')}`);
  expect(validation.errors).toEqual([]);
  expect(validation.valid).toBe(true);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading our own XML back (its tags never contain a raw ">", since every value is escaped)

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    if (entity[0] === '#') return String.fromCodePoint(entity[1] === 'x' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[entity.toLowerCase()] as string;
  });
}

function attributesOf(tagInside: string): Record<string, string> {
  return Object.fromEntries([...tagInside.matchAll(/([^\s=]+)="([^"]*)"/g)].map(([, name, value]) => [name, decodeEntities(value)]));
}

interface ParsedCase {
  attributes: Record<string, string>;
  inner: string;
}

function suitesOf(xml: string): Record<string, string>[] {
  return [...xml.matchAll(/<testsuite\s([^>]*)>/g)].map(([, inside]) => attributesOf(inside));
}

function casesOf(xml: string): Map<string, ParsedCase> {
  return new Map([...xml.matchAll(/<testcase\s([^>]*)>([\s\S]*?)<\/testcase>/g)].map(([, inside, inner]) => [attributesOf(inside).name, { attributes: attributesOf(inside), inner }]));
}

function child(parsed: ParsedCase, name: string): { attributes: Record<string, string>; text: string } | null {
  const match = new RegExp(`<${name}((?:\\s[^>]*?)?)(?:/>|>([\\s\\S]*?)</${name}>)`).exec(parsed.inner);
  return match === null ? null : { attributes: attributesOf(match[1]), text: decodeEntities(match[2] ?? '') };
}

function systemOut(xml: string, id: string): string {
  const parsed = casesOf(xml).get(id);
  if (parsed === undefined) throw new Error(`no testcase ${id}`);
  return child(parsed, 'system-out')?.text ?? '';
}

function resultOf(run: ConformanceRun, id: string): CaseResult {
  const found = run.results.find((one) => one.id === id);
  if (found === undefined) throw new Error(`no result ${id}`);
  return found;
}

// ---------------------------------------------------------------------------------------------------------------

describe('JUnit report', () => {
  const run = sampleRun();
  const xml = junitXml(run);

  it('validates against the Jenkins junit-10.xsd, for a finished, an aborted, an empty and a running run', async () => {
    await expectValidJunit(xml);
    await expectValidJunit(junitXml(abortedRun()));
    await expectValidJunit(junitXml({ ...sampleRun(), state: 'running', results: [], finishedAt: null, durationMs: null }));
    await expectValidJunit(junitXml({ ...sampleRun(), state: 'running', results: sampleRun().results.slice(0, 1), finishedAt: null, durationMs: null }));
  });

  it('has one testsuite per group with results, in group order, with its counts, time and timestamp', () => {
    const suites = suitesOf(xml).map(({ name, tests, failures, errors, skipped }) => ({ name, tests, failures, errors, skipped }));
    expect(suites).toEqual([
      { name: 'conformance.pull', tests: '4', failures: '2', errors: '0', skipped: '0' },
      { name: 'conformance.unit', tests: '3', failures: '1', errors: '0', skipped: '0' },
      { name: 'conformance.transport', tests: '2', failures: '0', errors: '0', skipped: '1' },
      { name: 'conformance.client', tests: '2', failures: '0', errors: '0', skipped: '1' },
    ]);
    const pull = suitesOf(xml)[0];
    expect(pull.time).toBe('0.155'); // 35 + 50 + 35 + 35 ms of the four pull cases
    expect(pull.timestamp).toBe('2025-03-04T10:00:01Z');
    expect(attributesOf(/<testsuites\s([^>]*)>/.exec(xml)?.[1] ?? '')).toEqual({ name: 'conformance run r1', tests: '11', failures: '3', errors: '0', time: '41.395' });
  });

  it('has one testcase per case, named by its id, classed by its group, timed in seconds', () => {
    const cases = casesOf(xml);
    expect([...cases.keys()]).toEqual(run.results.map((one) => one.id));
    expect(cases.get('pull.page_respects_limit')?.attributes).toEqual({ name: 'pull.page_respects_limit', classname: 'conformance.pull', time: '0.050' });
    expect(cases.get('client.polls_with_backoff')?.attributes).toEqual({ name: 'client.polls_with_backoff', classname: 'conformance.client', time: '0.020' });
  });

  it('gives a FAILED case a <failure> with the message "<clause>: <expected> / <seen>" and the details as text', () => {
    const failure = child(casesOf(xml).get('pull.unsigned_rejected') as ParsedCase, 'failure');
    expect(failure?.attributes.message).toBe('profile 1: 4xx / 200');
    expect(failure?.text).toBe('clause: profile 1\nexpected: 4xx\nseen: 200');
    const failed = run.results.filter((one) => one.verdict === 'FAILED');
    // Characters XML cannot carry are shown as \uXXXX (the hostile case); everything else is the message as is.
    for (const one of failed) expect(child(casesOf(xml).get(one.id) as ParsedCase, 'failure')?.attributes.message).toBe(showControlCharacters(failureMessage(one)));
    expect(xml.match(/<failure\s/g)).toHaveLength(failed.length);
  });

  it('keeps quotes, newlines and tabs of a failure message through the attribute', () => {
    const tricky = result('pull.unsigned_rejected', 'FAILED', 'answered "200"\n\tthen <ok> & \'done\'\r', []);
    const trickyXml = junitXml({ ...sampleRun(), results: [tricky], cases: [tricky.id] });
    const failure = child(casesOf(trickyXml).get(tricky.id) as ParsedCase, 'failure');
    expect(failure?.attributes.message).toBe(failureMessage(tricky));
  });

  it('gives a SKIPPED case <skipped message="<reason>"> and no failure', () => {
    const parsed = casesOf(xml).get('transport.foreign_ca_refused') as ParsedCase;
    expect(child(parsed, 'skipped')?.attributes.message).toBe('the Connector has no foreign-CA check configured in this sandbox');
    expect(child(parsed, 'failure')).toBeNull();
    expect(xml.match(/<skipped\s/g)).toHaveLength(2);
  });

  it('reports a WARNING as a passed case whose <system-out> starts with "WARNING: <why>"', () => {
    const parsed = casesOf(xml).get('unit.final_status_not_changed') as ParsedCase;
    expect(child(parsed, 'failure')).toBeNull();
    expect(child(parsed, 'skipped')).toBeNull();
    expect(parsed.inner).toContain('<system-out>WARNING: the Connector answered 200 to a change of a final status (the contract forbids the change, not the answer)\n');
    for (const [id, other] of casesOf(xml)) if (id !== 'unit.final_status_not_changed') expect(child(other, 'system-out')?.text.startsWith('WARNING')).toBe(false);
  });

  it('writes each exchange into <system-out> as readable text: request, signing, answer or error, latency, journal, curl', () => {
    const signed = systemOut(xml, 'unit.valid_callback_accepted');
    expect(signed).toContain(`--- exchange 1/1: SUCCESS callback (Bank → Connector) ---`);
    expect(signed).toContain(`> POST ${CONNECTOR_URL}/callbacks/payment-status\n> authorization: Bearer ****\n`);
    expect(signed).toContain('> x-idempotency-key: cb-ORD-1001-1\n');
    expect(signed).toContain('\n{"reference":"ORD-1001","status":"SUCCESS"}\n');
    expect(signed).toContain('JWS header: {"alg":"ES256","kid":"bank-2025","b64":false,"crit":["b64"]}');
    expect(signed).toContain('signature base:\nPOST /callbacks/payment-status\nx-client-id: acme-connector\n');
    expect(signed).toContain('< 200\n< content-type: application/json\n<\n{"orders":[],"next_offset":null}');
    expect(signed).toMatch(/latency: 14 ms\njournal: #\d+\nreplay:\ncurl -sS -X POST /);
    const refused = systemOut(xml, 'pull.missing_token_rejected');
    expect(refused).toContain('MISBEHAVIOUR (applied on purpose): Authorization header removed');
    expect(refused).toContain('< (no HTTP answer)\nerror: connect ECONNREFUSED 127.0.0.1:8443\nlatency: 3 ms\njournal: not journalled');
    expect(systemOut(xml, 'pull.unsigned_rejected')).toContain('> set-cookie: a=1\n> set-cookie: b=2\n');
    expect(systemOut(xml, 'pull.page_respects_limit')).toContain('[… truncated: the body was longer than the recording keeps]');
    expect(systemOut(xml, 'client.create_signed_correctly')).toContain('(Connector → Bank)');
    expect(systemOut(xml, 'client.polls_with_backoff')).toContain('No exchanges: the case sent and observed nothing.');
  });

  it('escapes a hostile answer: no markup, no "]]>", no character XML forbids; controls shown as \\uXXXX, non-ASCII kept', () => {
    expect(xml).not.toMatch(RAW_CONTROL);
    expect(xml).not.toContain(']]>');
    expect(xml).not.toMatch(/<(script|img|b)[\s>]/);
    const hostile = systemOut(xml, 'unit.bad_signature_rejected');
    expect(hostile).toContain(HOSTILE_MARKER);
    expect(hostile).toContain('"controls":"\\u0000\\u0001\\u0007\\u001b[31m\\u007f\\u0085\\ufffe","surrogate":"\\ud800"');
    expect(hostile).toContain('Zahlung für Müller – 東京 ✓ 😀');
    expect(hostile).toContain('< x-debug: <b onmouseover="alert(1)">hi</b> \\u0001');
    const failure = child(casesOf(xml).get('unit.bad_signature_rejected') as ParsedCase, 'failure');
    expect(failure?.attributes.message).toContain('/ 200 with body {"error":"<script>');
    expect(failure?.attributes.message).toContain('"controls":"\\u0000\\u0001\\u0007\\u001b[31m');
  });

  it('still gives a valid file for an aborted run: the finished cases, then an <error> testcase "conformance.run"', async () => {
    const aborted = abortedRun();
    const abortedXml = junitXml(aborted);
    await expectValidJunit(abortedXml);
    expect(suitesOf(abortedXml).map(({ name, tests, failures, errors }) => [name, tests, failures, errors])).toEqual([
      ['conformance.pull', '2', '1', '0'],
      ['conformance.run', '1', '0', '1'],
    ]);
    const runCase = casesOf(abortedXml).get('conformance.run') as ParsedCase;
    expect(runCase.attributes.classname).toBe('conformance.run');
    const error = child(runCase, 'error');
    expect(error?.attributes.message).toBe(aborted.error);
    expect(error?.text).toContain('finished cases: 2 of 20 planned');
    expect(error?.text).toContain('\n  pull.page_respects_limit\n');
    expect(error?.text).toContain('\n  unit.pending_then_final_accepted');
    expect(attributesOf(/<testsuites\s([^>]*)>/.exec(abortedXml)?.[1] ?? '')).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    expect(junitXml(sampleRun())).not.toContain('conformance.run');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// HTML

const ALLOWED_TAGS = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'main', 'section', 'nav', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'p', 'span', 'strong', 'small', 'code', 'pre', 'time', 'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'dl', 'dt', 'dd', 'details', 'summary', 'ol', 'ul', 'li', 'a']);
const ALLOWED_ATTRIBUTES = new Set(['lang', 'charset', 'name', 'content', 'http-equiv', 'id', 'class', 'href', 'scope', 'open', 'title', 'aria-labelledby']);

interface Tag {
  name: string;
  attributes: Record<string, string>;
}

/**
 * Every tag of the page, with its attributes. Checked to account for every "<" of the document (tags, end tags, the
 * doctype), so nothing hides from the checks below in a form the pattern would not read.
 */
function tagsOf(page: string): Tag[] {
  const tags = [...page.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s"'=<>`/]+(?:="[^"<>]*")?)*)\s*>/g)].map(([, name, inside]) => ({
    name: name.toLowerCase(),
    attributes: Object.fromEntries([...inside.matchAll(/([^\s"'=<>`/]+)(?:="([^"]*)")?/g)].map(([, key, value]) => [key.toLowerCase(), decodeEntities(value ?? '')])),
  }));
  const endTags = page.match(/<\/[a-zA-Z][a-zA-Z0-9]*>/g) ?? [];
  const doctype = page.match(/<!DOCTYPE html>/g) ?? [];
  expect(page.split('<').length - 1).toBe(tags.length + endTags.length + doctype.length);
  return tags;
}

function styleOf(page: string): string {
  return [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(([, css]) => css).join('\n');
}

function expectSelfContained(page: string): void {
  const tags = tagsOf(page);
  expect(tags.filter((tag) => !ALLOWED_TAGS.has(tag.name)).map((tag) => tag.name)).toEqual([]);
  const attributes = tags.flatMap((tag) => Object.entries(tag.attributes).map(([key, value]) => ({ tag: tag.name, key, value })));
  expect(attributes.filter(({ key }) => !ALLOWED_ATTRIBUTES.has(key))).toEqual([]);
  expect(attributes.filter(({ key, value }) => key === 'href' && !/^#[^\s]+$/.test(value))).toEqual([]);
  // Anchors lead somewhere: every #target is an id of the page.
  const ids = new Set(attributes.filter(({ key }) => key === 'id').map(({ value }) => value));
  expect(attributes.filter(({ key, value }) => key === 'href' && !ids.has(value.slice(1)))).toEqual([]);
  // No attribute value names a URL (content of meta and title are words; a URL there would be a reference).
  expect(attributes.filter(({ value }) => /[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/Conformance run/.test(value))).toEqual([]);
  const metas = tags.filter((tag) => tag.name === 'meta' && tag.attributes['http-equiv'] !== undefined);
  expect(metas.map((tag) => tag.attributes['http-equiv'])).toEqual(['Content-Security-Policy']);
  expect(metas[0].attributes.content).toMatch(/^default-src 'none';/);
  const css = styleOf(page);
  expect(css).not.toMatch(/url\s*\(|@import|@font-face|image-set|\/\//i);
}

describe('HTML report', () => {
  const run = sampleRun();
  const page = htmlReport(run);

  it('is one self-contained page: allowed tags only, anchors only, no URL in any attribute or the CSS', () => {
    expectSelfContained(page);
    expectSelfContained(htmlReport(abortedRun()));
    expect(page).toMatch(/^<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">/);
  });

  it('shows every case of the run, in the contents and as a section, with verdict text beside its colour', () => {
    for (const one of run.results) {
      expect(page).toContain(`<li><a href="#case-${one.id}">${one.id}</a> <span class="verdict v-${one.verdict.toLowerCase()}">${one.verdict}</span></li>`);
      expect(page).toContain(`id="case-${one.id}"`);
    }
    const aborted = abortedRun();
    const abortedPage = htmlReport(aborted);
    for (const id of aborted.cases) expect(abortedPage).toContain(`id="case-${id}"`);
  });

  it('summarises the run: counts per verdict, Bank version, client, Connector URL, started, finished, duration', () => {
    const counts = Object.fromEntries([...page.matchAll(/<tr><th scope="row"><span class="verdict v-\w+">(\w+)<\/span><\/th><td>(\d+)<\/td><\/tr>/g)].map(([, verdict, count]) => [verdict, Number(count)]));
    expect(counts).toEqual({ PASSED: 5, FAILED: 3, WARNING: 1, SKIPPED: 2 });
    expect(page).toContain('<tfoot><tr><th scope="row">Total</th><td>11</td></tr></tfoot>');
    for (const fact of ['<dt>Bank version</dt><dd>0.1.0</dd>', '<dt>Client</dt><dd><code>acme-connector</code></dd>', `<dt>Connector URL</dt><dd><code>${CONNECTOR_URL}</code></dd>`, '<dt>Started</dt><dd><time>2025-03-04T10:00:00.512Z</time></dd>', '<dt>Finished</dt><dd><time>2025-03-04T10:00:41.907Z</time></dd>', '<dt>Duration</dt><dd>41.4 s</dd>']) {
      expect(page).toContain(fact);
    }
  });

  it('opens failed cases and collapses the others', () => {
    const details = [...page.matchAll(/<details class="case c-(\w+)" id="case-([^"]+)"( open)?>/g)].map(([, verdict, id, open]) => [id, verdict, open !== undefined]);
    expect(details).toHaveLength(run.results.length);
    for (const [id, verdict, open] of details) expect([id, open]).toEqual([id, verdict === 'failed']);
  });

  it('shows a case with its clause, expected, seen and reason, and its exchanges with misbehaviour, signing, answer, curl', () => {
    const section = sectionOf(page, 'unit.final_status_not_changed');
    expect(section).toContain('<dt>Clause</dt><dd>contract 3</dd>');
    expect(section).toContain('<dt>Seen</dt><dd>200 to FAILED after SUCCESS</dd>');
    expect(section).toContain('<dt>Warning</dt><dd>the Connector answered 200 to a change of a final status (the contract forbids the change, not the answer)</dd>');
    expect(section).toContain('<h4>Exchanges (2)</h4>');
    expect(section).toContain(`<pre class="request-line">POST ${CONNECTOR_URL}/callbacks/payment-status</pre>`);
    expect(section).toContain('&quot;alg&quot;: &quot;ES256&quot;');
    expect(section).toContain('<dt>Signature base</dt><dd><pre>POST /callbacks/payment-status\nx-client-id: acme-connector');
    expect(section).toContain('<dt>Replay with curl</dt><dd><pre class="curl">curl -sS -X POST &#39;');
    const refused = sectionOf(page, 'pull.missing_token_rejected');
    expect(refused).toContain('<p class="misbehaviour"><strong>Misbehaviour applied on purpose:</strong> Authorization header removed</p>');
    expect(refused).toContain('<p class="none">No HTTP answer.</p>');
    expect(refused).toContain('<dt>Error</dt><dd><p class="error">connect ECONNREFUSED 127.0.0.1:8443</p></dd>');
    expect(refused).toContain('not journalled');
    expect(sectionOf(page, 'transport.foreign_ca_refused')).toContain('<dt>Skipped because</dt><dd>the Connector has no foreign-CA check configured in this sandbox</dd>');
    expect(sectionOf(page, 'client.polls_with_backoff')).toContain('No exchanges: this case sent and observed nothing.');
  });

  it('renders a hostile answer as text: markup escaped, controls marked as \\uXXXX, non-ASCII kept', () => {
    expect(page).not.toMatch(RAW_CONTROL);
    const tags = tagsOf(page).map((tag) => tag.name);
    expect(tags).not.toContain('script');
    expect(tags).not.toContain('img');
    expect(tags).not.toContain('b');
    const section = sectionOf(page, 'unit.bad_signature_rejected');
    expect(section).toContain('&lt;script&gt;window.__pwned = 1; alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;');
    expect(section).toContain('<span class="ctl" title="control character">\\u0001</span>');
    expect(section).toContain('<span class="ctl" title="control character">\\ud800</span>');
    expect(section).toContain('Zahlung für Müller – 東京 ✓ 😀');
    expect(section).toContain('Misbehaviour applied on purpose:</strong> body changed after signing &lt;b&gt;bold?&lt;/b&gt;');
  });

  it('says an aborted run stopped and why, and lists the planned cases that never ran', () => {
    const abortedPage = htmlReport(abortedRun());
    expect(abortedPage).toContain('<p class="aborted"><strong>Run aborted:</strong> Connector unreachable: connect ECONNREFUSED 127.0.0.1:8443 &lt;for every case&gt;.');
    expect(abortedPage).toContain('<h2 id="not-run">Not run</h2>');
    expect(abortedPage).toContain('<li id="case-unit.valid_callback_accepted"><span class="verdict v-notrun">NOT RUN</span> <code>unit.valid_callback_accepted</code></li>');
    expect(abortedPage).toContain('<tr><th scope="row"><span class="verdict v-notrun">NOT RUN</span></th><td>18</td></tr>');
  });
});

/** The <details> of one case, up to the next case or section. */
function sectionOf(page: string, id: string): string {
  const start = page.indexOf(`<details class="case`, page.indexOf(`id="case-${id}"`) - 60);
  const end = page.indexOf('</details>', start);
  if (start < 0 || end < 0) throw new Error(`no section for ${id}`);
  return page.slice(start, end);
}

// ---------------------------------------------------------------------------------------------------------------
// In a real browser

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  console.warn(`\n!!! ${CHROMIUM} does not exist: SKIPPING the test that loads the HTML conformance report in a browser.\n!!! Install Debian's chromium to run it.\n`);
}

interface InPage {
  pwned: number | null;
  active: number;
  overflow: number;
  openIsFailed: boolean;
  failedCount: number;
  badgeContrast: number;
  badgeStyled: string;
  hostileText: string;
  headings: number;
}

// Runs in the page. A string, because the project compiles without the DOM library (adding it would change the
// globals every other file sees). Contrast is the WCAG ratio of each verdict badge's text and background.
const IN_PAGE_CHECKS = `(() => {
  const details = [...document.querySelectorAll('details.case')];
  const luminance = (css) => {
    const [r, g, b] = (css.match(/[\\d.]+/g) || []).slice(0, 3).map(Number).map((value) => value / 255)
      .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (element) => {
    const style = getComputedStyle(element);
    const [light, dark] = [luminance(style.color), luminance(style.backgroundColor)].sort((a, b) => b - a);
    return (light + 0.05) / (dark + 0.05);
  };
  return {
    pwned: window.__pwned ?? null,
    active: document.querySelectorAll('script, img, iframe, object, embed, link, video, audio, form').length,
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    openIsFailed: details.every((one) => one.open === one.classList.contains('c-failed')),
    failedCount: details.filter((one) => one.open).length,
    badgeContrast: Math.min(...[...document.querySelectorAll('.verdict')].map(contrast)),
    badgeStyled: getComputedStyle(document.querySelector('.v-failed') || document.body).backgroundColor,
    hostileText: (document.getElementById('case-unit.bad_signature_rejected') || { textContent: '' }).textContent,
    headings: document.querySelectorAll('h1, h2, h3').length,
  };
})()`;

(HAVE_CHROMIUM ? describe : describe.skip)('HTML report in Chromium', () => {
  it('loads at 390 px wide with no request, no console error and no script run, failed cases open, badges legible', async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
    try {
      for (const run of [sampleRun(), abortedRun()]) {
        const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
        const requests: string[] = [];
        const problems: string[] = [];
        await context.route('**/*', async (route) => {
          requests.push(route.request().url());
          await route.abort();
        });
        const page = await context.newPage();
        page.on('request', (request) => requests.push(`request event: ${request.url()}`));
        page.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
        });
        page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
        await page.setContent(htmlReport(run), { waitUntil: 'load' });
        const seen = (await page.evaluate(IN_PAGE_CHECKS)) as InPage;
        expect(requests).toEqual([]);
        expect(problems).toEqual([]);
        expect(seen.pwned).toBeNull();
        expect(seen.active).toBe(0);
        expect(seen.overflow).toBeLessThanOrEqual(0);
        expect(seen.openIsFailed).toBe(true);
        expect(seen.failedCount).toBe(run.results.filter((one) => one.verdict === 'FAILED').length);
        expect(seen.badgeContrast).toBeGreaterThanOrEqual(4.5);
        expect(seen.badgeStyled).toBe('rgb(183, 28, 28)'); // the inline CSS applied despite the CSP
        if (run.id === 'r1') expect(seen.hostileText).toContain(HOSTILE_MARKER);
        expect(seen.headings).toBeGreaterThan(3);
        await context.close();
      }
    } finally {
      await browser.close();
    }
  });
});
