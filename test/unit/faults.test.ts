// Fault profiles' decisions (conformance.md section 4): seeded and reproducible, bounded where a fault would keep a
// message from ever getting through, and built from what a message reports rather than from random ids.
import {
  callbackAttemptFaults,
  callbackSubject,
  conflictingFinal,
  corruptedSignature,
  faultApplies,
  faultMark,
  faultProfileOf,
  faultRoll,
  finalReportsIn,
  MAX_FAULTED_ATTEMPTS,
  NO_FAULTS,
  passOrder,
  pullFaults,
} from '../../src/bank/domain/faults';
import { batchCallbackBody, unitCallbackBody } from '../../src/bank/domain/callbacks';
import { StatusReport } from '../../src/wire/status-object';

const AT = Date.parse('2026-11-22T10:15:30.123Z');

function report(reference: string, status: StatusReport['status'], reasonCode: string | null = null): StatusReport {
  return { reference, bankReference: `BNK-${reference}`, status, reasonCode, reasonMessage: reasonCode ? 'Insufficient balance on the debtor account' : null, processedAt: AT };
}

const subjects = Array.from({ length: 4000 }, (_, index) => `client|unit|ORD-${index}:SUCCESS`);

describe('faultRoll', () => {
  it('draws the same number for the same seed, fault, subject and attempt, in [0, 1)', () => {
    const first = subjects.map((subject) => faultRoll(7, 'drop', subject, 1));
    const again = subjects.map((subject) => faultRoll(7, 'drop', subject, 1));
    expect(again).toEqual(first);
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
  });

  it('draws unrelated numbers for another seed, fault or attempt', () => {
    const base = subjects.map((subject) => faultRoll(7, 'drop', subject, 1) < 0.5);
    const changed = [
      subjects.map((subject) => faultRoll(8, 'drop', subject, 1) < 0.5),
      subjects.map((subject) => faultRoll(7, 'duplicate', subject, 1) < 0.5),
      subjects.map((subject) => faultRoll(7, 'drop', subject, 2) < 0.5),
    ];
    for (const other of changed) {
      const same = other.filter((value, index) => value === base[index]).length / subjects.length;
      expect(same).toBeGreaterThan(0.45);
      expect(same).toBeLessThan(0.55);
    }
  });
});

describe('faultApplies', () => {
  it('follows the rate: never at 0, always at 1, about half the subjects at 0.5', () => {
    const at = (rate: number) => subjects.filter((subject) => faultApplies(faultProfileOf({ duplicate_rate: rate, seed: 3 }), 'duplicate', subject, 1)).length;
    expect(at(0)).toBe(0);
    expect(at(1)).toBe(subjects.length);
    expect(at(0.5) / subjects.length).toBeGreaterThan(0.46);
    expect(at(0.5) / subjects.length).toBeLessThan(0.54);
  });

  it('drops, bad signatures and 429s only the first attempts, so a message always gets through in the end', () => {
    const profile = faultProfileOf({ drop_rate: 1, bad_signature_rate: 1, status_429_rate: 1, duplicate_rate: 1 });
    for (const kind of ['drop', 'bad_signature', 'status_429'] as const) {
      expect([kind, faultApplies(profile, kind, 's', MAX_FAULTED_ATTEMPTS)]).toEqual([kind, true]);
      expect([kind, faultApplies(profile, kind, 's', MAX_FAULTED_ATTEMPTS + 1)]).toEqual([kind, false]);
    }
    // A duplicate never keeps a message from arriving: it is not bounded.
    expect(faultApplies(profile, 'duplicate', 's', 50)).toBe(true);
  });
});

describe('the faults of one attempt', () => {
  it('a dropped attempt is only dropped: nothing is sent, so nothing is delayed, corrupted or repeated', () => {
    const faults = callbackAttemptFaults(faultProfileOf({ drop_rate: 1, duplicate_rate: 1, bad_signature_rate: 1, delay_ms: 500 }), 's', 1);
    expect(faults).toEqual({ drop: true, badSignature: false, duplicate: false, delayMs: 0, marks: ['drop'] });
  });

  it('marks what the journal shows: a delay, a bad signature, a reordered message (the duplicate is marked on its copy)', () => {
    const faults = callbackAttemptFaults(faultProfileOf({ duplicate_rate: 1, bad_signature_rate: 1, delay_ms: 500 }), 's', 1, true);
    expect(faults).toEqual({ drop: false, badSignature: true, duplicate: true, delayMs: 500, marks: ['reorder', 'delay', 'bad_signature'] });
    expect(faultMark(faults.marks)).toBe('reorder,delay,bad_signature');
    expect(faultMark([])).toBeUndefined();
  });

  it('no profile, no fault', () => {
    expect(callbackAttemptFaults(NO_FAULTS, 's', 1)).toEqual({ drop: false, badSignature: false, duplicate: false, delayMs: 0, marks: [] });
  });

  it('a pull is never dropped or delayed: it can only be repeated or badly signed', () => {
    const faults = pullFaults(faultProfileOf({ drop_rate: 1, delay_ms: 500, duplicate_rate: 1, bad_signature_rate: 1 }), 'pull', 1);
    expect(faults).toEqual({ drop: false, badSignature: true, duplicate: true, delayMs: 0, marks: ['bad_signature'] });
  });
});

describe('passOrder', () => {
  const messages = ['a', 'b', 'c', 'd', 'e'];
  it('at rate 1 swaps each adjacent pair once; the last odd one stays', () => {
    const pass = passOrder(faultProfileOf({ reorder_rate: 1 }), messages, (m) => m, () => 1);
    expect(pass.order).toEqual(['b', 'a', 'd', 'c', 'e']);
    expect([...pass.moved].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('at rate 0 keeps the order, and the same seed always reorders the same way', () => {
    expect(passOrder(NO_FAULTS, messages, (m) => m, () => 1)).toEqual({ order: messages, moved: new Set() });
    const many = Array.from({ length: 40 }, (_, index) => `m${index}`);
    const profile = faultProfileOf({ reorder_rate: 0.5, seed: 11 });
    const first = passOrder(profile, many, (m) => m, () => 1).order;
    expect(passOrder(profile, many, (m) => m, () => 1).order).toEqual(first);
    expect(first).not.toEqual(many);
    expect([...first].sort()).toEqual([...many].sort());
  });
});

describe('corruptedSignature', () => {
  it('changes the signature of a detached JWS, and only that', () => {
    for (const jws of ['eyJhbGciOiJFUzI1NiJ9..AAAA', 'eyJhbGciOiJFUzI1NiJ9..QUJD']) {
      const corrupted = corruptedSignature(jws);
      expect(corrupted).not.toBe(jws);
      expect(corrupted.split('.').slice(0, 2)).toEqual(jws.split('.').slice(0, 2));
      expect(corrupted.length).toBe(jws.length);
    }
  });
});

describe('subjects and finals of a callback', () => {
  it('a subject names the client and what is reported, in a stable order (no bank reference, no batch id)', () => {
    const unit = Buffer.from(JSON.stringify(unitCallbackBody(report('ORD-1', 'SUCCESS'))));
    expect(callbackSubject('acme', 'unit', unit)).toBe('acme|unit|ORD-1:SUCCESS');
    const batchOne = JSON.stringify(batchCallbackBody('batch-1', AT, [report('B', 'FAILED', 'BUS_INSUFFICIENT_FUNDS'), report('A', 'SUCCESS')]));
    const batchTwo = JSON.stringify(batchCallbackBody('batch-2', AT + 5, [report('A', 'SUCCESS'), report('B', 'FAILED', 'BUS_INSUFFICIENT_FUNDS')]));
    expect(callbackSubject('acme', 'batch', batchOne)).toBe('acme|batch|A:SUCCESS,B:FAILED');
    expect(callbackSubject('acme', 'batch', batchTwo)).toBe(callbackSubject('acme', 'batch', batchOne));
  });

  it('reads the finals a message carried, from unit and batch bodies, and skips PENDING', () => {
    const unit = JSON.stringify(unitCallbackBody(report('ORD-1', 'FAILED', 'BUS_INSUFFICIENT_FUNDS')));
    expect(finalReportsIn('unit', unit)).toEqual([report('ORD-1', 'FAILED', 'BUS_INSUFFICIENT_FUNDS')]);
    const batch = JSON.stringify(batchCallbackBody('batch-1', AT, [report('A', 'SUCCESS'), report('B', 'PENDING')]));
    expect(finalReportsIn('batch', batch)).toEqual([report('A', 'SUCCESS')]);
    expect(finalReportsIn('unit', 'not json')).toEqual([]);
  });

  it('the conflicting final is the opposite one: FAILED with a reason code for SUCCESS, SUCCESS without reason for FAILED', () => {
    expect(conflictingFinal(report('A', 'SUCCESS'))).toEqual({ ...report('A', 'SUCCESS'), status: 'FAILED', reasonCode: 'BUS_NOT_SPECIFIED', reasonMessage: 'Reason not specified' });
    expect(conflictingFinal(report('A', 'FAILED', 'BUS_INSUFFICIENT_FUNDS'))).toEqual(report('A', 'SUCCESS'));
  });
});
