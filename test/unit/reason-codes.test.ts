// The business reason nomenclature (profile section 7): exactly these codes, each with its ISO 20022 reason.
import { isReasonCode, REASON_CODES, reasonMessage } from '../../src/wire/reason-codes';

describe('REASON_CODES', () => {
  it('is exactly the profile table, in its order, with the ISO 20022 mapping', () => {
    expect(Object.entries(REASON_CODES).map(([code, info]) => [code, info.iso20022])).toEqual([
      ['BUS_INSUFFICIENT_FUNDS', 'AM04'],
      ['BUS_ACCOUNT_CLOSED', 'AC04'],
      ['BUS_ACCOUNT_BLOCKED', 'AC06'],
      ['BUS_INVALID_ACCOUNT', 'AC01'],
      ['BUS_AMOUNT_LIMIT_EXCEEDED', 'AM02'],
      ['BUS_INVALID_CURRENCY', 'AM03'],
      ['BUS_DUPLICATE_ORDER', 'AM05'],
      ['BUS_MANDATE_INVALID', 'MD01'],
      ['BUS_REFUSED_BY_DEBTOR', 'MS02'],
      ['BUS_REGULATORY', 'RR04'],
      ['BUS_NOT_SPECIFIED', 'MS03'],
      ['TECH_TIMEOUT', null],
    ]);
  });

  it('gives every code a non-empty message', () => {
    for (const [code, info] of Object.entries(REASON_CODES)) expect([code, info.message.length > 0]).toEqual([code, true]);
  });

  it('messages read as the profile meanings', () => {
    expect(reasonMessage('BUS_INSUFFICIENT_FUNDS')).toBe('Insufficient balance on the debtor account');
    expect(reasonMessage('BUS_INVALID_ACCOUNT')).toBe('Account identifier incorrect');
    expect(reasonMessage('BUS_NOT_SPECIFIED')).toBe('Reason not specified');
    expect(reasonMessage('TECH_TIMEOUT')).toBe("The bank's own processing timed out");
  });
});

describe('isReasonCode', () => {
  it.each(Object.keys(REASON_CODES))('accepts %s', (code) => {
    expect(isReasonCode(code)).toBe(true);
  });

  it.each(['', 'bus_insufficient_funds', 'BUS_INSUFFICIENT_FUNDS ', 'AM04', 'BUS_UNKNOWN', 'toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf'])(
    'refuses %j (case matters; inherited properties are not codes)',
    (value) => {
      expect(isReasonCode(value)).toBe(false);
    },
  );
});
