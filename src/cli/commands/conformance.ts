// sandbox-bank conformance: runs the Bank's conformance suite against a client's Connector (conformance.md
// section 1) through POST /sandbox/conformance-runs, prints one line per case as it finishes, writes the JUnit
// and HTML reports, and exits 0 (all passed, or failed as expected), 1 (an unexpected failure, or an expected
// failure that passed), 2 (the run could not start or finish) or 3 (usage).
import fs from 'node:fs';
import { caseInfo, WINDOW_S } from '../../bank/conformance/model';
import type { Verdict } from '../../bank/conformance/model';
import { BANK_OPTIONS, Parsed } from '../args';
import { ApiAnswer, BankApi, bankEndpoint, unexpectedAnswer, problemText } from '../bank-api';
import { command } from '../command';
import { ExpectedFailures, readExpectedFailures } from '../expected-failures';
import { httpCall, Unreachable } from '../http';
import { CliError, CliIo, EXIT, unavailable, usageError } from '../io';

/** A case result as GET /sandbox/conformance-runs/{id} shows it. */
export interface ResultView {
  id: string;
  group?: string;
  clause: string;
  verdict: Verdict;
  expected: string;
  seen: string;
  reason: string | null;
  duration_ms?: number;
  exchanges?: { direction?: string; response?: { status?: number | null } | null; error?: string | null }[];
}

export interface ClientOrderView {
  reference: string;
  sandbox_scenario: string;
  case: string;
  order: Record<string, unknown>;
}

export interface RunView {
  id: string;
  client_id: string;
  state: 'running' | 'finished' | 'aborted';
  connector_url?: string | null;
  bank_version?: string;
  duration_ms?: number | null;
  cases: string[];
  results: ResultView[];
  client_orders?: ClientOrderView[];
  window_s?: number;
  error?: string | null;
  links?: { self?: string; junit?: string; report?: string };
}

const POLL_INTERVAL_MS = 300;
/** Consecutive failed polls before the run is given up as unreachable. */
const POLL_ATTEMPTS = 5;

/** `FAILED  unit.bad_signature_rejected  profile 1: 4xx / 200`, with the expected-failures note where listed. */
export function resultLine(result: ResultView, expected: ExpectedFailures): string {
  const head = `${result.verdict.padEnd(8)}${result.id}`;
  const listed = expected.has(result.id);
  const why = expected.get(result.id);
  switch (result.verdict) {
    case 'FAILED':
      return `${head}  ${result.clause}: ${result.expected} / ${result.seen}${listed ? `  [expected failure${why ? `: ${why}` : ''}]` : ''}`;
    case 'SKIPPED':
      return `${head}${result.reason ? `  (${result.reason})` : ''}`;
    case 'WARNING':
      return `${head}${result.reason ? `  ${result.reason}` : ''}${listed ? '  [listed as an expected failure, but WARNED]' : ''}`;
    default:
      return `${head}${listed ? '  [listed as an expected failure, but PASSED]' : ''}`;
  }
}

export interface RunJudgement {
  exit: number;
  unexpectedFailures: string[];
  expectedFailures: string[];
  /** Listed in the expected-failures file, yet PASSED or WARNED: the file is stale. */
  stale: string[];
  /** No request of the Bank to the Connector got an HTTP answer, and cases failed for it. */
  connectorDown: boolean;
}

/** No outgoing exchange of the whole run got an answer: the Connector is down, not non-conformant. */
function connectorNeverAnswered(results: readonly ResultView[]): boolean {
  const outgoing = results.flatMap((result) => result.exchanges ?? []).filter((exchange) => exchange.direction !== 'in');
  const failures = results.some((result) => result.verdict === 'FAILED');
  return failures && outgoing.length > 0 && outgoing.every((exchange) => exchange.response == null || exchange.response.status == null);
}

/** The exit code of a run, by conformance.md section 1. */
export function judgeRun(run: RunView, expected: ExpectedFailures): RunJudgement {
  const failed = run.results.filter((result) => result.verdict === 'FAILED').map((result) => result.id);
  const judgement: RunJudgement = {
    exit: EXIT.ok,
    unexpectedFailures: failed.filter((id) => !expected.has(id)),
    expectedFailures: failed.filter((id) => expected.has(id)),
    stale: run.results.filter((result) => (result.verdict === 'PASSED' || result.verdict === 'WARNING') && expected.has(result.id)).map((result) => result.id),
    connectorDown: connectorNeverAnswered(run.results),
  };
  if (run.state !== 'finished' || judgement.connectorDown) judgement.exit = EXIT.unavailable;
  else if (judgement.unexpectedFailures.length > 0 || judgement.stale.length > 0) judgement.exit = EXIT.failed;
  return judgement;
}

function summaryLine(run: RunView): string {
  const count = (verdict: Verdict) => run.results.filter((result) => result.verdict === verdict).length;
  const seconds = typeof run.duration_ms === 'number' ? ` in ${(run.duration_ms / 1000).toFixed(1)} s` : '';
  return `${run.results.length} cases: ${count('PASSED')} passed, ${count('FAILED')} failed, ${count('WARNING')} warning, ${count('SKIPPED')} skipped${seconds}`;
}

/** --cases and --skip name known cases, or the command stops before the Bank is asked. */
function caseList(parsed: Parsed, name: string): string[] | undefined {
  const ids = parsed.csv(name);
  const unknown = ids?.find((id) => !caseInfo(id));
  if (unknown) throw usageError(`--${name}: "${unknown}" names no conformance case (see docs/conformance.md for the ids)`);
  return ids;
}

/** A run as answered; the 202 of POST carries no results yet. */
function runOf(answer: ApiAnswer): RunView {
  const run = answer.json as RunView;
  if (typeof run.id !== 'string' || typeof run.state !== 'string') throw unexpectedAnswer(answer, 'a conformance run with "id" and "state"');
  return { ...run, cases: run.cases ?? [], results: run.results ?? [] };
}

async function startRun(api: BankApi, body: Record<string, unknown>): Promise<RunView> {
  const answer = await api.call('POST', '/sandbox/conformance-runs', { body });
  if (answer.status >= 200 && answer.status < 300) return runOf(answer);
  // Unknown client (404), a client without a Connector URL (400), a run in progress (409), no admin token,
  // a 5xx: the run could not start.
  throw unavailable(`the run could not start: ${problemText(answer)}`);
}

function printPlan(io: CliIo, run: RunView): void {
  io.stdout(`conformance run ${run.id} for ${run.client_id}${run.connector_url ? ` against ${run.connector_url}` : ''}: ${run.cases.length} cases\n`);
  const orders = run.client_orders ?? [];
  if (orders.length === 0) return;
  io.stdout(`The Connector must push these ${orders.length} orders within ${run.window_s ?? '?'} s, and reverse-poll them as any order:\n`);
  const width = Math.max(...orders.map((order) => order.reference.length));
  const scenarioWidth = Math.max(...orders.map((order) => order.sandbox_scenario.length));
  for (const order of orders) io.stdout(`  ${order.reference.padEnd(width)}  ${order.sandbox_scenario.padEnd(scenarioWidth)}  ${order.case}\n`);
}

/** --push-via: hands each order to the Connector's own push endpoint (the reference Connector's POST /orders). */
async function pushOrders(io: CliIo, url: URL, orders: readonly ClientOrderView[]): Promise<void> {
  for (const order of orders) {
    try {
      const answer = await httpCall({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(order.order) });
      const ok = answer.status >= 200 && answer.status < 300;
      (ok ? io.stdout : io.stderr)(`${ok ? 'pushed' : 'could not push'} ${order.reference} via ${url.href}: HTTP ${answer.status}\n`);
    } catch (error) {
      if (!(error instanceof Unreachable)) throw error;
      io.stderr(`could not push ${order.reference} via ${url.href}: ${error.message}\n`);
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the run until it is over, printing each case once, as it finishes. */
async function followRun(io: CliIo, api: BankApi, started: RunView, expected: ExpectedFailures, deadline: number): Promise<RunView> {
  const printed = new Set<string>();
  const printNew = (run: RunView) => {
    for (const result of run.results) {
      if (printed.has(result.id)) continue;
      printed.add(result.id);
      io.stdout(`${resultLine(result, expected)}\n`);
    }
  };
  let run = started;
  let failures = 0;
  printNew(run);
  while (run.state === 'running') {
    if (Date.now() > deadline) throw unavailable(`run ${run.id} did not finish in time (--timeout-s); it is still running at the Bank`);
    await sleep(POLL_INTERVAL_MS);
    let answer: ApiAnswer;
    try {
      answer = await api.call('GET', `/sandbox/conformance-runs/${encodeURIComponent(run.id)}`);
    } catch (error) {
      if (!(error instanceof CliError) || (failures += 1) >= POLL_ATTEMPTS) throw error;
      continue;
    }
    if (answer.status !== 200) {
      if ((failures += 1) >= POLL_ATTEMPTS) throw unavailable(`cannot follow run ${run.id}: ${problemText(answer)}`);
      continue;
    }
    failures = 0;
    run = runOf(answer);
    printNew(run);
  }
  return run;
}

function reportUrl(api: BankApi, run: RunView, link: string | undefined, file: string): URL {
  if (link && /^https?:\/\//i.test(link)) return new URL(link);
  return bankEndpoint(api.base, link ?? `/sandbox/conformance-runs/${encodeURIComponent(run.id)}/${file}`);
}

async function writeReport(io: CliIo, api: BankApi, url: URL, target: string): Promise<void> {
  const answer = await api.fetch(url);
  if (answer.status !== 200) throw unavailable(`cannot fetch the report ${url.href}: ${problemText(answer)}`);
  try {
    fs.writeFileSync(target, answer.body);
  } catch (error) {
    throw usageError(`cannot write ${target}: ${(error as Error).message}`);
  }
  io.stdout(`wrote ${target}\n`);
}

/** The reports asked for; after an aborted run whatever the Bank can give, a missing one only noted. */
async function writeReports(io: CliIo, api: BankApi, run: RunView, files: { junit?: string; html?: string }, bestEffort: boolean): Promise<void> {
  const wanted: [string | undefined, string | undefined, string][] = [
    [files.junit, run.links?.junit, 'junit.xml'],
    [files.html, run.links?.report, 'report.html'],
  ];
  for (const [target, link, name] of wanted) {
    if (target === undefined) continue;
    try {
      await writeReport(io, api, reportUrl(api, run, link, name), target);
    } catch (error) {
      if (!bestEffort || !(error instanceof CliError)) throw error;
      io.stderr(`${error.message}\n`);
    }
  }
}

function printOutcome(io: CliIo, run: RunView, judgement: RunJudgement, expectedFile: string | undefined): void {
  io.stdout(`${summaryLine(run)}\n`);
  if (judgement.expectedFailures.length) io.stdout(`expected failures (${expectedFile}): ${judgement.expectedFailures.join(', ')}\n`);
  for (const id of judgement.stale) io.stdout(`${id} is listed in ${expectedFile} but did not fail: remove it from the file\n`);
  if (judgement.unexpectedFailures.length) io.stdout(`unexpected failures: ${judgement.unexpectedFailures.join(', ')}\n`);
  if (judgement.connectorDown) io.stderr('the Connector answered none of the Bank\'s requests: is it running, at the URL the client registered?\n');
}

export const conformanceCommand = command(
  {
    name: 'conformance',
    summary: "Judge a client's Connector case by case (conformance.md): one line per case, JUnit and HTML reports.",
    details: [
      'Starts a run on a running Bank, lists the orders the Connector must push during the window, prints each case',
      'as it finishes (PASSED, FAILED with "<clause>: <expected> / <seen>", WARNING, SKIPPED), writes the reports.',
      'Exit 0: every case PASSED, WARNING or SKIPPED, or FAILED and listed in --expected-failures; 1: an unexpected',
      'FAILED case, or a listed case that PASSED or WARNED (the file cannot rot); 2: the run could not start or',
      'finish (Bank unreachable, unknown client, no Connector URL, a run in progress, aborted, Connector down);',
      '3: usage (a bad flag, an unknown case id in --cases, --skip or the expected-failures file).',
      'Expected-failures file: one case id a line, optionally "# reason"; blank lines and # lines are ignored.',
    ],
    options: {
      client: { type: 'string', value: 'id', help: 'the client whose Connector is judged (required)' },
      cases: { type: 'string', value: 'a,b', help: 'only these case ids' },
      skip: { type: 'string', value: 'a,b', help: 'not these case ids' },
      'expected-failures': { type: 'string', value: 'file', help: 'case ids known to fail, one a line (optionally "# reason")' },
      junit: { type: 'string', value: 'file', help: 'write the JUnit XML report here' },
      html: { type: 'string', value: 'file', help: 'write the single-file HTML report here' },
      'window-s': { type: 'string', value: 'seconds', help: `how long the run watches the Connector's own requests (client.* cases), ${WINDOW_S.min} to ${WINDOW_S.max}; default 15` },
      'push-via': { type: 'string', value: 'url', help: "POST each client order to this URL (the reference Connector's POST /orders)" },
      'timeout-s': { type: 'string', value: 'seconds', help: 'give up following the run after this long (default 900): exit 2' },
      ...BANK_OPTIONS,
    },
    examples: [
      'sandbox-bank conformance --bank http://localhost:8080 --client acme --junit conformance.xml --html conformance.html',
      'sandbox-bank conformance --client acme --skip transport.client_certificate_required --expected-failures known-failures.txt',
      'sandbox-bank conformance --client demo-connector --push-via http://localhost:9090/orders',
    ],
  },
  async (parsed, io) => {
    const clientId = parsed.required('client');
    const cases = caseList(parsed, 'cases');
    const skip = caseList(parsed, 'skip');
    // The Bank's own bounds, so that a value it would refuse is a usage error (exit 3) before any request.
    const windowS = parsed.integer('window-s', WINDOW_S.min, WINDOW_S.max);
    const timeoutS = parsed.integer('timeout-s', 1, 86_400) ?? 900;
    const expectedFile = parsed.string('expected-failures');
    const expected: ExpectedFailures = expectedFile === undefined ? new Map() : readExpectedFailures(expectedFile);
    const pushVia = parsed.string('push-via');
    let pushUrl: URL | undefined;
    if (pushVia !== undefined) {
      try {
        pushUrl = new URL(pushVia);
      } catch {
        throw usageError(`--push-via must be a URL, got "${pushVia}"`);
      }
    }
    const api = BankApi.of(parsed, io);
    const deadline = Date.now() + timeoutS * 1000;

    const started = await startRun(api, { client_id: clientId, ...(cases ? { cases } : {}), ...(skip ? { skip } : {}), ...(windowS ? { window_s: windowS } : {}) });
    printPlan(io, started);
    if (pushUrl && started.client_orders?.length) await pushOrders(io, pushUrl, started.client_orders);
    const run = await followRun(io, api, started, expected, deadline);

    const aborted = run.state === 'aborted';
    if (aborted) io.stderr(`run ${run.id} was aborted: ${run.error ?? 'no reason given'}\n`);
    await writeReports(io, api, run, { junit: parsed.string('junit'), html: parsed.string('html') }, aborted);
    const judgement = judgeRun(run, expected);
    printOutcome(io, run, judgement, expectedFile);
    return judgement.exit;
  },
);
