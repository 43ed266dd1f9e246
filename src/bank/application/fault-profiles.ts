// Fault profiles as a use case (conformance.md section 4): a client's stored profile, kept in memory for the
// senders to consult on every message, and the decisions they ask for. The decisions themselves are the
// domain's (domain/faults.ts, seeded and reproducible); this adds what they need to be counted (the n-th pull of
// one page, the n-th poll of one order) and logs every fault injected.
import type { Logger } from 'winston';
import { Clock } from '../../wire/clock';
import {
  AttemptFaults,
  callbackAttemptFaults,
  callbackSubject,
  CLEAN_ATTEMPT,
  conflictingFinal,
  faultApplies,
  FaultKind,
  FaultProfile,
  faultProfileOf,
  finalReportsIn,
  passOrder,
  pullFaults,
} from '../domain/faults';
import { StatusReport } from '../../wire/status-object';
import { ClientFaultRepository } from '../store/client-faults';
import { CallbackRow } from '../store/outbox';

export interface StoredProfile {
  profile: FaultProfile;
  updatedAt: number;
}

/** Orders whose polls are counted per client; past this the count starts over (memory stays bounded). */
const MAX_COUNTED_ORDERS = 10_000;

/** A callback message as the decisions see it (what it reports, and how many attempts it has had). */
type Message = Pick<CallbackRow, 'id' | 'clientId' | 'kind' | 'body' | 'attempts'>;

export class FaultProfiles {
  private readonly profiles = new Map<string, StoredProfile>();
  /** Per client: the last pull's subject (status, limit, offset) and how many times it was sent in a row. */
  private readonly pulls = new Map<string, { subject: string; count: number }>();
  /** Per client: how many times each order id was polled since the profile was set. */
  private readonly polls = new Map<string, Map<string, number>>();

  constructor(
    private readonly repo: ClientFaultRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.reload();
  }

  /** Reads every stored profile again (at start, and after a reset deleted some); counts start over. */
  reload(): void {
    this.profiles.clear();
    this.pulls.clear();
    this.polls.clear();
    for (const row of this.repo.all()) {
      try {
        this.profiles.set(row.clientId, { profile: faultProfileOf(JSON.parse(row.profile) as Partial<FaultProfile>), updatedAt: row.updatedAt });
      } catch (error) {
        this.logger.warn('a stored fault profile is unreadable and is ignored', { client_id: row.clientId, error: (error as Error).message });
      }
    }
  }

  get(clientId: string): StoredProfile | null {
    return this.profiles.get(clientId) ?? null;
  }

  /** Stores a client's profile, replacing any earlier one (absent members are 0); its counts start over. */
  set(clientId: string, input: Partial<FaultProfile>): StoredProfile {
    const stored = { profile: faultProfileOf(input), updatedAt: this.clock.now() };
    this.repo.save({ clientId, profile: JSON.stringify(stored.profile), updatedAt: stored.updatedAt });
    this.profiles.set(clientId, stored);
    this.forgetCounts(clientId);
    this.logger.info('fault profile set', { client_id: clientId, ...stored.profile });
    return stored;
  }

  /** Removes a client's profile; false when it had none. */
  clear(clientId: string): boolean {
    const removed = this.repo.remove(clientId) > 0;
    this.profiles.delete(clientId);
    this.forgetCounts(clientId);
    if (removed) this.logger.info('fault profile removed', { client_id: clientId });
    return removed;
  }

  /** Deletes one client's stored profile (or everyone's) inside the caller's transaction; call forgotten() once it committed. */
  deleteStored(clientId: string | null): number {
    return this.repo.remove(clientId);
  }

  /** After deleteStored committed: the profile (or every profile) and its counts leave memory too. */
  forgotten(clientId: string | null): void {
    if (clientId === null) return this.reload();
    this.profiles.delete(clientId);
    this.forgetCounts(clientId);
  }

  /** The order a dispatch pass sends one client's due messages in, and the messages it moved (reorder). */
  passOrder<T extends Message>(clientId: string, due: readonly T[]): { order: T[]; moved: Set<T> } {
    const profile = this.profiles.get(clientId)?.profile;
    if (!profile) return { order: [...due], moved: new Set() };
    const pass = passOrder(profile, due, subjectOf, (message) => message.attempts + 1);
    for (const message of pass.moved) this.injected(clientId, 'reorder', subjectOf(message), message.attempts + 1);
    return pass;
  }

  /** What is done to the next attempt of a callback message. */
  forCallbackAttempt(message: Message, reordered = false): AttemptFaults {
    const profile = this.profiles.get(message.clientId)?.profile;
    if (!profile) return CLEAN_ATTEMPT;
    const subject = subjectOf(message);
    const attempt = message.attempts + 1;
    const faults = callbackAttemptFaults(profile, subject, attempt, reordered);
    for (const kind of faults.marks) if (kind !== 'reorder') this.injected(message.clientId, kind, subject, attempt);
    if (faults.duplicate) this.injected(message.clientId, 'duplicate', subject, attempt);
    return faults;
  }

  /** After a message was delivered: the conflicting finals to send for the finals it carried (never stored). */
  conflictingFinals(message: Message): StatusReport[] {
    const profile = this.profiles.get(message.clientId)?.profile;
    if (!profile || profile.conflicting_final_rate <= 0) return [];
    const conflicts: StatusReport[] = [];
    for (const report of finalReportsIn(message.kind, message.body)) {
      const subject = `${message.clientId}|final|${report.reference}:${report.status}`;
      if (!faultApplies(profile, 'conflicting_final', subject, 1)) continue;
      this.injected(message.clientId, 'conflicting_final', subject, 1);
      conflicts.push(conflictingFinal(report));
    }
    return conflicts;
  }

  /** What is done to a pull; the same page asked again (a retry) counts as its next attempt. */
  forPull(clientId: string, status: string, limit: number, offset: string): AttemptFaults {
    const profile = this.profiles.get(clientId)?.profile;
    if (!profile) return CLEAN_ATTEMPT;
    const subject = `${clientId}|pull|${status}|${limit}|${offset}`;
    const last = this.pulls.get(clientId);
    const count = last?.subject === subject ? last.count + 1 : 1;
    this.pulls.set(clientId, { subject, count });
    const faults = pullFaults(profile, subject, count);
    if (faults.badSignature) this.injected(clientId, 'bad_signature', subject, count);
    if (faults.duplicate) this.injected(clientId, 'duplicate', subject, count);
    return faults;
  }

  /** Whether this status poll is answered 429 (status_429_rate); each poll of an order counts as its next attempt. */
  throttlesPoll(clientId: string, orderId: string): boolean {
    const profile = this.profiles.get(clientId)?.profile;
    if (!profile || profile.status_429_rate <= 0) return false;
    let counts = this.polls.get(clientId);
    if (!counts || counts.size >= MAX_COUNTED_ORDERS) {
      counts = new Map();
      this.polls.set(clientId, counts);
    }
    const count = (counts.get(orderId) ?? 0) + 1;
    counts.set(orderId, count);
    const subject = `${clientId}|poll|${orderId}`;
    if (!faultApplies(profile, 'status_429', subject, count)) return false;
    this.injected(clientId, 'status_429', subject, count);
    return true;
  }

  private forgetCounts(clientId: string): void {
    this.pulls.delete(clientId);
    this.polls.delete(clientId);
  }

  private injected(clientId: string, fault: FaultKind, subject: string, attempt: number): void {
    this.logger.info('fault injected', { client_id: clientId, fault, subject, attempt });
  }
}

function subjectOf(message: Message): string {
  return callbackSubject(message.clientId, message.kind, message.body);
}
