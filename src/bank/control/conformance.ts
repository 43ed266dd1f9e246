// Control plane: conformance runs (conformance.md section 1). POST starts a run and answers 202 at once with the
// orders the Connector should push during the window; GET follows it case by case; the reports are rendered from
// the stored run on demand (JUnit XML, one self-contained HTML file).
import type { Response } from 'express';
import { ProblemError } from '../../wire/problems';
import { ConformanceRuns, StartRequest } from '../application/conformance-runs';
import { htmlReport } from '../conformance/html-report';
import { junitXml } from '../conformance/junit';
import { CaseResult, ConformanceRun, RecordedExchange, summarise } from '../conformance/model';
import { ControlArea } from './index';
import { controlBody, decodeCursor, LIST_DEFAULT_LIMIT, LIST_QUERY, listPage, parseQuery, queryText, requestLog } from './http';

const BASE = '/sandbox/conformance-runs';

function linksOf(run: ConformanceRun) {
  const self = `${BASE}/${run.id}`;
  return { self, junit: `${self}/junit.xml`, report: `${self}/report.html` };
}

function exchangeView(exchange: RecordedExchange) {
  return {
    label: exchange.label,
    direction: exchange.direction,
    at: exchange.at,
    method: exchange.method,
    url: exchange.url,
    misbehaviour: exchange.misbehaviour,
    request: exchange.request,
    jws_header: exchange.jwsHeader,
    signature_base: exchange.signatureBase,
    response: exchange.response,
    error: exchange.error,
    latency_ms: exchange.latencyMs,
    curl: exchange.curl,
    journal_id: exchange.journalId,
  };
}

function resultView(result: CaseResult) {
  return {
    id: result.id,
    group: result.group,
    clause: result.clause,
    verdict: result.verdict,
    expected: result.expected,
    seen: result.seen,
    reason: result.reason,
    started_at: result.startedAt,
    duration_ms: result.durationMs,
    exchanges: result.exchanges.map(exchangeView),
  };
}

/** A run without its results (lists). */
function summaryOf(run: ConformanceRun) {
  return {
    id: run.id,
    client_id: run.clientId,
    state: run.state,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    duration_ms: run.durationMs,
    bank_version: run.bankVersion,
    connector_url: run.connectorUrl,
    cases: run.cases,
    summary: summarise(run.results),
    client_orders: run.clientOrders,
    window_s: run.windowS,
    error: run.error,
    links: linksOf(run),
  };
}

export function runView(run: ConformanceRun) {
  return { ...summaryOf(run), results: run.results.map(resultView) };
}

function found(runs: ConformanceRuns, id: string): ConformanceRun {
  const run = runs.get(id);
  if (!run) throw new ProblemError('not_found', `no conformance run "${id}" (never started, deleted, or pruned)`);
  return run;
}

function attachment(res: Response, type: string, name: string, body: string): void {
  res.type(type).set('content-disposition', `inline; filename="${name}"`).send(body);
}

const isPosition = (value: unknown): value is { startedAt: number; id: string } =>
  typeof value === 'object' && value !== null && Number.isSafeInteger((value as { startedAt?: unknown }).startedAt) && typeof (value as { id?: unknown }).id === 'string';

export const conformanceArea: ControlArea = (router, { conformance, logger }) => {
  router.post('/conformance-runs', (req, res) => {
    parseQuery(req, {});
    const run = conformance.start(controlBody<StartRequest>(req, 'conformance-run-start'));
    res.status(202).location(linksOf(run).self).json(summaryOf(run));
  });

  router.get('/conformance-runs', (req, res) => {
    const query = parseQuery(req, { ...LIST_QUERY, client_id: queryText });
    const limit = query.limit ?? LIST_DEFAULT_LIMIT;
    const rows = conformance.list(query.client_id ?? null, decodeCursor(query.cursor, isPosition), limit + 1);
    res.json(listPage(rows, limit, ({ run }) => summaryOf(run), ({ row }) => ({ startedAt: row.startedAt, id: row.id })));
  });

  router.get('/conformance-runs/:id', (req, res) => {
    parseQuery(req, {});
    res.json(runView(found(conformance, String(req.params.id))));
  });

  router.get('/conformance-runs/:id/junit.xml', (req, res) => {
    parseQuery(req, {});
    const run = found(conformance, String(req.params.id));
    attachment(res, 'application/xml', `conformance-${run.id}.xml`, junitXml(run));
  });

  router.get('/conformance-runs/:id/report.html', (req, res) => {
    parseQuery(req, {});
    const run = found(conformance, String(req.params.id));
    attachment(res, 'text/html', `conformance-${run.id}.html`, htmlReport(run));
  });

  router.delete('/conformance-runs/:id', (req, res) => {
    parseQuery(req, {});
    const id = String(req.params.id);
    const deleted = conformance.delete(id);
    requestLog(logger, res).info('conformance run deleted', { run_id: id, ...deleted });
    res.json({ deleted: id, rows: deleted });
  });
};
