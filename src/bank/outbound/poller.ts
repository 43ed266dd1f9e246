// Pulls orders from each Connector (contract 4.2.1): the HTTP loop. Each page is stored by the application's
// PulledOrders (orders and cursor in one transaction). The cursor is the largest initiated_at processed; when a
// full page makes no progress (more orders share one instant than fit in a page), the next request asks for a
// larger limit instead of stalling or skipping.
import type { Logger } from 'winston';
import { EventSink, NO_EVENTS } from '../application/events';
import { FaultProfiles } from '../application/fault-profiles';
import { PageOutcome, PulledOrders } from '../application/pulled-orders';
import { answerJson, HttpAnswer } from '../../wire/signed-client';
import { ConnectorClient } from './connector-client';
import { ConnectorDirectory } from './connector-directory';
import { plainHttpRefusal } from './dispatcher';

export interface PollReport {
  clientId: string;
  pages: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  cursor: string;
  outcome: 'ok' | 'no_content' | 'error';
  error?: string;
}

const MAX_LIMIT_GROWTH = 1024;
const MAX_PAGES_PER_CYCLE = 100_000;

export class Poller {
  private cycle: Promise<PollReport[]> | null = null;
  /**
   * Connectors whose last pull failed: repeated failures log at debug, so a Connector that is down does not flood the
   * log. Weak, by the Connector's client: one removed (a deleted client) is forgotten with it, and an id registered
   * again, or a Connector changed by PATCH, is warned about at its first failure.
   */
  private readonly failing = new WeakSet<ConnectorClient>();

  constructor(
    private readonly pulled: PulledOrders,
    private readonly connectors: ConnectorDirectory,
    private readonly logger: Logger,
    private readonly startOffset: string,
    private readonly events: EventSink = NO_EVENTS,
    /** Clients' fault profiles: a pull may be sent twice or badly signed (conformance.md section 4). */
    private readonly faults?: FaultProfiles,
    /** Relaxed mode: http:// Connectors are pulled and called back; strict mode does neither (pullRefusal). */
    private readonly allowPlainHttp = true,
  ) {}

  /**
   * Contract section 1, rule 2: callbacks are mandatory whenever the Bank pulls, or a pulled order stays READY or
   * PENDING at the Connector for good. Strict mode calls no http:// Connector back (profile section 4), so it pulls
   * none either.
   */
  pullRefusal(connector: ConnectorClient): string | null {
    if (plainHttpRefusal(connector.settings.baseUrl, this.allowPlainHttp) === null) return null;
    return 'refused: strict mode neither pulls from nor calls back an http:// Connector (a pulled order must be called back, contract section 1); use https:// or SANDBOX_MODE=relaxed';
  }

  /** One pull cycle over every polling Connector. Cycles never overlap: a call during a cycle joins it. */
  runCycle(): Promise<PollReport[]> {
    if (!this.cycle) {
      const polling = this.connectors.pullable().filter((connector) => this.pullRefusal(connector) === null);
      this.cycle = Promise.all(polling.map((connector) => this.pollConnector(connector))).finally(() => {
        this.cycle = null;
      });
    }
    return this.cycle;
  }

  /** One Connector's pull, page after page; `poll.completed` tells the live events what it got. */
  async pollConnector(connector: ConnectorClient): Promise<PollReport> {
    const refusal = this.pullRefusal(connector);
    const report = refusal === null ? await this.pullPages(connector) : this.refused(connector, refusal);
    const { clientId, pages, accepted, duplicates, rejected, cursor, outcome, error } = report;
    this.events.publish('poll.completed', clientId, { client_id: clientId, pages, accepted, duplicates, rejected, cursor, outcome, error: error ?? null });
    return report;
  }

  private async pullPages(connector: ConnectorClient): Promise<PollReport> {
    const { clientId, pollStatus, pollLimit } = connector.settings;
    const report: PollReport = { clientId, pages: 0, accepted: 0, duplicates: 0, rejected: 0, cursor: this.pulled.cursor(clientId) ?? this.startOffset, outcome: 'ok' };
    let limit = pollLimit;
    while (report.pages < MAX_PAGES_PER_CYCLE) {
      let response;
      try {
        response = await connector.pull(pollStatus, limit, report.cursor, this.faults?.forPull(clientId, pollStatus, limit, report.cursor));
      } catch (error) {
        return this.failed(connector, report, `token: ${(error as Error).message}`);
      }
      if (response.status === 204) return this.succeeded(connector, report.pages === 0 ? { ...report, outcome: 'no_content' } : report);
      if (response.status !== 200) return this.failed(connector, report, response.error ?? `HTTP ${response.status}: ${response.body.slice(0, 200)}`);
      const content = this.pageContent(response);
      if (!content) return this.failed(connector, report, 'the page is not a JSON envelope with a content array');
      report.pages += 1;
      let outcome: PageOutcome;
      try {
        outcome = this.pulled.storePage(clientId, content, report.cursor);
      } catch (error) {
        return this.failed(connector, report, `storing the page failed (nothing of it was kept): ${(error as Error).message}`);
      }
      report.accepted += outcome.accepted;
      report.duplicates += outcome.duplicates;
      report.rejected += outcome.rejected;
      const progressed = outcome.maxInitiatedAt !== null;
      if (progressed) report.cursor = outcome.maxInitiatedAt as string;
      if (content.length < limit) return this.succeeded(connector, report);
      if (progressed) {
        limit = pollLimit;
      } else if (limit < pollLimit * MAX_LIMIT_GROWTH) {
        limit *= 2;
        this.logger.info('pull page full at one initiated_at: widening the limit', { client_id: clientId, cursor: report.cursor, limit });
      } else {
        return this.failed(connector, report, `more than ${limit} orders share initiated_at ${report.cursor}`);
      }
    }
    return report;
  }

  private refused(connector: ConnectorClient, error: string): PollReport {
    const { clientId } = connector.settings;
    const cursor = this.pulled.cursor(clientId) ?? this.startOffset;
    return { clientId, pages: 0, accepted: 0, duplicates: 0, rejected: 0, cursor, outcome: 'error', error };
  }

  private failed(connector: ConnectorClient, report: PollReport, error: string): PollReport {
    const context = { client_id: report.clientId, cursor: report.cursor, error };
    if (this.failing.has(connector)) this.logger.debug('pull still failing', context);
    else this.logger.warn('pull failed; the next cycles retry (further failures log at debug until it recovers)', context);
    this.failing.add(connector);
    return { ...report, outcome: 'error', error };
  }

  private succeeded(connector: ConnectorClient, report: PollReport): PollReport {
    if (this.failing.delete(connector)) this.logger.info('pull recovered', { client_id: report.clientId, cursor: report.cursor });
    return report;
  }

  /** The page's orders; the parse is shared with the journal, which reads the same answer for its references. */
  private pageContent(response: HttpAnswer): unknown[] | null {
    const page = answerJson(response) as { content?: unknown } | null;
    return Array.isArray(page?.content) ? page.content : null;
  }
}
