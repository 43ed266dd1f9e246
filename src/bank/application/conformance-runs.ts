// Conformance runs (conformance.md section 1): start one against a client's Connector, follow its cases, keep a
// bounded number of them, delete one with the orders it asked the Connector to push. The run itself is played by
// conformance/engine with the Bank's own signer and journal; this module owns its record and its isolation: the
// normal pull of that client waits while a run goes on, the run never stores what it pulls, and its own orders
// (CONF-<run>-…) are the only ones it leaves, until it is deleted.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import { Clock } from '../../wire/clock';
import { ProblemError } from '../../wire/problems';
import { formatInstant } from '../../wire/rfc3339';
import { SigningKey } from '../../wire/keys';
import { ObservedRequest } from '../conformance/case';
import { clientOrdersFor, runPrefix } from '../conformance/client-orders';
import type { RunPlan } from '../conformance/engine';
import { ConnectorFault } from '../conformance/probe';
import { CASES, CaseResult, ClientOrder, ConformanceRun } from '../conformance/model';
import { ConnectorDirectory } from '../outbound/connector-directory';
import { ConformanceRunRepository, RunRow } from '../store/conformance-runs';
import { Db } from '../store/db';
import { EventSink } from './events';
import { Journal } from './journal';
import { OrderBook } from './order-book';

export interface StartRequest {
  client_id: string;
  cases?: string[];
  skip?: string[];
  window_s?: number;
}

export interface ConformanceSettings {
  bankClientId: string;
  bankVersion: string;
  /** Limit on one exchange with the Connector. */
  exchangeTimeoutMs: number;
  maxResponseBytes: number;
  reportBodyLimit: number;
  defaultWindowS: number;
  runsKept: number;
  /** SANDBOX_MODE=relaxed: a run calls back an http:// Connector, as the dispatcher does; strict: never. */
  allowPlainHttp: boolean;
}

export interface ConformanceDeps {
  db: Db;
  repo: ConformanceRunRepository;
  connectors: ConnectorDirectory;
  book: OrderBook;
  journal: Journal;
  events: EventSink;
  signer: SigningKey;
  clock: Clock;
  logger: Logger;
  /** Whether a client with this id is registered (with or without a Connector). */
  clientExists(clientId: string): boolean;
  /** Adds a public key to the Bank's JWKS; answers the function that takes it out. */
  publishKey(jwk: Record<string, unknown>): () => void;
  settings: ConformanceSettings;
}

interface StoredRequest {
  cases: string[];
  windowS: number;
  connectorUrl: string | null;
  bankVersion: string;
}

const KNOWN_IDS = new Set(CASES.map((one) => one.id));

type ConformanceEngine = typeof import('../conformance/engine');
let engineModule: ConformanceEngine | null = null;

/** The engine and its case modules load with the first run, not with every Bank (issue 15: ~9 ms of each start). */
function conformanceEngine(): ConformanceEngine {
  engineModule ??= require('../conformance/engine') as ConformanceEngine;
  return engineModule;
}
const JOURNAL_PAGE = 1000;

function unknownIds(ids: readonly string[] | undefined): string[] {
  return (ids ?? []).filter((id) => !KNOWN_IDS.has(id));
}

function newRunId(): string {
  return randomBytes(6).toString('base64url').replace(/[-_]/g, 'x');
}

function flatHeaders(headers: Record<string, string | string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
}

export class ConformanceRuns {
  private readonly inProgress = new Map<string, Promise<void>>();
  private toldClosed = false;

  constructor(private readonly deps: ConformanceDeps) {
    const aborted = deps.repo.abortRunning(deps.clock.now(), 'the Bank stopped during the run');
    if (aborted > 0) deps.logger.warn('conformance runs cut short by a restart marked aborted', { runs: aborted });
  }

  /** Starts a run; answers it as just started. Throws ProblemError for an unknown client or a bad plan. */
  start(request: StartRequest): ConformanceRun {
    const { repo, clock, settings } = this.deps;
    const clientId = request.client_id;
    const connector = this.deps.connectors.get(clientId);
    if (!this.deps.clientExists(clientId)) throw new ProblemError('not_found', `no client ${clientId} is registered`);
    if (!connector) throw new ProblemError('body_invalid', `client ${clientId} has no Connector URL (connector_base_url): a run plays against the client's Connector`);
    const unknown = [...unknownIds(request.cases), ...unknownIds(request.skip)];
    if (unknown.length > 0) throw new ProblemError('body_invalid', `unknown case id(s): ${unknown.join(', ')}`, { errors: unknown.map((id) => ({ path: '/cases', message: `${id} is not a case id` })) });
    const cases = CASES.map((one) => one.id).filter((id) => (!request.cases || request.cases.includes(id)) && !request.skip?.includes(id));
    if (cases.length === 0) throw new ProblemError('body_invalid', 'cases and skip leave no case to play');
    if (repo.running(clientId)) throw new ProblemError('run_in_progress', `a conformance run for ${clientId} is in progress; wait for it or delete it`);
    const id = newRunId();
    const startedAt = clock.now();
    const hasClientCases = cases.some((caseId) => caseId.startsWith('client.'));
    const windowS = hasClientCases ? request.window_s ?? settings.defaultWindowS : 0;
    const clientOrders = clientOrdersFor(id, cases, startedAt);
    const stored: StoredRequest = { cases, windowS, connectorUrl: connector.settings.baseUrl, bankVersion: settings.bankVersion };
    repo.insert({ id, clientId, state: 'running', startedAt, finishedAt: null, request: JSON.stringify(stored), clientOrders: JSON.stringify(clientOrders), results: '[]', error: null });
    // The normal pull of this client waits while the run pulls: what the run is served is never stored.
    this.deps.connectors.holdPulls(clientId, true);
    const plan: RunPlan = {
      runId: id, clientId, caseIds: cases, clientOrders, windowS,
      target: { clientId, baseUrl: connector.settings.baseUrl, tls: connector.settings.tls, token: () => connector.pullToken() },
      callbackMode: connector.settings.callbackMode, pullStatus: connector.settings.pollStatus, pullLimit: connector.settings.pollLimit,
      allowPlainHttp: settings.allowPlainHttp,
    };
    this.deps.logger.info('conformance run started', { run_id: id, client_id: clientId, cases: cases.length, window_s: windowS, connector_url: plan.target.baseUrl });
    this.inProgress.set(id, this.play(plan).finally(() => {
      this.deps.connectors.holdPulls(clientId, false);
      this.inProgress.delete(id);
    }));
    return this.view(repo.find(id) as RunRow);
  }

  /** Resolves when the run is over (tests and the CLI's in-process use); undefined once the Bank is closed. */
  async finished(id: string): Promise<ConformanceRun | undefined> {
    await this.inProgress.get(id);
    return this.deps.db.open ? this.get(id) : undefined;
  }

  get(id: string): ConformanceRun | undefined {
    const row = this.deps.repo.find(id);
    return row ? this.view(row) : undefined;
  }

  list(clientId: string | null, before: { startedAt: number; id: string } | null, limit: number): { run: ConformanceRun; row: RunRow }[] {
    return this.deps.repo.list(clientId, before, limit).map((row) => ({ run: this.view(row), row }));
  }

  /** Deletes a finished run and its orders; a running one cannot be deleted (it would come back as it writes). */
  delete(id: string): Record<string, number> {
    const row = this.deps.repo.find(id);
    if (!row) throw new ProblemError('not_found', `no conformance run ${id}`);
    if (row.state === 'running') throw new ProblemError('run_in_progress', `run ${id} is in progress; it can be deleted once it is over`);
    return this.remove(row);
  }

  private remove(row: RunRow): Record<string, number> {
    return this.deps.db.transaction(() => {
      const deleted = this.deps.repo.deleteRunOrders(row.clientId, runPrefix(row.id));
      this.deps.repo.delete(row.id);
      return deleted;
    })();
  }

  private async play(plan: RunPlan): Promise<void> {
    const { repo, clock, logger, settings, journal } = this.deps;
    const results: CaseResult[] = [];
    try {
      const outcome = await conformanceEngine().playRun(plan, {
        probe: {
          bankClientId: settings.bankClientId, signer: this.deps.signer, clock, deadlineMs: settings.exchangeTimeoutMs,
          maxResponseBytes: settings.maxResponseBytes, reportBodyLimit: settings.reportBodyLimit,
          journal: (clientId, exchange) => journal.recordOutbound(clientId, exchange),
        },
        knownReference: (reference) => this.deps.book.find(plan.clientId, reference) !== undefined,
        publishKey: this.deps.publishKey,
        jwksFetches: (from, to) => this.jwksFetches(from, to),
        observed: (references, since) => this.observed(plan.clientId, references, since),
        finalDeliveredAt: (reference, since) => this.finalDeliveredAt(plan.clientId, reference, since),
        onCaseFinished: (result) => {
          results.push(result);
          if (!this.storeOpen()) return;
          repo.saveResults(plan.runId, JSON.stringify(results));
          this.deps.events.publish('conformance.case_finished', plan.clientId, { run_id: plan.runId, client_id: plan.clientId, case_id: result.id, verdict: result.verdict });
        },
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      });
      if (!this.storeOpen()) return;
      repo.finish(plan.runId, outcome.error ? 'aborted' : 'finished', clock.now(), JSON.stringify(outcome.results), outcome.error);
      const counts = outcome.results.reduce<Record<string, number>>((acc, result) => ({ ...acc, [result.verdict]: (acc[result.verdict] ?? 0) + 1 }), {});
      logger.info('conformance run finished', { run_id: plan.runId, client_id: plan.clientId, error: outcome.error ?? undefined, ...counts });
    } catch (error) {
      if (!this.storeOpen()) return;
      // The Connector's fault (its token endpoint) stops a run as surely as an error of the Bank's, but is not one.
      const why = error instanceof ConnectorFault ? error.message : `the run stopped on an error of the Bank's: ${(error as Error).message}`;
      repo.finish(plan.runId, 'aborted', clock.now(), JSON.stringify(results), why);
      if (error instanceof ConnectorFault) logger.warn('conformance run aborted', { run_id: plan.runId, error: why });
      else logger.error('conformance run failed', { run_id: plan.runId, error: (error as Error).message });
    }
    this.pruneOldRuns();
  }

  /**
   * Whether the run can still record itself. A Bank closed during a run (shutdown, or a test's second Bank on the
   * same data dir) leaves the row `running`; the next start marks it aborted (constructor). Writing to the closed
   * store would only throw where nobody waits for the run.
   */
  private storeOpen(): boolean {
    if (this.deps.db.open) return true;
    if (!this.toldClosed) this.deps.logger.warn('a conformance run went on after the Bank closed; it is not recorded further');
    this.toldClosed = true;
    return false;
  }

  private pruneOldRuns(): void {
    for (const row of this.deps.repo.beyond(this.deps.settings.runsKept)) this.remove(row);
  }

  private jwksFetches(from: number, to: number): number | null {
    const { journal } = this.deps;
    if (!journal.enabled) return null;
    return journal.list({ direction: 'in', path: '/.well-known/jwks.json', since: from }, JOURNAL_PAGE).filter((row) => row.at <= to).length;
  }

  private observed(clientId: string, references: readonly string[], since: number): ObservedRequest[] | null {
    const { journal } = this.deps;
    if (!journal.enabled) return null;
    const observed: ObservedRequest[] = [];
    for (const reference of references) {
      for (const row of journal.list({ clientId, reference, direction: 'in', since }, JOURNAL_PAGE)) {
        const entry = journal.entry(row.id);
        if (!entry) continue;
        observed.push({
          journalId: row.id, at: row.at, answeredAt: row.at + row.latencyMs, method: row.method, url: row.url, path: row.path, status: row.status, code: row.code,
          headers: flatHeaders(entry.request.headers), body: entry.request.body,
          responseHeaders: flatHeaders(entry.response?.headers ?? {}), responseBody: entry.response?.body ?? null, curl: entry.curl, reference,
        });
      }
    }
    return observed.sort((a, b) => a.at - b.at);
  }

  /** When the Connector answered 200 to a callback that made `reference` final. */
  private finalDeliveredAt(clientId: string, reference: string, since: number): number | null {
    const { journal } = this.deps;
    if (!journal.enabled) return null;
    const delivered = journal.list({ clientId, reference, direction: 'out', since }, JOURNAL_PAGE).filter((row) => row.status === 200 && row.path.includes('/callbacks/'));
    const finals = delivered.filter((row) => reportsFinal(journal.entry(row.id)?.request.body ?? null, reference)).map((row) => row.at + row.latencyMs);
    return finals.length === 0 ? null : Math.min(...finals);
  }

  private view(row: RunRow): ConformanceRun {
    const request = JSON.parse(row.request) as StoredRequest;
    return {
      id: row.id,
      clientId: row.clientId,
      state: row.state,
      startedAt: formatInstant(row.startedAt),
      finishedAt: row.finishedAt === null ? null : formatInstant(row.finishedAt),
      durationMs: row.finishedAt === null ? null : row.finishedAt - row.startedAt,
      bankVersion: request.bankVersion,
      connectorUrl: request.connectorUrl,
      cases: request.cases,
      results: JSON.parse(row.results) as CaseResult[],
      clientOrders: JSON.parse(row.clientOrders) as ClientOrder[],
      windowS: request.windowS,
      error: row.error,
    };
  }
}

/** Whether a unit or batch callback body reports `reference` as SUCCESS or FAILED. */
function reportsFinal(body: string | null, reference: string): boolean {
  if (!body) return false;
  try {
    const parsed = JSON.parse(body) as { reference?: string; status?: string; orders?: { reference?: string; status?: string }[] };
    const items = Array.isArray(parsed.orders) ? parsed.orders : [parsed];
    return items.some((item) => item.reference === reference && (item.status === 'SUCCESS' || item.status === 'FAILED'));
  } catch {
    return false;
  }
}
