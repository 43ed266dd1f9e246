// The conformance suite's vocabulary (conformance.md): the fixed case ids, what each checks and against which
// clause, and the shape of a run and its results. Pure: the engine, the API, the reports and the CLI share it.

export type Verdict = 'PASSED' | 'FAILED' | 'WARNING' | 'SKIPPED';
export type CaseGroup = 'pull' | 'unit' | 'batch' | 'transport' | 'client';

export const GROUPS: readonly CaseGroup[] = ['pull', 'unit', 'batch', 'transport', 'client'];

export interface CaseInfo {
  id: string;
  group: CaseGroup;
  /** The contract or profile clause the case checks. */
  clause: string;
  /** What the Bank sends (or observes), in the words of conformance.md section 3. */
  sends: string;
  /** When the case passes. */
  expected: string;
}

const info = (id: string, clause: string, sends: string, expected: string): CaseInfo => ({ id, group: id.split('.')[0] as CaseGroup, clause, sends, expected });

/** Every case, in the order a run plays and reports them. The ids are fixed: reports and people's CI depend on them. */
export const CASES: readonly CaseInfo[] = [
  info('pull.signed_request_accepted', 'contract 4.2.1, profile 1', 'a correct signed pull with a valid token', '200 with a page envelope that passes the schema, or 204'),
  info('pull.page_respects_limit', 'contract 4.2.1', 'pulls with limit=1 and limit=2', 'never more orders than limit'),
  info('pull.cursor_is_a_minimum', 'contract 4.2.1', 'a pull with offset = an initiated_at seen on a page', 'every order returned has initiated_at >= offset, ascending; the orders initiated exactly at offset come back (it is inclusive)'),
  info('pull.unsigned_rejected', 'profile 1', 'the same request without X-Signature', '4xx'),
  info('pull.bad_signature_rejected', 'profile 1', 'a signature over another base (one header changed after signing)', '4xx'),
  info('pull.missing_token_rejected', 'profile 3', 'no Authorization', '401'),
  info('pull.stale_timestamp_rejected', 'profile 2', 'X-Timestamp 10 minutes old, correctly signed', '4xx'),
  info('pull.replayed_nonce_rejected', 'profile 2', 'a correct request sent twice with the same nonce', 'first 200/204, second 4xx'),
  info('unit.valid_callback_accepted', 'contract 4.2.2, 2.3', 'a correct signed SUCCESS callback', '200'),
  info('unit.redelivery_same_key_accepted', 'contract 4.2.4, profile 6', 'the same callback again: same key and body, new nonce and timestamp', '200 (idempotent)'),
  info('unit.bad_signature_rejected', 'profile 1', 'the body changed after signing', '4xx'),
  info('unit.alg_none_rejected', 'profile 1', 'a JWS with alg: none', '4xx'),
  info('unit.unknown_kid_rejected', 'profile 1', 'a JWS by a key that is in no JWKS of the Bank', '4xx, after at most one JWKS refetch'),
  info('unit.rotated_key_accepted', 'profile 1', "a JWS by a new Bank key added to the JWKS after the Connector's last fetch", '200 (the Connector refetches the JWKS on an unknown kid)'),
  info('unit.stale_timestamp_rejected', 'profile 2', 'X-Timestamp 10 minutes old, correctly signed', '4xx'),
  info('unit.replayed_nonce_rejected', 'profile 2', 'an earlier accepted request, byte for byte', '4xx'),
  info('unit.missing_header_rejected', 'profile 1', 'no X-Idempotency-Key (signed without it)', '4xx'),
  info('unit.failed_without_reason_rejected', 'contract 2.3, profile 7', 'FAILED with no reasonCode', '4xx'),
  info('unit.final_status_not_changed', 'contract 3', 'after SUCCESS was accepted, FAILED for the same order under a new key', '4xx (200 is WARNING: the contract forbids the change, not the answer)'),
  info('unit.pending_then_final_accepted', 'contract 3, 4.2.2', 'PENDING, then SUCCESS, for one order', '200, 200'),
  info('batch.valid_batch_accepted', 'contract 4.2.3, 2.5', 'a correct signed batch of 3', '200'),
  info('batch.redelivery_same_bytes_accepted', 'contract 4.2.4, profile 6', 'the same batch again, same bytes and key', '200'),
  info('batch.invalid_item_rejects_whole_batch', 'contract 2.5', 'a batch of 3 in which one item is FAILED without reasonCode', '4xx; then the 2 valid items in a new batch are 200'),
  info('batch.batch_id_must_match_key', 'contract 2.5', 'batch_id different from X-Idempotency-Key', '4xx'),
  info('batch.bad_signature_rejected', 'profile 1', 'the body changed after signing', '4xx'),
  info('transport.client_certificate_required', 'contract 5, profile 4', 'connects with no client certificate', 'the TLS handshake or the request is refused'),
  info('transport.foreign_ca_refused', 'contract 5, profile 4', 'connects with a certificate from another CA, CN = the Bank', 'refused'),
  info('client.create_signed_correctly', 'contract 4.1.1, profile 1-2', "the Connector's create requests", 'all verify; none refused for timestamp, nonce or signature'),
  info('client.retry_reuses_idempotency_key', 'profile 6, 8 (FAIL_ONCE)', 'a create answered 500 once by the run', 'the retry has the same key and body'),
  info('client.polls_with_backoff', 'contract 8', 'status polls of an order the run keeps PENDING', 'intervals never shrink, and grow at least once'),
  info('client.honours_retry_after', 'profile 5 (rate_limited), 8 (POLL_429)', 'a poll answered 429 with Retry-After: 2', 'no poll of that order before 2 s'),
  info('client.stops_after_404', 'contract 4.1.2, 8', 'an order the run answers 404', 'no poll of it afterwards'),
  info('client.stops_after_final', 'contract 3, 8', 'an order that became final', 'no poll of it afterwards'),
];

/**
 * The run's window for the client.* cases, in seconds, as POST /sandbox/conformance-runs accepts it
 * (schemas/control/conformance-run-start.schema.json); the CLI checks --window-s against it before any request.
 */
export const WINDOW_S = { min: 1, max: 600 } as const;

const BY_ID = new Map(CASES.map((one) => [one.id, one]));

export function caseInfo(id: string): CaseInfo | undefined {
  return BY_ID.get(id);
}

/** One request of a case and its answer, as the reports show it (secrets already masked). */
export interface RecordedExchange {
  /** What the exchange is, in the case's words ("pull with limit=1", "the same callback again"). */
  label: string;
  /** out: the Bank called the Connector; in: the Connector called the Bank (client.* cases, from the journal). */
  direction: 'out' | 'in';
  /** RFC 3339 UTC. */
  at: string;
  method: string;
  url: string;
  request: { headers: Record<string, string | string[]>; body: string; truncated: boolean };
  /** The decoded protected header of X-Signature, when the request has one that decodes. */
  jwsHeader: Record<string, unknown> | null;
  /** The signature base the sender signed (or would have signed), when the request is signed. */
  signatureBase: string | null;
  /** null when no HTTP answer came back. */
  response: { status: number | null; headers: Record<string, string | string[]>; body: string; truncated: boolean } | null;
  /** Network error, time-out or body limit, when the exchange has no complete answer. */
  error: string | null;
  latencyMs: number;
  /** A curl command that replays the request (secrets as placeholders). */
  curl: string;
  /** The journal entry of this exchange, when the journal is on. */
  journalId: number | null;
  /** The misbehaviour the Bank applied on purpose ("body changed after signing"), or null for a correct request. */
  misbehaviour: string | null;
}

export interface CaseResult {
  id: string;
  group: CaseGroup;
  clause: string;
  verdict: Verdict;
  /** What the case expected and what it saw: the failure message is `<clause>: <expected> / <seen>`. */
  expected: string;
  seen: string;
  /** Why a case was SKIPPED, or what went the risky way for a WARNING. */
  reason: string | null;
  /** RFC 3339 UTC. */
  startedAt: string;
  durationMs: number;
  exchanges: RecordedExchange[];
}

/** An order the Connector is asked to push during a run (client.* cases). */
export interface ClientOrder {
  reference: string;
  sandbox_scenario: string;
  /** Which case watches it. */
  case: string;
  /** A complete payment order (contract 2.1) with that reference and scenario, ready to push as is. */
  order: Record<string, unknown>;
}

export type RunState = 'running' | 'finished' | 'aborted';

export interface RunSummary {
  total: number;
  passed: number;
  failed: number;
  warning: number;
  skipped: number;
}

export interface ConformanceRun {
  id: string;
  clientId: string;
  state: RunState;
  /** RFC 3339 UTC. */
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  bankVersion: string;
  /** The Connector's base URL the run played against. */
  connectorUrl: string | null;
  /** The case ids planned, in run order. */
  cases: string[];
  /** Finished cases, in the order of `cases` once the run is over. */
  results: CaseResult[];
  clientOrders: ClientOrder[];
  /** How long the run watches the Connector's own requests (client.* cases), in seconds. */
  windowS: number;
  /** Why an aborted run could not finish. */
  error: string | null;
}

export function summarise(results: readonly CaseResult[]): RunSummary {
  const count = (verdict: Verdict) => results.filter((result) => result.verdict === verdict).length;
  return { total: results.length, passed: count('PASSED'), failed: count('FAILED'), warning: count('WARNING'), skipped: count('SKIPPED') };
}

/** The failure message of JUnit and the CLI: `<clause>: <expected> / <seen>`. */
export function failureMessage(result: CaseResult): string {
  return `${result.clause}: ${result.expected} / ${result.seen}`;
}
