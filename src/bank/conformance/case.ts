// What a conformance case is: an id from the fixed catalogue (model.ts), how many of the Connector's served
// orders it needs, and a `play` that makes its exchanges and returns a judgement. Cases never throw for
// anything the Connector does: an answer they did not expect is a verdict, not an error.
import { SigningKey } from '../../wire/keys';
import { formatInstantSeconds } from '../../wire/rfc3339';
import { StatusReport, statusObject, WireStatus } from '../../wire/status-object';
import { caseInfo, CaseInfo, Verdict } from './model';
import { Answer, ConnectorProbe } from './probe';

export interface Judgement {
  verdict: Verdict;
  /** What the case saw, in one line. */
  seen: string;
  /** Why a case is SKIPPED or a WARNING. */
  reason?: string;
}

export const passed = (seen: string): Judgement => ({ verdict: 'PASSED', seen });
export const failed = (seen: string): Judgement => ({ verdict: 'FAILED', seen });
export const warning = (seen: string, reason: string): Judgement => ({ verdict: 'WARNING', seen, reason });
export const skipped = (reason: string): Judgement => ({ verdict: 'SKIPPED', seen: 'not played', reason });

/** An order the Connector served in the run's pulls. */
export interface ServedOrder {
  reference: string;
  initiatedAt: string;
}

/** One inbound exchange of the Connector on the Bank's listener, as the journal kept it (client.* cases). */
export interface ObservedRequest {
  journalId: number;
  /** When the request arrived, and when it was answered (ms). */
  at: number;
  answeredAt: number;
  method: string;
  url: string;
  path: string;
  status: number | null;
  code: string | null;
  headers: Record<string, string>;
  body: string | null;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
  /** The journal's replay command. */
  curl: string;
  /** The order reference a create carried or a status poll asked for. */
  reference: string | null;
}

export interface CaseContext {
  runId: string;
  /** The Bank's X-Client-Id toward Connectors (and its client certificate's CN). */
  bankClientId: string;
  probe: ConnectorProbe;
  /** The client's pull settings (the same the Bank's poller uses). */
  pullStatus: string;
  pullLimit: number;
  /** Orders served in the discovery pulls, ascending by initiated_at (pull cases read, never take, them). */
  served: readonly ServedOrder[];
  /**
   * Whether a served order is still as the Connector served it, as far as the run knows: the Bank holds no order of
   * that reference and no case has taken it (so no callback of the run can have changed its status).
   */
  untouched(reference: string): boolean;
  /** A bank_reference of the run's own (callbacks report orders the Bank never stored). */
  bankReference(reference: string): string;
  /** Publishes a new Bank key in the JWKS for the rest of the run, and answers it for signing. */
  rotatedKey(): Promise<SigningKey>;
  /** A key in no JWKS of the Bank. */
  foreignKey(): Promise<SigningKey>;
  /** JWKS fetches seen on the Bank's listeners in [from, to] (ms); null when the journal is off. */
  jwksFetches(from: number, to: number): number | null;
  /** The Connector's requests to the Bank during the run's window (client.* cases); null when the journal is off. */
  observed(): ObservedRequest[] | null;
  /** When a final status callback for this reference was answered 200 by the Connector (ms), or null. */
  finalDeliveredAt(reference: string): number | null;
  /** The reference the run asked the Connector to push for a client.* case. */
  clientOrderFor(caseId: string): string | null;
}

export interface ConformanceCase {
  info: CaseInfo;
  /** How many served orders the case needs of its own (callback cases). */
  orders: number;
  play(context: CaseContext, orders: ServedOrder[]): Promise<Judgement>;
}

export function defineCase(id: string, orders: number, play: ConformanceCase['play']): ConformanceCase {
  const found = caseInfo(id);
  if (!found) throw new Error(`${id} is not in the case catalogue (conformance/model.ts)`);
  return { info: found, orders, play };
}

// ---------------------------------------------------------------------------------------------------------------
// What cases say about answers

export const isClientError = (answer: Answer): boolean => answer.status !== null && answer.status >= 400 && answer.status < 500;

/** "200", "401 signature_invalid", or "no answer: ECONNRESET …". */
export function describeAnswer(answer: Answer): string {
  if (answer.status === null) return `no answer: ${answer.error ?? 'unknown error'}`;
  const json = answer.json as { code?: unknown; error?: unknown } | undefined;
  const code = typeof json?.code === 'string' ? json.code : typeof json?.error === 'string' ? json.error : null;
  return code ? `${answer.status} ${code}` : String(answer.status);
}

/** PASSED on a 4xx, FAILED otherwise: the shape of every "… is rejected" case. */
export function expectRejected(answer: Answer, what: string): Judgement {
  if (isClientError(answer)) return passed(`${what} answered ${describeAnswer(answer)}`);
  return failed(`${what} answered ${describeAnswer(answer)}`);
}

export function expectAccepted(answer: Answer, what: string): Judgement {
  if (answer.status === 200) return passed(`${what} answered 200`);
  return failed(`${what} answered ${describeAnswer(answer)}`);
}

/** A status object of contract 2.3 for one of the Connector's orders, reported by the run. */
export function statusFor(context: CaseContext, order: ServedOrder, status: WireStatus, variant: 'unit' | 'batch', reason: 'with' | 'without' = 'with'): Record<string, string> {
  const report: StatusReport = {
    reference: order.reference,
    bankReference: context.bankReference(order.reference),
    status,
    reasonCode: status === 'FAILED' ? 'BUS_REFUSED_BY_DEBTOR' : null,
    reasonMessage: status === 'FAILED' ? 'refused by the debtor (conformance run)' : null,
    processedAt: context.probe.now,
  };
  const body = statusObject(report, variant);
  if (reason === 'without') {
    delete body.reasonCode;
    delete body.reasonMessage;
  }
  return body;
}

/** A batch callback body of contract 2.5. */
export function batchBody(context: CaseContext, batchId: string, items: Record<string, string>[]): Record<string, unknown> {
  return { batch_id: batchId, sent_at: formatInstantSeconds(context.probe.now), orders: items };
}

/** A fresh idempotency key of the run (callbacks). */
export function runKey(context: CaseContext, what: string): string {
  return `CONF-${context.runId}-${what}-${Math.random().toString(36).slice(2, 10)}`;
}
