// The status object of contract 2.3-2.5, one builder for every flow: field names per variant, reason fields only
// when FAILED (BUS_NOT_SPECIFIED when the reason is unknown), and the key order the Bank has always written.
import { STATUS_FIELD_NAMES, statusObject, StatusReport, UNSPECIFIED_REASON } from '../../src/wire/status-object';

const AT = Date.parse('2026-11-22T10:15:30.123Z');

function report(overrides: Partial<StatusReport> = {}): StatusReport {
  return { reference: 'ORD-1', bankReference: 'SBK-0001', status: 'SUCCESS', reasonCode: null, reasonMessage: null, processedAt: AT, ...overrides };
}

const failed = report({ status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS', reasonMessage: 'Insufficient balance on the debtor account' });

describe("statusObject(report, 'unit'): unit callback and reverse polling (2.3)", () => {
  it('SUCCESS: reference, bank_reference, status, processed_at', () => {
    const body = statusObject(report(), 'unit');
    expect(JSON.stringify(body)).toBe('{"reference":"ORD-1","bank_reference":"SBK-0001","status":"SUCCESS","processed_at":"2026-11-22T10:15:30.123Z"}');
  });

  it('PENDING: no reason fields, even when the report holds some', () => {
    const body = statusObject(report({ status: 'PENDING', reasonCode: 'BUS_REGULATORY', reasonMessage: 'x' }), 'unit');
    expect(Object.keys(body)).toEqual(['reference', 'bank_reference', 'status', 'processed_at']);
    expect(body.status).toBe('PENDING');
  });

  it('SUCCESS: no reason fields, even when the report holds some', () => {
    expect(Object.keys(statusObject(report({ reasonCode: 'BUS_REGULATORY', reasonMessage: 'x' }), 'unit'))).toEqual(['reference', 'bank_reference', 'status', 'processed_at']);
  });

  it('FAILED: camelCase reasonCode and reasonMessage before processed_at', () => {
    expect(JSON.stringify(statusObject(failed, 'unit'))).toBe(
      '{"reference":"ORD-1","bank_reference":"SBK-0001","status":"FAILED","reasonCode":"BUS_INSUFFICIENT_FUNDS","reasonMessage":"Insufficient balance on the debtor account","processed_at":"2026-11-22T10:15:30.123Z"}',
    );
  });
});

describe("statusObject(report, 'batch'): batch element (2.5)", () => {
  it('SUCCESS: timestamp instead of processed_at', () => {
    expect(JSON.stringify(statusObject(report(), 'batch'))).toBe('{"reference":"ORD-1","bank_reference":"SBK-0001","status":"SUCCESS","timestamp":"2026-11-22T10:15:30.123Z"}');
  });

  it('FAILED: camelCase reason fields, then timestamp', () => {
    expect(Object.entries(statusObject(failed, 'batch'))).toEqual([
      ['reference', 'ORD-1'],
      ['bank_reference', 'SBK-0001'],
      ['status', 'FAILED'],
      ['reasonCode', 'BUS_INSUFFICIENT_FUNDS'],
      ['reasonMessage', 'Insufficient balance on the debtor account'],
      ['timestamp', '2026-11-22T10:15:30.123Z'],
    ]);
  });
});

describe("statusObject(report, 'create'): the create answer (2.4)", () => {
  it('SUCCESS: status first, then reference, bank_reference, timestamp', () => {
    expect(JSON.stringify(statusObject(report(), 'create'))).toBe('{"status":"SUCCESS","reference":"ORD-1","bank_reference":"SBK-0001","timestamp":"2026-11-22T10:15:30.123Z"}');
  });

  it('PENDING: no reason fields', () => {
    expect(Object.keys(statusObject(report({ status: 'PENDING', reasonCode: 'BUS_REGULATORY' }), 'create'))).toEqual(['status', 'reference', 'bank_reference', 'timestamp']);
  });

  it('FAILED: snake_case reason_code and reason_message after timestamp', () => {
    expect(Object.entries(statusObject(failed, 'create'))).toEqual([
      ['status', 'FAILED'],
      ['reference', 'ORD-1'],
      ['bank_reference', 'SBK-0001'],
      ['timestamp', '2026-11-22T10:15:30.123Z'],
      ['reason_code', 'BUS_INSUFFICIENT_FUNDS'],
      ['reason_message', 'Insufficient balance on the debtor account'],
    ]);
  });

  it('never mixes the casings: no camelCase reason in create, no snake_case reason elsewhere', () => {
    expect(Object.keys(statusObject(failed, 'create'))).not.toEqual(expect.arrayContaining(['reasonCode']));
    expect(Object.keys(statusObject(failed, 'create'))).not.toEqual(expect.arrayContaining(['reasonMessage']));
    for (const variant of ['unit', 'batch'] as const) {
      expect(Object.keys(statusObject(failed, variant)).filter((key) => key.startsWith('reason_'))).toEqual([]);
    }
  });
});

describe('FAILED without a reason', () => {
  it.each(['unit', 'batch', 'create'] as const)('%s: the reason code defaults to BUS_NOT_SPECIFIED, the message to ""', (variant) => {
    const body = statusObject(report({ status: 'FAILED' }), variant);
    const names = STATUS_FIELD_NAMES[variant];
    expect([body[names.reasonCode], body[names.reasonMessage]]).toEqual(['BUS_NOT_SPECIFIED', '']);
  });

  it('UNSPECIFIED_REASON is BUS_NOT_SPECIFIED', () => {
    expect(UNSPECIFIED_REASON).toBe('BUS_NOT_SPECIFIED');
  });

  it('keeps an empty message as given, and a code without a message', () => {
    const body = statusObject(report({ status: 'FAILED', reasonCode: 'TECH_TIMEOUT', reasonMessage: null }), 'unit');
    expect([body.reasonCode, body.reasonMessage]).toEqual(['TECH_TIMEOUT', '']);
  });
});

describe('STATUS_FIELD_NAMES and the time field', () => {
  it('names the fields per variant', () => {
    expect(STATUS_FIELD_NAMES).toEqual({
      unit: { reasonCode: 'reasonCode', reasonMessage: 'reasonMessage', time: 'processed_at' },
      batch: { reasonCode: 'reasonCode', reasonMessage: 'reasonMessage', time: 'timestamp' },
      create: { reasonCode: 'reason_code', reasonMessage: 'reason_message', time: 'timestamp' },
    });
  });

  it('writes the time in UTC with milliseconds and Z, including .000', () => {
    expect(statusObject(report({ processedAt: Date.parse('2026-01-02T03:04:05Z') }), 'unit').processed_at).toBe('2026-01-02T03:04:05.000Z');
    expect(statusObject(report({ processedAt: 0 }), 'create').timestamp).toBe('1970-01-01T00:00:00.000Z');
  });

  it('copies reference and bank_reference exactly', () => {
    const body = statusObject(report({ reference: 'ref with spaces/and:colons', bankReference: 'é' }), 'batch');
    expect([body.reference, body.bank_reference]).toEqual(['ref with spaces/and:colons', 'é']);
  });
});
