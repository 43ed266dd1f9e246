// The JUnit XML report of a conformance run (conformance.md section 2), valid against the Jenkins junit-10.xsd
// (vendored as test/fixtures/junit-10.xsd): one <testsuite> per group with results, one <testcase> per case,
// <failure> for FAILED, <skipped> for SKIPPED, WARNING as a passed case whose <system-out> starts with
// "WARNING: <why>", and every case's exchanges as plain text in its <system-out>.
//
// An aborted run still gives a valid file: the groups that finished cases, then a testsuite "conformance.run"
// holding one testcase "conformance.run" with an <error> (the run's error), whose text lists the planned cases that
// never ran. CI parsers count it as an error, so the build shows the run broke instead of looking short but green.
// Pure: the API and the CLI write what this returns.
import { CaseGroup, CaseResult, ConformanceRun, failureMessage, GROUPS, RecordedExchange } from './model';

// ---------------------------------------------------------------------------------------------------------------
// Text both reports share

/**
 * Characters that XML 1.0 cannot carry (C0 controls but tab, newline and carriage return; U+FFFE, U+FFFF; lone
 * surrogates) and the C1 controls (legal, but invisible and a parse error in HTML), shown as `\uXXXX`. A Connector's
 * body is untrusted bytes: removing them would hide what it sent, so they stay visible as escapes. `mark` wraps each
 * escape (the HTML report sets it apart from a literal backslash-u the Connector sent).
 */
export function showControlCharacters(text: string, mark: (escape: string) => string = (escape) => escape): string {
  return text.replace(INVISIBLE_OR_FORBIDDEN, (character) => mark(`\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

const INVISIBLE_OR_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** "Bank → Connector" or "Connector → Bank". */
export function directionText(direction: RecordedExchange['direction']): string {
  return direction === 'out' ? 'Bank → Connector' : 'Connector → Bank';
}

/** One line per header value, `Name: value`, in the order recorded. */
export function headerLines(headers: Record<string, string | string[]>): string[] {
  return Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((one) => `${name}: ${one}`));
}

/** A body as a report shows it: the text, "(empty)" when there is none, and a note when the recording cut it. */
export function bodyText(body: string, truncated: boolean): string {
  const shown = body === '' ? '(empty)' : body;
  return truncated ? `${shown}\n[… truncated: the body was longer than the recording keeps]` : shown;
}

/** What a WARNING says went the risky way: the reason, or what was seen when the engine gave none. */
export function warningText(result: CaseResult): string {
  return result.reason ?? result.seen;
}

// ---------------------------------------------------------------------------------------------------------------
// XML escaping

/** Text content: `&`, `<` and `>` as entities (`>` always, so `]]>` can never appear), forbidden characters visible. */
function xmlText(text: string): string {
  return showControlCharacters(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value in double quotes: as text, plus `"`, and tab/newline/CR as references so parsers keep them. */
function xmlAttribute(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

function element(name: string, attributes: Record<string, string>, content: string | null): string {
  const rendered = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${xmlAttribute(value)}"`)
    .join('');
  return content === null ? `<${name}${rendered}/>` : `<${name}${rendered}>${content}</${name}>`;
}

// ---------------------------------------------------------------------------------------------------------------
// Numbers and instants as junit-10.xsd and CI parsers take them

/** Seconds with 3 decimals ("1.250"): the SUREFIRE_TIME pattern allows no sign, exponent or comma. */
function seconds(milliseconds: number): string {
  return (Number.isFinite(milliseconds) && milliseconds > 0 ? milliseconds / 1000 : 0).toFixed(3);
}

/** RFC 3339 UTC without fractional seconds, the form Ant's and Jenkins' timestamp parsers read. */
function timestamp(instant: string): string {
  return instant.replace(/\.\d+(?=Z$|[+-]\d\d:\d\d$)/, '');
}

// ---------------------------------------------------------------------------------------------------------------
// Exchanges and cases as text

/** One exchange as readable text: the request as sent, what was signed, the answer or the error, and the replay. */
export function exchangeText(exchange: RecordedExchange, index: number, count: number): string {
  const lines = [`--- exchange ${index + 1}/${count}: ${exchange.label} (${directionText(exchange.direction)}) ---`, `at: ${exchange.at}`];
  if (exchange.misbehaviour !== null) lines.push(`MISBEHAVIOUR (applied on purpose): ${exchange.misbehaviour}`);
  lines.push(`> ${exchange.method} ${exchange.url}`, ...headerLines(exchange.request.headers).map((line) => `> ${line}`), '>');
  lines.push(bodyText(exchange.request.body, exchange.request.truncated));
  if (exchange.jwsHeader !== null) lines.push(`JWS header: ${JSON.stringify(exchange.jwsHeader)}`);
  if (exchange.signatureBase !== null) lines.push('signature base:', exchange.signatureBase);
  if (exchange.response === null) lines.push('< (no HTTP answer)');
  else {
    lines.push(`< ${exchange.response.status ?? '(no status)'}`, ...headerLines(exchange.response.headers).map((line) => `< ${line}`), '<');
    lines.push(bodyText(exchange.response.body, exchange.response.truncated));
  }
  if (exchange.error !== null) lines.push(`error: ${exchange.error}`);
  lines.push(`latency: ${exchange.latencyMs} ms`, `journal: ${exchange.journalId === null ? 'not journalled' : `#${exchange.journalId}`}`);
  lines.push('replay:', exchange.curl);
  return lines.join('\n');
}

/** A case's <system-out>: "WARNING: <why>" first for a WARNING, then what it checked and every exchange. */
function caseText(result: CaseResult): string {
  const lines: string[] = [];
  if (result.verdict === 'WARNING') lines.push(`WARNING: ${warningText(result)}`);
  lines.push(`${result.verdict} ${result.id} (${result.clause})`, `expected: ${result.expected}`, `seen: ${result.seen}`);
  if (result.reason !== null) lines.push(`reason: ${result.reason}`);
  lines.push(`started: ${result.startedAt}, took ${result.durationMs} ms`, '');
  if (result.exchanges.length === 0) lines.push('No exchanges: the case sent and observed nothing.');
  result.exchanges.forEach((exchange, index) => lines.push(exchangeText(exchange, index, result.exchanges.length), ''));
  return lines.join('\n');
}

/** The text of a <failure>: the three parts of the message on their own lines, then the reason if any. */
function failureDetails(result: CaseResult): string {
  const lines = [`clause: ${result.clause}`, `expected: ${result.expected}`, `seen: ${result.seen}`];
  if (result.reason !== null) lines.push(`reason: ${result.reason}`);
  return lines.join('\n');
}

function testcase(result: CaseResult): string {
  const children: string[] = [];
  if (result.verdict === 'FAILED') children.push(element('failure', { message: failureMessage(result) }, xmlText(failureDetails(result))));
  if (result.verdict === 'SKIPPED') children.push(element('skipped', { message: result.reason ?? result.seen }, null));
  children.push(element('system-out', {}, xmlText(caseText(result))));
  const attributes = { name: result.id, classname: `conformance.${result.group}`, time: seconds(result.durationMs) };
  return element('testcase', attributes, `\n    ${children.join('\n    ')}\n  `);
}

// ---------------------------------------------------------------------------------------------------------------
// Suites

/** What identifies the run, repeated in each suite because CI parsers show suites on their own. */
function runProperties(run: ConformanceRun): string {
  const properties: [string, string][] = [
    ['run', run.id],
    ['client', run.clientId],
    ['state', run.state],
    ['bank_version', run.bankVersion],
    ['connector_url', run.connectorUrl ?? '(none)'],
    ['started_at', run.startedAt],
    ['finished_at', run.finishedAt ?? '(not finished)'],
  ];
  return element('properties', {}, properties.map(([name, value]) => `\n    ${element('property', { name, value }, null)}`).join('') + '\n  ');
}

interface Suite {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  milliseconds: number;
}

function groupSuite(run: ConformanceRun, group: CaseGroup, results: CaseResult[]): Suite {
  const failures = results.filter((result) => result.verdict === 'FAILED').length;
  const skipped = results.filter((result) => result.verdict === 'SKIPPED').length;
  const milliseconds = results.reduce((sum, result) => sum + Math.max(0, result.durationMs), 0);
  const earliest = results.map((result) => result.startedAt).sort()[0];
  const attributes = {
    name: `conformance.${group}`,
    tests: String(results.length),
    failures: String(failures),
    errors: '0',
    skipped: String(skipped),
    time: seconds(milliseconds),
    timestamp: timestamp(earliest),
  };
  const content = `\n  ${[runProperties(run), ...results.map(testcase)].join('\n  ')}\n`;
  return { xml: element('testsuite', attributes, content), tests: results.length, failures, errors: 0, milliseconds };
}

function isAborted(run: ConformanceRun): boolean {
  return run.state === 'aborted' || run.error !== null;
}

/** The run's own error as a testcase: why it stopped, and which planned cases have no result. */
function abortedSuite(run: ConformanceRun): Suite {
  const finished = new Set(run.results.map((result) => result.id));
  const notRun = run.cases.filter((id) => !finished.has(id));
  const why = run.error ?? 'the run was aborted';
  const details = [
    `The run ${run.id} against ${run.connectorUrl ?? '(no Connector URL)'} stopped: ${why}`,
    `finished cases: ${run.results.length} of ${run.cases.length} planned`,
    notRun.length === 0 ? 'not run: none' : `not run:\n${notRun.map((id) => `  ${id}`).join('\n')}`,
  ].join('\n');
  const error = element('error', { message: why, type: 'conformance.aborted' }, xmlText(details));
  const testcaseXml = element('testcase', { name: 'conformance.run', classname: 'conformance.run', time: seconds(run.durationMs ?? 0) }, `\n    ${error}\n  `);
  const attributes = { name: 'conformance.run', tests: '1', failures: '0', errors: '1', skipped: '0', time: seconds(run.durationMs ?? 0), timestamp: timestamp(run.startedAt) };
  return { xml: element('testsuite', attributes, `\n  ${runProperties(run)}\n  ${testcaseXml}\n`), tests: 1, failures: 0, errors: 1, milliseconds: 0 };
}

function resultsOf(run: ConformanceRun, group: CaseGroup): CaseResult[] {
  return run.results.filter((result) => result.group === group);
}

export function junitXml(run: ConformanceRun): string {
  const suites = GROUPS.map((group) => [group, resultsOf(run, group)] as const)
    .filter(([, results]) => results.length > 0)
    .map(([group, results]) => groupSuite(run, group, results));
  if (isAborted(run)) suites.push(abortedSuite(run));
  const total = (key: 'tests' | 'failures' | 'errors' | 'milliseconds') => suites.reduce((sum, suite) => sum + suite[key], 0);
  const attributes = {
    name: `conformance run ${run.id}`,
    tests: String(total('tests')),
    failures: String(total('failures')),
    errors: String(total('errors')),
    time: seconds(run.durationMs ?? total('milliseconds')),
  };
  const content = suites.length === 0 ? null : `\n${suites.map((suite) => suite.xml).join('\n')}\n`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element('testsuites', attributes, content)}\n`;
}
