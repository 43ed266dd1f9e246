// What the Bank reports by callback (profile sections 6 and 8): how many copies of each status change, the unit
// idempotency key, the exact bodies, and when a failed delivery is tried again.
import { batchCallbackBody, nextAttemptAt, ReportableOrder, reportCopies, RetryPolicy, unitCallbackBody, unitIdempotencyKey } from '../../src/bank/domain/callbacks';
import { OrderStatus, StatusChange } from '../../src/bank/domain/order-state';

const AT = Date.parse('2026-11-22T10:15:30.123Z');

function change(from: OrderStatus | null, to: OrderStatus): StatusChange {
  return { from, to, reasonCode: to === 'FAILED' ? 'BUS_INSUFFICIENT_FUNDS' : null, reasonMessage: to === 'FAILED' ? 'Insufficient balance on the debtor account' : null, at: AT };
}

describe('reportCopies', () => {
  const sources: ReportableOrder['source'][] = ['push', 'pull'];
  const modes: ReportableOrder['callbacks'][] = ['normal', 'none', 'duplicate'];
  const changes: [OrderStatus | null, OrderStatus][] = [
    [null, 'PENDING'],
    [null, 'SUCCESS'],
    [null, 'FAILED'],
    ['PENDING', 'SUCCESS'],
    ['PENDING', 'FAILED'],
  ];

  it('the whole table (source x callbacks x change x reportPending)', () => {
    const table: Record<string, number> = {};
    for (const source of sources) {
      for (const callbacks of modes) {
        for (const [from, to] of changes) {
          for (const reportPending of [false, true]) {
            table[`${source} ${callbacks} ${from ?? 'new'}->${to}${reportPending ? ' +pending' : ''}`] = reportCopies({ source, callbacks }, change(from, to), reportPending);
          }
        }
      }
    }
    const expected: Record<string, number> = {};
    for (const source of sources) {
      for (const callbacks of modes) {
        for (const [from, to] of changes) {
          for (const reportPending of [false, true]) {
            let copies: number;
            if (callbacks === 'none') copies = 0; // NO_CALLBACK: never
            else if (to === 'PENDING') copies = reportPending ? 1 : 0; // PENDING on entry, only when asked
            else if (from === null && source === 'push') copies = 0; // answered synchronously (200)
            else copies = callbacks === 'duplicate' ? 2 : 1;
            expected[`${source} ${callbacks} ${from ?? 'new'}->${to}${reportPending ? ' +pending' : ''}`] = copies;
          }
        }
      }
    }
    expect(table).toEqual(expected);
  });

  it('spot checks: a pushed order decided at once is not called back; a pulled one is', () => {
    expect(reportCopies({ source: 'push', callbacks: 'normal' }, change(null, 'SUCCESS'), false)).toBe(0);
    expect(reportCopies({ source: 'pull', callbacks: 'normal' }, change(null, 'SUCCESS'), false)).toBe(1);
    expect(reportCopies({ source: 'pull', callbacks: 'normal' }, change(null, 'FAILED'), true)).toBe(1);
  });

  it('spot checks: a deferred final is reported once, twice for DUPLICATE_CALLBACK, never for NO_CALLBACK', () => {
    expect(reportCopies({ source: 'push', callbacks: 'normal' }, change('PENDING', 'SUCCESS'), false)).toBe(1);
    expect(reportCopies({ source: 'push', callbacks: 'duplicate' }, change('PENDING', 'SUCCESS'), false)).toBe(2);
    expect(reportCopies({ source: 'push', callbacks: 'none' }, change('PENDING', 'SUCCESS'), true)).toBe(0);
  });

  it('spot checks: PENDING is reported once even for DUPLICATE_CALLBACK, and only with reportPending', () => {
    expect(reportCopies({ source: 'push', callbacks: 'duplicate' }, change(null, 'PENDING'), true)).toBe(1);
    expect(reportCopies({ source: 'push', callbacks: 'duplicate' }, change(null, 'PENDING'), false)).toBe(0);
    expect(reportCopies({ source: 'pull', callbacks: 'none' }, change(null, 'PENDING'), true)).toBe(0);
  });
});

describe('unitIdempotencyKey', () => {
  it('is <bank_reference>-<status>, the same on every call', () => {
    expect(unitIdempotencyKey('SBK-0001', 'SUCCESS')).toBe('SBK-0001-SUCCESS');
    expect(unitIdempotencyKey('SBK-0001', 'SUCCESS')).toBe(unitIdempotencyKey('SBK-0001', 'SUCCESS'));
  });

  it('differs per status and per order', () => {
    const keys = new Set([unitIdempotencyKey('SBK-0001', 'PENDING'), unitIdempotencyKey('SBK-0001', 'SUCCESS'), unitIdempotencyKey('SBK-0001', 'FAILED'), unitIdempotencyKey('SBK-0002', 'SUCCESS')]);
    expect(keys.size).toBe(4);
  });
});

describe('callback bodies', () => {
  const success = { reference: 'ORD-1', bankReference: 'SBK-0001', status: 'SUCCESS' as const, reasonCode: null, reasonMessage: null, processedAt: AT };
  const failed = { ...success, reference: 'ORD-2', bankReference: 'SBK-0002', status: 'FAILED' as const, reasonCode: 'BUS_ACCOUNT_CLOSED', reasonMessage: 'Account closed' };

  it('unit: the 2.3 object with processed_at, bytes as written', () => {
    expect(JSON.stringify(unitCallbackBody(success))).toBe('{"reference":"ORD-1","bank_reference":"SBK-0001","status":"SUCCESS","processed_at":"2026-11-22T10:15:30.123Z"}');
    expect(JSON.stringify(unitCallbackBody(failed))).toBe(
      '{"reference":"ORD-2","bank_reference":"SBK-0002","status":"FAILED","reasonCode":"BUS_ACCOUNT_CLOSED","reasonMessage":"Account closed","processed_at":"2026-11-22T10:15:30.123Z"}',
    );
  });

  it('unit: FAILED without a reason says BUS_NOT_SPECIFIED', () => {
    expect(unitCallbackBody({ ...failed, reasonCode: null, reasonMessage: null })).toMatchObject({ reasonCode: 'BUS_NOT_SPECIFIED', reasonMessage: '' });
  });

  it('batch: batch_id, sent_at, then the 2.3 objects with timestamp, in the given order', () => {
    const sentAt = Date.parse('2026-11-22T10:16:00Z');
    expect(JSON.stringify(batchCallbackBody('batch-42', sentAt, [success, failed]))).toBe(
      '{"batch_id":"batch-42","sent_at":"2026-11-22T10:16:00.000Z","orders":[' +
        '{"reference":"ORD-1","bank_reference":"SBK-0001","status":"SUCCESS","timestamp":"2026-11-22T10:15:30.123Z"},' +
        '{"reference":"ORD-2","bank_reference":"SBK-0002","status":"FAILED","reasonCode":"BUS_ACCOUNT_CLOSED","reasonMessage":"Account closed","timestamp":"2026-11-22T10:15:30.123Z"}]}',
    );
  });

  it('batch: the same input gives the same bytes (a frozen batch is resent as is)', () => {
    expect(JSON.stringify(batchCallbackBody('b', AT, [failed]))).toBe(JSON.stringify(batchCallbackBody('b', AT, [failed])));
    expect(batchCallbackBody('b', AT, [])).toEqual({ batch_id: 'b', sent_at: '2026-11-22T10:15:30.123Z', orders: [] });
  });
});

describe('nextAttemptAt', () => {
  const first = Date.parse('2026-11-22T10:00:00Z');
  const policy: RetryPolicy = { scheduleS: [10, 60, 300], horizonS: 3600, jitter: 0 };
  const half = () => 0.5;

  it('follows the schedule by attempts made, then repeats its last step', () => {
    expect(nextAttemptAt(policy, 1, first, first, half)).toBe(first + 10_000);
    expect(nextAttemptAt(policy, 2, first, first + 10_000, half)).toBe(first + 70_000);
    expect(nextAttemptAt(policy, 3, first, first + 70_000, half)).toBe(first + 370_000);
    expect(nextAttemptAt(policy, 4, first, first + 370_000, half)).toBe(first + 670_000);
    expect(nextAttemptAt(policy, 50, first, first + 1_000_000, half)).toBe(first + 1_300_000);
  });

  it('counts the delay from now, not from the first attempt', () => {
    expect(nextAttemptAt(policy, 1, first, first + 123_456, half)).toBe(first + 133_456);
  });

  it('with no attempt made yet (or an empty schedule) the next one is now', () => {
    expect(nextAttemptAt(policy, 0, first, first, half)).toBe(first);
    expect(nextAttemptAt({ ...policy, scheduleS: [] }, 3, first, first + 5000, half)).toBe(first + 5000);
  });

  it('spreads each delay by +-jitter: random() 0 is the shortest, 1 the longest, 0.5 the nominal', () => {
    const jittered: RetryPolicy = { ...policy, jitter: 0.2 };
    expect(nextAttemptAt(jittered, 1, first, first, () => 0)).toBe(first + 8000);
    expect(nextAttemptAt(jittered, 1, first, first, () => 1)).toBe(first + 12_000);
    expect(nextAttemptAt(jittered, 1, first, first, () => 0.5)).toBe(first + 10_000);
    expect(nextAttemptAt(jittered, 2, first, first, () => 0.25)).toBe(first + 54_000);
  });

  it('rounds to whole milliseconds', () => {
    expect(nextAttemptAt({ scheduleS: [1], horizonS: 3600, jitter: 0.1 }, 1, first, first, () => 0.123)).toBe(first + Math.round(1000 * (1 + 0.1 * (2 * 0.123 - 1))));
    expect(Number.isInteger(nextAttemptAt({ scheduleS: [1], horizonS: 3600, jitter: 0.1 }, 1, first, first, () => 0.123))).toBe(true);
  });

  it('gives up (null) once the next attempt would fall after the horizon from the first attempt; the horizon itself is still allowed', () => {
    expect(nextAttemptAt(policy, 4, first, first + 3_300_000, half)).toBe(first + 3_600_000);
    expect(nextAttemptAt(policy, 4, first, first + 3_300_001, half)).toBeNull();
    expect(nextAttemptAt(policy, 1, first, first + 3_600_000, half)).toBeNull();
  });
});
