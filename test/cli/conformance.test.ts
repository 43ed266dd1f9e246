// sandbox-bank conformance against a small fake of the run API (conformance.md section 1; the engine is tested
// on its own): the lines it prints, the reports it writes, and its exit codes, including the expected-failures
// file rules.
import fs from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { CASES, Verdict } from '../../src/bank/conformance/model';
import { parseExpectedFailures } from '../../src/cli/expected-failures';
import { ResultView } from '../../src/cli/commands/conformance';
import { deadUrl, runBin, runCli, tempFile } from './helpers';

const TOKEN = 'admin-token-of-the-conformance-fake';
const JUNIT = '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="conformance"></testsuites>\n';
const HTML = '<!doctype html><html><body>conformance report</body></html>\n';

function result(id: string, verdict: Verdict = 'PASSED', extra: Partial<ResultView> = {}): ResultView {
  const info = CASES.find((one) => one.id === id);
  if (!info) throw new Error(`no case ${id}`);
  const seen = verdict === 'FAILED' ? '200' : info.expected;
  return { id, group: info.group, clause: info.clause, verdict, expected: info.expected, seen, reason: verdict === 'SKIPPED' ? 'not applicable' : null, duration_ms: 3, exchanges: [{ direction: 'out', response: { status: 200 }, error: null }], ...extra };
}

interface FakeOptions {
  results?: ResultView[];
  /** How the run ends. */
  final?: 'finished' | 'aborted';
  /** Answer to POST instead of a run: [status, problem code]. */
  refuse?: [number, string];
  clientOrders?: { reference: string; sandbox_scenario: string; case: string; order: Record<string, unknown> }[];
}

interface Fake {
  url: string;
  /** Bodies of POST /sandbox/conformance-runs. */
  starts: Record<string, unknown>[];
  /** Bodies POSTed to /orders (the --push-via target). */
  pushed: unknown[];
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const problem = (status: number, code: string, detail: string) => ({ type: `urn:sandbox-bank:problem:${code}`, title: code, status, detail, code });

/**
 * The run API as the contract describes it: POST answers 202 without results; each GET shows one more finished
 * case until all are there, then the final state; the reports are served at the run's links.
 */
async function fakeRunApi(options: FakeOptions = {}): Promise<Fake> {
  const results = options.results ?? CASES.slice(0, 3).map((one) => result(one.id));
  const fake: Omit<Fake, 'url' | 'close'> = { starts: [], pushed: [], authorizations: [] };
  let polls = 0;
  const run = (state: string, shown: ResultView[]) => ({
    id: 'run-1',
    client_id: 'acme',
    state,
    started_at: '2026-11-22T10:00:00.000Z',
    finished_at: state === 'running' ? null : '2026-11-22T10:00:04.000Z',
    duration_ms: state === 'running' ? null : 4000,
    bank_version: '0.1.0',
    connector_url: 'http://localhost:9090',
    cases: results.map((one) => one.id),
    summary: { total: shown.length, passed: 0, failed: 0, warning: 0, skipped: 0 },
    client_orders: options.clientOrders ?? [],
    window_s: 5,
    error: state === 'aborted' ? 'the Bank stopped during the run' : null,
    links: { self: '/sandbox/conformance-runs/run-1', junit: '/sandbox/conformance-runs/run-1/junit.xml', report: '/sandbox/conformance-runs/run-1/report.html' },
    results: shown,
  });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && req.url === '/orders') {
        fake.pushed.push(JSON.parse(body));
        return send(res, 201, { accepted: true });
      }
      fake.authorizations.push(req.headers.authorization);
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, problem(401, 'auth_missing', 'send the admin token'), 'application/problem+json');
      if (req.method === 'POST' && req.url === '/sandbox/conformance-runs') {
        fake.starts.push(JSON.parse(body) as Record<string, unknown>);
        if (options.refuse) return send(res, options.refuse[0], problem(options.refuse[0], options.refuse[1], `refused: ${options.refuse[1]}`), 'application/problem+json');
        const started = run('running', []);
        delete (started as { results?: unknown }).results;
        return send(res, 202, started);
      }
      if (req.method === 'GET' && req.url === '/sandbox/conformance-runs/run-1') {
        polls += 1;
        const shown = results.slice(0, polls);
        return send(res, 200, run(shown.length < results.length ? 'running' : options.final ?? 'finished', shown));
      }
      if (req.url === '/sandbox/conformance-runs/run-1/junit.xml') return send(res, 200, JUNIT, 'application/xml');
      if (req.url === '/sandbox/conformance-runs/run-1/report.html') return send(res, 200, HTML, 'text/html');
      send(res, 404, problem(404, 'route_not_found', `no endpoint ${req.method} ${req.url}`), 'application/problem+json');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ...fake,
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  } as Fake;
}

let fake: Fake;
afterEach(async () => fake?.close());

const conformance = (extra: string[] = []) => runCli(['conformance', '--bank', fake.url, '--client', 'acme', ...extra], { ADMIN_TOKEN: TOKEN });

describe('sandbox-bank conformance: exit codes and what it prints', () => {
  it('all passed: exit 0, one line per case as it finishes, the reports written, a summary', async () => {
    fake = await fakeRunApi();
    const dir = path.dirname(tempFile('x', ''));
    const junit = path.join(dir, 'conformance.xml');
    const html = path.join(dir, 'conformance.html');
    const run = await conformance(['--junit', junit, '--html', html, '--cases', 'pull.signed_request_accepted,pull.page_respects_limit,pull.cursor_is_a_minimum', '--window-s', '5']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('PASSED  pull.signed_request_accepted\nPASSED  pull.page_respects_limit\nPASSED  pull.cursor_is_a_minimum\n');
    expect(run.stdout).toContain('3 cases: 3 passed, 0 failed, 0 warning, 0 skipped in 4.0 s');
    expect(fs.readFileSync(junit, 'utf8')).toBe(JUNIT);
    expect(fs.readFileSync(html, 'utf8')).toBe(HTML);
    expect(fake.starts).toEqual([{ client_id: 'acme', cases: ['pull.signed_request_accepted', 'pull.page_respects_limit', 'pull.cursor_is_a_minimum'], window_s: 5 }]);
    expect(new Set(fake.authorizations)).toEqual(new Set([`Bearer ${TOKEN}`]));
  });

  it('a failure: exit 1, the line says "<clause>: <expected> / <seen>"', async () => {
    fake = await fakeRunApi({ results: [result('unit.valid_callback_accepted'), result('unit.bad_signature_rejected', 'FAILED')] });
    const run = await conformance();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAILED  unit.bad_signature_rejected  profile 1: 4xx / 200\n');
    expect(run.stdout).toContain('unexpected failures: unit.bad_signature_rejected');
  });

  it('WARNING and SKIPPED cases do not fail the run: exit 0', async () => {
    fake = await fakeRunApi({ results: [result('unit.final_status_not_changed', 'WARNING', { reason: '200 to a change of a final status' }), result('batch.valid_batch_accepted', 'SKIPPED')] });
    const run = await conformance();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('WARNING unit.final_status_not_changed  200 to a change of a final status\n');
    expect(run.stdout).toContain('SKIPPED batch.valid_batch_accepted  (not applicable)\n');
  });

  it('an aborted run: exit 2, with the reason', async () => {
    fake = await fakeRunApi({ final: 'aborted' });
    const run = await conformance();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('run run-1 was aborted: the Bank stopped during the run');
  });

  it('a Connector that answered nothing while cases failed: exit 2 (down, not non-conformant)', async () => {
    const down = { exchanges: [{ direction: 'out', response: null, error: 'ECONNREFUSED' }] };
    fake = await fakeRunApi({ results: [result('pull.signed_request_accepted', 'FAILED', down), result('pull.unsigned_rejected', 'FAILED', down)] });
    const run = await conformance();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("the Connector answered none of the Bank's requests");
  });

  it.each([
    ['an unknown client', 404, 'not_found'],
    ['a client without a Connector URL', 400, 'body_invalid'],
    ['a run in progress', 409, 'run_in_progress'],
    ['a Bank error', 500, 'internal'],
  ])('%s: exit 2, the run could not start', async (_what, status, code) => {
    fake = await fakeRunApi({ refuse: [status as number, code as string] });
    const run = await conformance();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the run could not start: ${status} ${code}`);
  });

  it('no admin token: exit 2', async () => {
    fake = await fakeRunApi();
    const run = await runCli(['conformance', '--bank', fake.url, '--client', 'acme']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining('401 auth_missing')]);
  });

  it('an unreachable Bank: exit 2', async () => {
    const run = await runCli(['conformance', '--bank', await deadUrl(), '--client', 'acme']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining('cannot reach the Bank')]);
  });

  it.each([
    ['a bad flag', ['--frobnicate']],
    ['an unknown case in --cases', ['--cases', 'pull.no_such_case']],
    ['an unknown case in --skip', ['--skip', 'unit.valid_callback_accepted,unit.nope']],
    ['a bad --window-s', ['--window-s', 'long']],
  ])('%s: exit 3, and no run is started', async (_what, extra) => {
    fake = await fakeRunApi();
    const run = await conformance(extra);
    expect(run.code).toBe(3);
    expect(fake.starts).toEqual([]);
  });

  it('--push-via POSTs each client order to the Connector, after printing what it must push', async () => {
    const clientOrders = ['FAIL_ONCE', 'POLL_429'].map((scenario, index) => ({
      reference: `CONF-run-1-${index}`,
      sandbox_scenario: scenario,
      case: index === 0 ? 'client.retry_reuses_idempotency_key' : 'client.honours_retry_after',
      order: { reference: `CONF-run-1-${index}`, metadata: { sandbox_scenario: scenario } },
    }));
    fake = await fakeRunApi({ clientOrders });
    const run = await conformance(['--push-via', `${fake.url}/orders`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The Connector must push these 2 orders within 5 s');
    expect(run.stdout).toMatch(/CONF-run-1-0 +FAIL_ONCE +client\.retry_reuses_idempotency_key/);
    expect(fake.pushed).toEqual(clientOrders.map((one) => one.order));
  });
});

describe('the expected-failures file', () => {
  const file = (text: string) => tempFile('expected-failures.txt', text);
  const failing = () => fakeRunApi({ results: [result('pull.signed_request_accepted'), result('pull.page_respects_limit', 'FAILED'), result('batch.valid_batch_accepted', 'SKIPPED')] });

  it('a listed failing case does not count: exit 0, the line says so', async () => {
    fake = await failing();
    const run = await conformance(['--expected-failures', file('# known problems\n\npull.page_respects_limit   # pagination is work in progress\n')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('FAILED  pull.page_respects_limit  contract 4.2.1: never more orders than limit / 200  [expected failure: pagination is work in progress]');
    expect(run.stdout).toMatch(/expected failures \(.*\): pull\.page_respects_limit/);
  });

  it('a listed case that PASSED is reported and makes the exit 1 (the file cannot rot)', async () => {
    fake = await failing();
    const run = await conformance(['--expected-failures', file('pull.page_respects_limit\npull.signed_request_accepted\n')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('PASSED  pull.signed_request_accepted  [listed as an expected failure, but PASSED]');
    expect(run.stdout).toMatch(/pull\.signed_request_accepted is listed in .* but did not fail: remove it from the file/);
  });

  it('a listed case that WARNED makes the exit 1 too', async () => {
    fake = await fakeRunApi({ results: [result('unit.final_status_not_changed', 'WARNING')] });
    const run = await conformance(['--expected-failures', file('unit.final_status_not_changed\n')]);
    expect(run.code).toBe(1);
  });

  it('a listed SKIPPED case changes nothing', async () => {
    fake = await failing();
    const run = await conformance(['--expected-failures', file('pull.page_respects_limit\nbatch.valid_batch_accepted # unit-mode client\n')]);
    expect(run.code).toBe(0);
  });

  it('an id that names no case: exit 3, naming the line, before any run', async () => {
    fake = await failing();
    const run = await conformance(['--expected-failures', file('pull.page_respects_limit\npull.page_respect_limit\n')]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/expected-failures\.txt:2: "pull\.page_respect_limit" names no conformance case/);
    expect(fake.starts).toEqual([]);
  });

  it('a missing file: exit 3', async () => {
    fake = await failing();
    expect((await conformance(['--expected-failures', '/nonexistent/expected.txt'])).code).toBe(3);
  });

  it('parses ids, reasons, comments and blank lines; two ids on a line are refused', () => {
    const parsed = parseExpectedFailures('# header\n\n  unit.alg_none_rejected  #  our JOSE library\r\nbatch.bad_signature_rejected\n   # indented comment\n', 'f');
    expect([...parsed.entries()]).toEqual([
      ['unit.alg_none_rejected', 'our JOSE library'],
      ['batch.bad_signature_rejected', null],
    ]);
    expect(() => parseExpectedFailures('unit.alg_none_rejected unit.replayed_nonce_rejected\n', 'f')).toThrow('f:1: one case id a line');
  });
});

describe('the real bin', () => {
  it('runs a conformance run as a child process and exits 1 on a failure, 0 when it is expected', async () => {
    fake = await fakeRunApi({ results: [result('pull.unsigned_rejected', 'FAILED')] });
    const env = { ADMIN_TOKEN: TOKEN };
    const failed = await runBin(['conformance', '--bank', fake.url, '--client', 'acme'], env);
    expect([failed.code, failed.stdout]).toEqual([1, expect.stringContaining('FAILED  pull.unsigned_rejected  profile 1: 4xx / 200')]);
    await fake.close();
    fake = await fakeRunApi({ results: [result('pull.unsigned_rejected', 'FAILED')] });
    const expected = await runBin(['conformance', '--bank', fake.url, '--client', 'acme', '--expected-failures', tempFile('expected.txt', 'pull.unsigned_rejected\n')], env);
    expect(expected.code).toBe(0);
  });
});
