// The HTML report of a conformance run (conformance.md section 2): one self-contained file, readable offline and
// attachable to a CI run. A summary, a table of contents, then every case by group with its exchanges as a timeline.
//
// Self-contained means no network reference at all: inline CSS only, no script, no font, no image; a
// Content-Security-Policy of default-src 'none' makes a browser refuse any fetch even if something slipped through.
// Everything the run recorded is escaped, because a Connector's answer is untrusted: a body holding <script> shows
// as text. Failed cases are open; the rest are collapsed <details>, so a long report stays navigable without script.
// Pure: the API and the CLI write what this returns.
import { bodyText, directionText, headerLines, showControlCharacters, warningText } from './junit';
import { CaseGroup, CaseResult, ConformanceRun, GROUPS, RecordedExchange, summarise, Verdict } from './model';

// ---------------------------------------------------------------------------------------------------------------
// Escaping

/** Text and attribute values: the five special characters as entities, control characters as marked `\uXXXX`. */
function html(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return showControlCharacters(escaped, (escape) => `<span class="ctl" title="control character">${escape}</span>`);
}

/** An attribute value or the <title>: like text, but without markup (a control character stays a plain `\uXXXX`). */
function attribute(text: string): string {
  return showControlCharacters(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function caseAnchor(id: string): string {
  return `case-${id}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Small pieces

function verdictBadge(verdict: Verdict | 'NOT RUN'): string {
  const kind = verdict === 'NOT RUN' ? 'notrun' : verdict.toLowerCase();
  return `<span class="verdict v-${kind}">${verdict}</span>`;
}

/** "850 ms", "12.3 s" or "2 min 5 s". */
function duration(milliseconds: number | null): string {
  if (milliseconds === null || !Number.isFinite(milliseconds)) return '(not finished)';
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(1)} s`;
  const totalSeconds = Math.round(milliseconds / 1000);
  return `${Math.floor(totalSeconds / 60)} min ${totalSeconds % 60} s`;
}

/** A definition list of label/value pairs; values are already HTML. */
function facts(pairs: [string, string][], className = 'facts'): string {
  return `<dl class="${className}">${pairs.map(([label, value]) => `<dt>${html(label)}</dt><dd>${value}</dd>`).join('')}</dl>`;
}

function pre(text: string, className?: string): string {
  return `<pre${className === undefined ? '' : ` class="${className}"`}>${html(text)}</pre>`;
}

function headersBlock(headers: Record<string, string | string[]>): string {
  const lines = headerLines(headers);
  return lines.length === 0 ? '<p class="none">(no headers)</p>' : pre(lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------------------------
// Summary and contents

function countsTable(run: ConformanceRun, notRun: string[]): string {
  const summary = summarise(run.results);
  const rows: [Verdict | 'NOT RUN', number][] = [
    ['PASSED', summary.passed],
    ['FAILED', summary.failed],
    ['WARNING', summary.warning],
    ['SKIPPED', summary.skipped],
  ];
  if (notRun.length > 0) rows.push(['NOT RUN', notRun.length]);
  const body = rows.map(([verdict, count]) => `<tr><th scope="row">${verdictBadge(verdict)}</th><td>${count}</td></tr>`).join('');
  return `<table class="counts"><caption>Cases by verdict</caption><thead><tr><th scope="col">Verdict</th><th scope="col">Cases</th></tr></thead><tbody>${body}</tbody><tfoot><tr><th scope="row">Total</th><td>${summary.total + notRun.length}</td></tr></tfoot></table>`;
}

function stateNote(run: ConformanceRun): string {
  if (run.state === 'aborted' || run.error !== null) {
    return `<p class="aborted"><strong>Run aborted:</strong> ${html(run.error ?? 'the run stopped before its end')}. The cases below are those that finished; the ones never run are listed at the end.</p>`;
  }
  if (run.state === 'running') return '<p class="note">This run is still running: the report shows the cases finished so far.</p>';
  return '';
}

/** A link to a case's section, or just its id when the page has no section for it (not planned in this run). */
function caseLink(run: ConformanceRun, id: string): string {
  const shown = run.results.some((result) => result.id === id) || run.cases.includes(id);
  return shown ? `<a href="#${attribute(caseAnchor(id))}">${html(id)}</a>` : html(id);
}

function clientOrders(run: ConformanceRun): string {
  if (run.clientOrders.length === 0) return '';
  const rows = run.clientOrders.map((order) => `<tr><td><code>${html(order.reference)}</code></td><td>${html(order.sandbox_scenario)}</td><td>${caseLink(run, order.case)}</td></tr>`).join('');
  return `<details class="orders"><summary>Orders the Connector was asked to push (${run.clientOrders.length}, within ${run.windowS} s)</summary><div class="scroll"><table><thead><tr><th scope="col">Reference</th><th scope="col">Scenario</th><th scope="col">Case</th></tr></thead><tbody>${rows}</tbody></table></div></details>`;
}

function summarySection(run: ConformanceRun, notRun: string[]): string {
  const runFacts: [string, string][] = [
    ['Run', `<code>${html(run.id)}</code>`],
    ['State', html(run.state)],
    ['Client', `<code>${html(run.clientId)}</code>`],
    ['Connector URL', run.connectorUrl === null ? '(none)' : `<code>${html(run.connectorUrl)}</code>`],
    ['Bank version', html(run.bankVersion)],
    ['Started', `<time>${html(run.startedAt)}</time>`],
    ['Finished', run.finishedAt === null ? '(not finished)' : `<time>${html(run.finishedAt)}</time>`],
    ['Duration', html(duration(run.durationMs))],
  ];
  return `<section aria-labelledby="summary"><h2 id="summary">Summary</h2>${stateNote(run)}<div class="summary">${countsTable(run, notRun)}${facts(runFacts)}</div>${clientOrders(run)}</section>`;
}

function contents(run: ConformanceRun, notRun: string[]): string {
  const groupItems = groupsWithResults(run).map(([group, results]) => {
    const items = results.map((result) => `<li><a href="#${attribute(caseAnchor(result.id))}">${html(result.id)}</a> ${verdictBadge(result.verdict)}</li>`).join('');
    return `<li><a href="#${attribute(`group-${group}`)}">${html(group)}</a><ul>${items}</ul></li>`;
  });
  if (notRun.length > 0) {
    const items = notRun.map((id) => `<li><a href="#${attribute(caseAnchor(id))}">${html(id)}</a> ${verdictBadge('NOT RUN')}</li>`).join('');
    groupItems.push(`<li><a href="#not-run">not run</a><ul>${items}</ul></li>`);
  }
  return `<nav aria-labelledby="contents"><h2 id="contents">Contents</h2><ul class="toc">${groupItems.join('')}</ul></nav>`;
}

// ---------------------------------------------------------------------------------------------------------------
// Exchanges

function requestParts(exchange: RecordedExchange): [string, string][] {
  const parts: [string, string][] = [
    ['Request', pre(`${exchange.method} ${exchange.url}`, 'request-line')],
    ['Request headers', headersBlock(exchange.request.headers)],
    ['Request body', pre(bodyText(exchange.request.body, exchange.request.truncated))],
  ];
  if (exchange.jwsHeader !== null) parts.push(['JWS header (decoded)', pre(JSON.stringify(exchange.jwsHeader, null, 2))]);
  if (exchange.signatureBase !== null) parts.push(['Signature base', pre(exchange.signatureBase)]);
  return parts;
}

function responseParts(exchange: RecordedExchange): [string, string][] {
  const parts: [string, string][] = [];
  if (exchange.response === null) parts.push(['Response', '<p class="none">No HTTP answer.</p>']);
  else {
    parts.push(['Response status', `<strong class="status">${exchange.response.status ?? '(no status)'}</strong>`]);
    parts.push(['Response headers', headersBlock(exchange.response.headers)]);
    parts.push(['Response body', pre(bodyText(exchange.response.body, exchange.response.truncated))]);
  }
  if (exchange.error !== null) parts.push(['Error', `<p class="error">${html(exchange.error)}</p>`]);
  return parts;
}

function exchangeItem(exchange: RecordedExchange, index: number): string {
  const journal = exchange.journalId === null ? 'not journalled' : `journal #${exchange.journalId}`;
  const meta = `<p class="meta"><span class="direction dir-${exchange.direction}">${html(directionText(exchange.direction))}</span> · <time>${html(exchange.at)}</time> · ${html(duration(exchange.latencyMs))} · ${html(journal)}</p>`;
  const misbehaviour = exchange.misbehaviour === null ? '' : `<p class="misbehaviour"><strong>Misbehaviour applied on purpose:</strong> ${html(exchange.misbehaviour)}</p>`;
  const parts = [...requestParts(exchange), ...responseParts(exchange), ['Replay with curl', pre(exchange.curl, 'curl')] as [string, string]];
  return `<li class="exchange${exchange.misbehaviour === null ? '' : ' misbehaving'}"><h5>${index + 1}. ${html(exchange.label)}</h5>${meta}${misbehaviour}${facts(parts, 'parts')}</li>`;
}

function timeline(exchanges: RecordedExchange[]): string {
  if (exchanges.length === 0) return '<p class="none">No exchanges: this case sent and observed nothing.</p>';
  return `<h4>Exchanges (${exchanges.length})</h4><ol class="timeline">${exchanges.map(exchangeItem).join('')}</ol>`;
}

// ---------------------------------------------------------------------------------------------------------------
// Cases and groups

function caseSection(result: CaseResult): string {
  const pairs: [string, string][] = [
    ['Verdict', verdictBadge(result.verdict)],
    ['Clause', html(result.clause)],
    ['Expected', html(result.expected)],
    ['Seen', html(result.seen)],
  ];
  if (result.verdict === 'WARNING') pairs.push(['Warning', html(warningText(result))]);
  else if (result.reason !== null) pairs.push([result.verdict === 'SKIPPED' ? 'Skipped because' : 'Reason', html(result.reason)]);
  pairs.push(['Started', `<time>${html(result.startedAt)}</time>`], ['Duration', html(duration(result.durationMs))]);
  const open = result.verdict === 'FAILED' ? ' open' : '';
  const heading = `<h3>${verdictBadge(result.verdict)} <code>${html(result.id)}</code></h3>`;
  return `<details class="case c-${result.verdict.toLowerCase()}" id="${attribute(caseAnchor(result.id))}"${open}><summary>${heading}</summary>${facts(pairs)}${timeline(result.exchanges)}</details>`;
}

function groupsWithResults(run: ConformanceRun): [CaseGroup, CaseResult[]][] {
  return GROUPS.map((group) => [group, run.results.filter((result) => result.group === group)] as [CaseGroup, CaseResult[]]).filter(([, results]) => results.length > 0);
}

function groupSection(group: CaseGroup, results: CaseResult[]): string {
  const summary = summarise(results);
  const counts = `${summary.total} ${summary.total === 1 ? 'case' : 'cases'}: ${summary.passed} passed, ${summary.failed} failed, ${summary.warning} warning, ${summary.skipped} skipped`;
  return `<section class="group" aria-labelledby="${attribute(`group-${group}`)}"><h2 id="${attribute(`group-${group}`)}">${html(group)} <small>(${html(counts)})</small></h2>${results.map(caseSection).join('')}</section>`;
}

function notRunSection(notRun: string[]): string {
  if (notRun.length === 0) return '';
  const items = notRun.map((id) => `<li id="${attribute(caseAnchor(id))}">${verdictBadge('NOT RUN')} <code>${html(id)}</code></li>`).join('');
  return `<section aria-labelledby="not-run"><h2 id="not-run">Not run</h2><p>The run stopped before these planned cases.</p><ul class="notrun">${items}</ul></section>`;
}

function plannedButNotRun(run: ConformanceRun): string[] {
  const finished = new Set(run.results.map((result) => result.id));
  return run.cases.filter((id) => !finished.has(id));
}

// ---------------------------------------------------------------------------------------------------------------
// The page

// Colours meet WCAG AA (4.5:1) for their text; every verdict also says its name, so colour is never the only cue.
const STYLE = `
:root{color-scheme:light;--fg:#1a1a1a;--muted:#4d4d4d;--line:#c8c8c8;--code:#f3f4f6}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff}
h1{font-size:1.6rem;margin:.2rem 0 1rem}h2{font-size:1.3rem;border-bottom:2px solid var(--line);padding-bottom:.2rem;margin-top:2rem}
h3{display:inline;font-size:1rem;font-weight:600}h4{font-size:1rem;margin:1rem 0 .5rem}h5{font-size:1rem;margin:0 0 .25rem}
small{font-weight:400;color:var(--muted)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
code{overflow-wrap:anywhere}
pre{margin:0;padding:.5rem;background:var(--code);border:1px solid var(--line);border-radius:4px;font-size:.85rem;line-height:1.4;white-space:pre-wrap;overflow-wrap:anywhere}
a{color:#0b57d0}a:focus,summary:focus{outline:3px solid #0b57d0;outline-offset:2px}
.verdict{display:inline-block;min-width:5.5em;text-align:center;padding:0 .4em;border-radius:4px;font-weight:700;font-size:.85rem;letter-spacing:.02em}
.v-passed{background:#1b5e20;color:#fff}.v-failed{background:#b71c1c;color:#fff}.v-warning{background:#ffd54f;color:#1a1a1a}
.v-skipped{background:#546e7a;color:#fff}.v-notrun{background:#fff;color:#1a1a1a;border:1px dashed #1a1a1a}
.summary{display:flex;flex-wrap:wrap;gap:1rem 2rem;align-items:flex-start}
table{border-collapse:collapse}th,td{text-align:left;padding:.2rem .6rem;border-bottom:1px solid var(--line)}caption{text-align:left;font-weight:600}
.counts td{text-align:right}.scroll{overflow-x:auto}
dl.facts,dl.parts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.3rem 1rem;margin:.5rem 0}
dt{font-weight:600}dd{margin:0;min-width:0;overflow-wrap:anywhere}
.toc{padding-left:1.2rem}.toc ul{padding-left:1rem}.toc li{margin:.15rem 0;overflow-wrap:anywhere}
details.case{border:1px solid var(--line);border-left:6px solid var(--line);border-radius:4px;margin:.6rem 0;padding:.4rem .8rem}
details.case>summary{cursor:pointer;padding:.2rem 0}
.c-passed{border-left-color:#1b5e20!important}.c-failed{border-left-color:#b71c1c!important}.c-warning{border-left-color:#c79100!important}.c-skipped{border-left-color:#546e7a!important}
.orders{margin-top:1rem}
ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
li.exchange{margin:0 0 1rem;padding:.2rem 0 .2rem .9rem}
li.exchange.misbehaving{border-left:3px solid #b26a00;margin-left:-3px}
.meta{margin:0 0 .4rem;color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}
.direction{font-weight:600;color:var(--fg)}
.misbehaviour{margin:.3rem 0;padding:.3rem .6rem;background:#fff3cd;color:#4a3000;border:1px solid #b26a00;border-radius:4px}
.error{margin:0;color:#8b0000;font-weight:600;overflow-wrap:anywhere}
.aborted{padding:.5rem .8rem;background:#fdecea;color:#6b0000;border:1px solid #b71c1c;border-radius:4px}
.note{padding:.5rem .8rem;background:#eef3fd;border:1px solid #0b57d0;border-radius:4px}
.none{margin:0;color:var(--muted);font-style:italic}
.ctl{background:#ffe0e0;color:#8b0000;border-radius:2px}
.notrun{list-style:none;padding:0}.notrun li{margin:.3rem 0}
@media (max-width:40rem){body{padding:.6rem}dl.facts,dl.parts{grid-template-columns:minmax(0,1fr)}dt{margin-top:.3rem}}
`;

// No network, no script, no plugin: what a report is allowed to do in a browser.
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

export function htmlReport(run: ConformanceRun): string {
  const notRun = plannedButNotRun(run);
  const summary = summarise(run.results);
  const title = `Conformance run ${run.id} (${run.clientId}): ${summary.failed} failed, ${summary.warning} warning, ${summary.passed} passed, ${summary.skipped} skipped`;
  const groups = groupsWithResults(run).map(([group, results]) => groupSection(group, results)).join('');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    `<title>${attribute(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<header><h1>Connector conformance report</h1></header>`,
    '<main>',
    summarySection(run, notRun),
    contents(run, notRun),
    groups,
    notRunSection(notRun),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
