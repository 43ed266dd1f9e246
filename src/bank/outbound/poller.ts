// Pulls orders from each Connector (contract 4.2.1). The cursor is the largest initiated_at processed and is
// stored with the page's orders in one transaction. The offset is inclusive, so orders sharing the cursor's
// instant are seen again and deduplicated by reference; when a full page makes no progress (more orders share
// one instant than fit in a page), the next request asks for a larger limit instead of stalling or skipping.
import { createHash } from 'node:crypto';
import type { Logger } from 'winston';
import { OrderBook } from '../application/order-book';
import { orderViolations } from '../application/order-validation';
import { Clock } from '../../wire/clock';
import { PaymentOrder } from '../../wire/payment-order';
import { Db } from '../store/db';
import { PollStateRepository } from '../store/poll-state';
import { ConnectorClient } from './connector-client';

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

interface PageOutcome {
  accepted: number;
  duplicates: number;
  rejected: number;
  maxInitiatedAt: string | null;
}

const MAX_LIMIT_GROWTH = 1024;
const MAX_PAGES_PER_CYCLE = 100_000;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function instantOf(value: unknown): number | null {
  return typeof value === 'string' && INSTANT.test(value) && !Number.isNaN(Date.parse(value)) ? Date.parse(value) : null;
}

export class Poller {
  private cycle: Promise<PollReport[]> | null = null;
  /** Connectors whose last pull failed: repeated failures log at debug, so a Connector that is down does not flood the log. */
  private readonly failing = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly book: OrderBook,
    private readonly state: PollStateRepository,
    private readonly connectors: readonly ConnectorClient[],
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly startOffset: string,
  ) {}

  /** One pull cycle over every polling Connector. Cycles never overlap: a call during a cycle joins it. */
  runCycle(): Promise<PollReport[]> {
    if (!this.cycle) {
      const polling = this.connectors.filter((connector) => connector.settings.poll);
      this.cycle = Promise.all(polling.map((connector) => this.pollConnector(connector))).finally(() => {
        this.cycle = null;
      });
    }
    return this.cycle;
  }

  async pollConnector(connector: ConnectorClient): Promise<PollReport> {
    const { clientId, pollStatus, pollLimit } = connector.settings;
    const report: PollReport = { clientId, pages: 0, accepted: 0, duplicates: 0, rejected: 0, cursor: this.state.cursor(clientId) ?? this.startOffset, outcome: 'ok' };
    let limit = pollLimit;
    while (report.pages < MAX_PAGES_PER_CYCLE) {
      let response;
      try {
        response = await connector.pull(pollStatus, limit, report.cursor);
      } catch (error) {
        return this.failed(report, `token: ${(error as Error).message}`);
      }
      if (response.status === 204) return this.succeeded(report.pages === 0 ? { ...report, outcome: 'no_content' } : report);
      if (response.status !== 200) return this.failed(report, response.error ?? `HTTP ${response.status}: ${response.body.slice(0, 200)}`);
      const content = this.pageContent(response.body);
      if (!content) return this.failed(report, 'the page is not a JSON envelope with a content array');
      report.pages += 1;
      let outcome: PageOutcome;
      try {
        outcome = this.storePage(clientId, content, report.cursor);
      } catch (error) {
        return this.failed(report, `storing the page failed (nothing of it was kept): ${(error as Error).message}`);
      }
      report.accepted += outcome.accepted;
      report.duplicates += outcome.duplicates;
      report.rejected += outcome.rejected;
      const progressed = outcome.maxInitiatedAt !== null;
      if (progressed) report.cursor = outcome.maxInitiatedAt as string;
      if (content.length < limit) return this.succeeded(report);
      if (progressed) {
        limit = pollLimit;
      } else if (limit < pollLimit * MAX_LIMIT_GROWTH) {
        limit *= 2;
        this.logger.info('pull page full at one initiated_at: widening the limit', { client_id: clientId, cursor: report.cursor, limit });
      } else {
        return this.failed(report, `more than ${limit} orders share initiated_at ${report.cursor}`);
      }
    }
    return report;
  }

  private failed(report: PollReport, error: string): PollReport {
    const context = { client_id: report.clientId, cursor: report.cursor, error };
    if (this.failing.has(report.clientId)) this.logger.debug('pull still failing', context);
    else this.logger.warn('pull failed; the next cycles retry (further failures log at debug until it recovers)', context);
    this.failing.add(report.clientId);
    return { ...report, outcome: 'error', error };
  }

  private succeeded(report: PollReport): PollReport {
    if (this.failing.delete(report.clientId)) this.logger.info('pull recovered', { client_id: report.clientId, cursor: report.cursor });
    return report;
  }

  private pageContent(body: string): unknown[] | null {
    try {
      const page = JSON.parse(body) as { content?: unknown };
      return Array.isArray(page?.content) ? page.content : null;
    } catch {
      return null;
    }
  }

  /** Stores a page's new orders and advances the cursor, all in one transaction. */
  private storePage(clientId: string, content: unknown[], cursor: string): PageOutcome {
    return this.db.transaction(() => {
      const outcome: PageOutcome = { accepted: 0, duplicates: 0, rejected: 0, maxInitiatedAt: null };
      let maxMs = instantOf(cursor) ?? 0;
      for (const raw of content) {
        const initiatedAt = (raw as { initiated_at?: unknown })?.initiated_at;
        const ms = instantOf(initiatedAt);
        if (ms !== null && ms > maxMs) {
          maxMs = ms;
          outcome.maxInitiatedAt = initiatedAt as string;
        }
        this.storeOrder(clientId, raw, outcome);
      }
      if (outcome.maxInitiatedAt) this.state.setCursor(clientId, outcome.maxInitiatedAt, this.clock.now());
      else if (!this.state.cursor(clientId)) this.state.setCursor(clientId, cursor, this.clock.now());
      return outcome;
    })();
  }

  private storeOrder(clientId: string, raw: unknown, outcome: PageOutcome): void {
    const violations = orderViolations(raw);
    const reference = typeof (raw as { reference?: unknown })?.reference === 'string' ? (raw as { reference: string }).reference : null;
    if (violations.length > 0) {
      const payload = JSON.stringify(raw) ?? 'null';
      const fingerprint = createHash('sha256').update(payload).digest('hex');
      const reason = violations.map((violation) => `${violation.path} ${violation.message}`).join('; ');
      if (this.state.reject(clientId, reference, fingerprint, reason, payload, this.clock.now())) {
        this.logger.warn('pulled order rejected', { client_id: clientId, reference, reason });
      }
      outcome.rejected += 1;
      return;
    }
    const order = raw as PaymentOrder;
    if (this.book.orders.find(clientId, order.reference)) {
      outcome.duplicates += 1;
      return;
    }
    this.book.accept(clientId, order, 'pull');
    outcome.accepted += 1;
  }
}
