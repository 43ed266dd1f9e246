// Fault profiles (conformance.md section 4): the misbehaviours the Bank injects, on request, into what it sends a
// client and the status answers it gives it. Pure: every decision is a function of the profile's seed, the fault,
// a stable subject (who and what the message reports, never a random id) and the attempt number, so two runs with
// the same seed and the same orders inject exactly the same faults.
import { createHmac } from 'node:crypto';
import { REASON_CODES } from '../../wire/reason-codes';
import { parseInstant } from '../../wire/rfc3339';
import { StatusReport, UNSPECIFIED_REASON } from '../../wire/status-object';

/** A client's profile as PUT /sandbox/clients/{id}/faults stores it (schemas/control/faults.schema.json). */
export interface FaultProfile {
  duplicate_rate: number;
  reorder_rate: number;
  delay_ms: number;
  drop_rate: number;
  bad_signature_rate: number;
  conflicting_final_rate: number;
  status_429_rate: number;
  seed: number;
}

export type FaultKind = 'drop' | 'duplicate' | 'delay' | 'reorder' | 'bad_signature' | 'conflicting_final' | 'status_429';

/** The kinds decided by a rate (delay is not: delay_ms applies to every callback attempt). */
export type RatedFault = Exclude<FaultKind, 'delay'>;

export const NO_FAULTS: Readonly<FaultProfile> = Object.freeze({
  duplicate_rate: 0,
  reorder_rate: 0,
  delay_ms: 0,
  drop_rate: 0,
  bad_signature_rate: 0,
  conflicting_final_rate: 0,
  status_429_rate: 0,
  seed: 0,
});

const RATE_OF: Readonly<Record<RatedFault, keyof FaultProfile>> = {
  drop: 'drop_rate',
  duplicate: 'duplicate_rate',
  reorder: 'reorder_rate',
  bad_signature: 'bad_signature_rate',
  conflicting_final: 'conflicting_final_rate',
  status_429: 'status_429_rate',
};

/**
 * Faults that keep a message (or an answer) from getting through apply only to its first attempts: from attempt
 * MAX_FAULTED_ATTEMPTS + 1 on, a callback is sent correctly signed and a status poll is answered, so a dropped
 * callback is always delivered later (within the retry schedule), whatever the rate.
 */
export const MAX_FAULTED_ATTEMPTS = 3;
const BLOCKING: ReadonlySet<RatedFault> = new Set(['drop', 'bad_signature', 'status_429']);

/** The profile a request makes: absent members are 0 (a PUT replaces the whole profile). */
export function faultProfileOf(input: Partial<FaultProfile>): FaultProfile {
  return { ...NO_FAULTS, ...input };
}

/**
 * A uniform number in [0, 1) drawn from the seed, the fault, the subject and the attempt: the first 48 bits of
 * HMAC-SHA256 keyed by the seed. The same inputs always draw the same number; any change draws an unrelated one.
 */
export function faultRoll(seed: number, kind: FaultKind, subject: string, attempt: number): number {
  const digest = createHmac('sha256', `fault-seed:${seed}`).update(`${kind}\n${subject}\n${attempt}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** Whether `kind` is injected into this attempt on this subject. */
export function faultApplies(profile: FaultProfile, kind: RatedFault, subject: string, attempt: number): boolean {
  const rate = profile[RATE_OF[kind]];
  if (rate <= 0) return false;
  if (BLOCKING.has(kind) && attempt > MAX_FAULTED_ATTEMPTS) return false;
  return faultRoll(profile.seed, kind, subject, attempt) < rate;
}

/** What is done to one callback attempt or one pull. `marks` are the faults its journal entry names. */
export interface AttemptFaults {
  /** Not sent at all: recorded as a failed attempt and retried on the normal schedule (callbacks only). */
  drop: boolean;
  /** Sent with a signature that does not verify. */
  badSignature: boolean;
  /** Sent a second time right after, same key and body, fresh X-Timestamp and X-Nonce. */
  duplicate: boolean;
  /** Milliseconds to wait before sending (callbacks only). */
  delayMs: number;
  marks: FaultKind[];
}

export const CLEAN_ATTEMPT: Readonly<AttemptFaults> = Object.freeze({ drop: false, badSignature: false, duplicate: false, delayMs: 0, marks: [] });

/**
 * The faults of one callback attempt. A dropped attempt is only dropped (nothing is sent, so nothing is delayed,
 * corrupted or repeated); `reordered` says the pass moved this message (marked, decided by passOrder).
 */
export function callbackAttemptFaults(profile: FaultProfile, subject: string, attempt: number, reordered = false): AttemptFaults {
  const reorder: FaultKind[] = reordered ? ['reorder'] : [];
  if (faultApplies(profile, 'drop', subject, attempt)) return { ...CLEAN_ATTEMPT, drop: true, marks: [...reorder, 'drop'] };
  const faults: AttemptFaults = {
    drop: false,
    badSignature: faultApplies(profile, 'bad_signature', subject, attempt),
    duplicate: faultApplies(profile, 'duplicate', subject, attempt),
    delayMs: profile.delay_ms,
    marks: [...reorder],
  };
  if (faults.delayMs > 0) faults.marks.push('delay');
  if (faults.badSignature) faults.marks.push('bad_signature');
  return faults;
}

/** The faults of one pull request: duplicate and bad_signature (a dropped or delayed pull would only be a slower schedule). */
export function pullFaults(profile: FaultProfile, subject: string, attempt: number): AttemptFaults {
  const faults: AttemptFaults = {
    ...CLEAN_ATTEMPT,
    badSignature: faultApplies(profile, 'bad_signature', subject, attempt),
    duplicate: faultApplies(profile, 'duplicate', subject, attempt),
    marks: [],
  };
  if (faults.badSignature) faults.marks.push('bad_signature');
  return faults;
}

/** The journal's `fault` value for one exchange: its faults in the order they were applied, comma-separated. */
export function faultMark(marks: readonly FaultKind[]): string | undefined {
  return marks.length === 0 ? undefined : marks.join(',');
}

/**
 * The order a dispatch pass sends its messages in: walking the pass, a message whose reorder roll hits swaps
 * places with the next one (each message moves at most once). Two reports of one order are never in the same
 * pass (the outbox holds a later report back until the earlier is delivered), so this never reorders one order.
 * Answers the new order and the messages moved.
 */
export function passOrder<T>(profile: FaultProfile, messages: readonly T[], subjectOf: (message: T) => string, attemptOf: (message: T) => number): { order: T[]; moved: Set<T> } {
  const order = [...messages];
  const moved = new Set<T>();
  if (profile.reorder_rate <= 0) return { order, moved };
  for (let index = 0; index + 1 < order.length; index += 1) {
    const message = order[index];
    if (!faultApplies(profile, 'reorder', subjectOf(message), attemptOf(message))) continue;
    order[index] = order[index + 1];
    order[index + 1] = message;
    moved.add(message).add(order[index]);
    index += 1;
  }
  return { order, moved };
}

/** Corrupts a detached JWS (`header..signature`) so it no longer verifies: the first signature character changes. */
export function corruptedSignature(jws: string): string {
  const cut = jws.lastIndexOf('.') + 1;
  if (cut === 0 || cut >= jws.length) return `${jws}A`;
  const first = jws[cut];
  return `${jws.slice(0, cut)}${first === 'A' ? 'B' : 'A'}${jws.slice(cut + 1)}`;
}

type StatusItem = Record<string, unknown>;

/** The status objects a callback body carries: a unit body, or a batch's `orders`. Unreadable bodies carry none. */
function itemsOf(kind: 'unit' | 'batch', body: Buffer | string): StatusItem[] {
  try {
    const parsed = JSON.parse(body.toString()) as unknown;
    if (kind === 'unit') return parsed && typeof parsed === 'object' ? [parsed as StatusItem] : [];
    const orders = (parsed as { orders?: unknown })?.orders;
    return Array.isArray(orders) ? orders.filter((item): item is StatusItem => item !== null && typeof item === 'object') : [];
  } catch {
    return [];
  }
}

/**
 * What a callback message reports, as a stable subject for the decisions: `reference:STATUS` of each item,
 * sorted. Idempotency keys are no use here: a bank reference and a batch id are random, so they differ between
 * two runs of the same orders.
 */
export function callbackSubject(clientId: string, kind: 'unit' | 'batch', body: Buffer | string): string {
  const reports = itemsOf(kind, body).map((item) => `${String(item.reference)}:${String(item.status)}`).sort();
  return `${clientId}|${kind}|${reports.join(',')}`;
}

/** The final reports a delivered callback carried (a unit body, or every final item of a batch). */
export function finalReportsIn(kind: 'unit' | 'batch', body: Buffer | string): StatusReport[] {
  const reports: StatusReport[] = [];
  for (const item of itemsOf(kind, body)) {
    const status = item.status;
    if (status !== 'SUCCESS' && status !== 'FAILED') continue;
    if (typeof item.reference !== 'string' || typeof item.bank_reference !== 'string') continue;
    const processedAt = parseInstant(item.processed_at ?? item.timestamp);
    reports.push({
      reference: item.reference,
      bankReference: item.bank_reference,
      status,
      reasonCode: typeof item.reasonCode === 'string' ? item.reasonCode : null,
      reasonMessage: typeof item.reasonMessage === 'string' ? item.reasonMessage : null,
      processedAt: processedAt ?? 0,
    });
  }
  return reports;
}

/** The opposite final of a report (SUCCESS becomes FAILED with a reason code, FAILED becomes SUCCESS). */
export function conflictingFinal(report: StatusReport): StatusReport {
  if (report.status === 'SUCCESS') {
    return { ...report, status: 'FAILED', reasonCode: UNSPECIFIED_REASON, reasonMessage: REASON_CODES[UNSPECIFIED_REASON].message };
  }
  return { ...report, status: 'SUCCESS', reasonCode: null, reasonMessage: null };
}
