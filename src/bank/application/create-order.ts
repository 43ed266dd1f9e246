// The create use case (contract 4.1.1, profile sections 6 and 8), after the security pipeline has passed:
// idempotency, then the body, then the order is accepted. The idempotency record, the order, its history and
// its outgoing message commit in one transaction, so a crash leaves either all of them or none (a unit of the group
// commit: store/group-commit.ts; the answer waits for its commit).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'winston';
import { ProblemError } from '../../wire/problems';
import { PaymentOrder } from '../../wire/payment-order';
import { statusObject } from '../../wire/status-object';
import { statusReportOf } from '../domain/order';
import type { GroupCommit } from '../store/group-commit';
import { IdempotencyRepository } from '../store/idempotency';
import { ClientClocks } from './clocks';
import { AcceptedOrder, OrderBook } from './order-book';
import { parseOrder } from './order-validation';

export interface CreateRequest {
  clientId: string;
  idempotencyKey: string;
  rawBody: Buffer;
  /** SHA-256 of rawBody, as the signature check took it. */
  bodySha256: Buffer;
  log: Logger;
}

/** The answer to send: fresh, or the stored one replayed byte for byte. */
export interface CreateAnswer {
  status: number;
  body?: Buffer;
  replayed: boolean;
  /** The order's reference, when this request's body was parsed (not on a replay). */
  reference?: string;
}

export interface CreateSettings {
  /** Simulated processing time; also what lets a second request meet the first one in progress. */
  createLatencyMs: number;
  idempotencyRetentionS: number;
}

/** Profile section 6: the fingerprint is SHA-256 of the raw body bytes, in hex. */
export function bodyFingerprint(sha256: Buffer): string {
  return sha256.toString('hex');
}

function answerOf(accepted: AcceptedOrder): CreateAnswer {
  if (accepted.plan.response === 'async') return { status: 202, replayed: false };
  return { status: 200, body: Buffer.from(JSON.stringify(statusObject(statusReportOf(accepted.order), 'create'))), replayed: false };
}

/**
 * A create whose idempotency reservation was deleted during CREATE_LATENCY_MS (a POST /sandbox/reset of its client,
 * or the retention passing on the client's test clock) stores nothing: the reset promised the client a clean slate,
 * and an order without its record could never be replayed. Its retry is a new create (profile-decisions.md).
 */
function reservationLost(key: string): ProblemError {
  return new ProblemError(
    'internal',
    `the idempotency reservation of X-Idempotency-Key "${key}" was removed while this create was being processed (a POST /sandbox/reset of this client, or its retention passing on the client's test clock); nothing was stored: retry with the same X-Idempotency-Key and body`,
  );
}

/** The detail tells how to get the first answer back, which only a pushed order has (a pulled one had no create). */
function duplicateReference(order: PaymentOrder, existing?: { source: string }): ProblemError {
  const how = existing?.source === 'pull' ? 'the Bank pulled it from your Connector, so no create of it can be replayed' : 'reuse its X-Idempotency-Key to replay the answer';
  return new ProblemError('duplicate_reference', `an order with reference "${order.reference}" already exists for this client; ${how}`);
}

export class CreateOrder {
  private readonly retentionMs: number;
  private readonly lockMs: number;

  constructor(
    private readonly writes: GroupCommit,
    private readonly book: OrderBook,
    private readonly idempotency: IdempotencyRepository,
    private readonly clocks: ClientClocks,
    private readonly settings: CreateSettings,
  ) {
    this.retentionMs = settings.idempotencyRetentionS * 1000;
    this.lockMs = settings.createLatencyMs + 30_000;
  }

  async execute(request: CreateRequest): Promise<CreateAnswer> {
    const { clientId, idempotencyKey: key } = request;
    // Idempotency retention is business time: a client with a test clock keeps its records by that clock.
    const nowMs = this.clocks.now(clientId);
    const fingerprint = bodyFingerprint(request.bodySha256);
    const replay = this.storedAnswer(clientId, key, fingerprint, nowMs);
    if (replay) {
      request.log.info('idempotent replay', { idempotency_key: key, status: replay.status });
      return replay;
    }
    const { order, json } = parseOrder(request.rawBody);
    const decision = this.book.decide(order);
    if (this.book.failsFirstCreate(clientId, order, decision)) {
      throw new ProblemError('internal', 'injected by the scenario FAIL_ONCE: this first attempt failed on purpose; retry with the same X-Idempotency-Key and body');
    }
    const delayed = this.settings.createLatencyMs > 0;
    let hold = 0;
    if (delayed) {
      // Refuse a known duplicate before making the client wait; acceptNew checks again after the delay.
      const existing = this.book.find(clientId, order.reference);
      if (existing) throw duplicateReference(order, existing);
      hold = this.idempotency.reserve(clientId, key, fingerprint, nowMs, this.lockMs, this.retentionMs, order.reference);
      await sleep(this.settings.createLatencyMs);
    }
    try {
      // Every refusal below comes before a row changes (acceptNew stores nothing for a taken reference).
      return this.writes.runRefusingBeforeChanges(() => {
        if (delayed && !this.idempotency.holds(clientId, key, hold)) throw reservationLost(key);
        const outcome = this.book.acceptNew(clientId, order, 'push', decision, json);
        if (!outcome.accepted) throw duplicateReference(order, outcome.existing);
        const answer = answerOf(outcome);
        const body = answer.body ?? Buffer.alloc(0);
        // Reserved before the delay, the record is finished now; without a delay it is written finished at once.
        if (delayed) this.idempotency.complete(clientId, key, hold, answer.status, body);
        else this.idempotency.record(clientId, key, fingerprint, nowMs, this.retentionMs, order.reference, answer.status, body);
        request.log.info('order accepted', {
          reference: order.reference,
          bank_reference: outcome.order.bankReference,
          status: outcome.order.status,
          scenario: outcome.order.scenario,
          scenario_source: outcome.order.scenarioSource,
        });
        return { ...answer, reference: order.reference };
      });
    } catch (error) {
      if (delayed) this.idempotency.release(clientId, key, hold);
      throw error;
    }
  }

  /** The stored answer to replay, or null when the key is new. Throws 422 or 409 as the profile says. */
  private storedAnswer(clientId: string, key: string, fingerprint: string, nowMs: number): CreateAnswer | null {
    const record = this.idempotency.find(clientId, key, nowMs);
    if (!record) return null;
    if (record.fingerprint !== fingerprint) {
      throw new ProblemError('idempotency_key_reused', `X-Idempotency-Key "${key}" was already used with a different body`);
    }
    if (record.state === 'in_progress') {
      throw new ProblemError('idempotency_in_progress', `the first request with X-Idempotency-Key "${key}" is still being processed; retry shortly`, {
        headers: { 'Retry-After': '1' },
      });
    }
    return { status: record.statusCode ?? 500, body: record.body ?? undefined, replayed: true };
  }
}
