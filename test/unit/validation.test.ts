// Business checks the schema cannot express (profile sections 8 and 9): positive amounts, exact totals, ISO 4217
// currency, a scenario that parses.
import { businessViolations } from '../../src/bank/domain/validation';
import { orderViolations } from '../../src/bank/application/order-validation';
import { ISO_4217, ISO_4217_CODES } from '../../src/bank/domain/iso4217';
import { PaymentOrder } from '../../src/wire/payment-order';

function order(overrides: Partial<PaymentOrder> = {}): PaymentOrder {
  return {
    reference: 'ORD-1',
    initiated_at: '2026-11-22T09:00:00Z',
    reason: 'Invoice',
    type: 'DIRECT_DEBIT',
    debtor: { name: 'Alice', iban: 'DE89370400440532013000' },
    creditors: [
      { name: 'Bob', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount: '0.1', reason: 'a' },
      { name: 'Carol', iban: 'GB82WEST12345698765432', bank_code: 'NWBKGB2L', amount: '0.2', reason: 'b' },
    ],
    total_amount: '0.30',
    currency: 'EUR',
    ...overrides,
  };
}

describe('businessViolations', () => {
  it('none for a consistent order (0.1 + 0.2 = 0.30 exactly)', () => {
    expect(businessViolations(order())).toEqual([]);
  });

  it('a total that is not the exact sum', () => {
    expect(businessViolations(order({ total_amount: '0.31' }))).toEqual([{ path: '/total_amount', message: "must equal the sum of the creditors' amounts" }]);
    expect(businessViolations(order({ total_amount: '0.3' }))).toEqual([]);
  });

  it('a zero creditor amount, by index', () => {
    const creditors = order().creditors.map((creditor, index) => (index === 1 ? { ...creditor, amount: '0.00' } : creditor));
    expect(businessViolations(order({ creditors, total_amount: '0.1' }))).toEqual([{ path: '/creditors/1/amount', message: 'must be greater than 0' }]);
  });

  it('a currency that is not ISO 4217', () => {
    expect(businessViolations(order({ currency: 'ABC' }))).toEqual([{ path: '/currency', message: 'must be an ISO 4217 alphabetic code' }]);
    expect(businessViolations(order({ currency: 'USD' }))).toEqual([]);
  });

  it('an initiated_at with a leap second (the schema format admits it; no instant holds it)', () => {
    expect(businessViolations(order({ initiated_at: '2016-12-31T23:59:60Z' }))).toEqual([{ path: '/initiated_at', message: 'must be a representable instant (no leap second)' }]);
  });

  it('a scenario that does not parse, with the parser message', () => {
    expect(businessViolations(order({ metadata: { sandbox_scenario: 'PENDING:5' } }))).toEqual([
      { path: '/metadata/sandbox_scenario', message: 'expected SUCCESS or FAILED:<reasonCode> in "PENDING:5"' },
    ]);
    expect(businessViolations(order({ metadata: { sandbox_scenario: 'ASYNC:5:SUCCESS' } }))).toEqual([]);
  });

  it('every violation at once, in order: amounts, total, currency, scenario', () => {
    const creditors = [{ ...order().creditors[0], amount: '0' }];
    expect(businessViolations(order({ creditors, total_amount: '1.00', currency: 'XYZ', metadata: { sandbox_scenario: 'NOPE' } })).map((violation) => violation.path)).toEqual([
      '/creditors/0/amount',
      '/total_amount',
      '/currency',
      '/metadata/sandbox_scenario',
    ]);
  });
});

// The list is ISO 4217 List One, fixed in src/bank/domain/iso4217.ts; it used to be Node's ICU list
// (Intl.supportedValuesOf), which differs from ISO 4217 and from one Node version to another.
describe('businessViolations: currency is a code of ISO 4217 List One, whatever Node says', () => {
  const currencyViolation = [{ path: '/currency', message: 'must be an ISO 4217 alphabetic code' }];
  const everyThreeLetterCode = Array.from({ length: 26 ** 3 }, (_, index) =>
    [26 ** 2, 26, 1].map((weight) => String.fromCharCode(65 + (Math.floor(index / weight) % 26))).join(''),
  );

  it('accepts every code of the list', () => {
    const refused = ISO_4217_CODES.filter((currency) => businessViolations(order({ currency })).length > 0);
    expect(refused).toEqual([]);
  });

  it('accepts current codes that Node 20 ICU lacks (CLF, VED, XAU, BOV, XTS, XXX, XAD...) and the new ZWG, XCG, SLE', () => {
    const codes = ['CLF', 'VED', 'XAU', 'BOV', 'XTS', 'XXX', 'ZWG', 'XCG', 'XAD', 'SLE', 'CHE', 'CHW', 'COU', 'MXV', 'USN', 'UYI', 'UYW', 'XAG', 'XPT', 'XPD', 'XUA', 'XBA', 'XBD'];
    for (const currency of codes) {
      expect([currency, businessViolations(order({ currency }))]).toEqual([currency, []]);
    }
  });

  it('refuses withdrawn codes that Node 20 ICU still knows (HRK, ZWL, CUC, ANG, SLL, BGN) and non-codes, at /currency', () => {
    for (const currency of ['HRK', 'ZWL', 'CUC', 'ANG', 'SLL', 'BGN', 'ABC', 'EUr']) {
      expect([currency, businessViolations(order({ currency }))]).toEqual([currency, currencyViolation]);
    }
  });

  it('accepts exactly the 178 listed codes among the 17,576 strings AAA to ZZZ', () => {
    expect(ISO_4217_CODES).toHaveLength(178);
    expect(ISO_4217.size).toBe(178);
    const accepted = everyThreeLetterCode.filter((currency) => businessViolations(order({ currency })).length === 0);
    expect(accepted).toEqual([...ISO_4217_CODES]);
  });

  describe('with Intl.supportedValuesOf replaced', () => {
    afterEach(() => jest.restoreAllMocks());

    function freshBusinessViolations(): typeof businessViolations {
      let fresh: typeof businessViolations | undefined;
      jest.isolateModules(() => {
        fresh = (require('../../src/bank/domain/validation') as typeof import('../../src/bank/domain/validation')).businessViolations;
      });
      return fresh!;
    }

    it('never calls it', () => {
      const supportedValuesOf = jest.spyOn(Intl, 'supportedValuesOf');
      const fresh = freshBusinessViolations();
      expect(fresh(order({ currency: 'EUR' }))).toEqual([]);
      expect(fresh(order({ currency: 'XTS' }))).toEqual([]);
      expect(supportedValuesOf).not.toHaveBeenCalled();
    });

    it('gives the same answers when it returns [] or other codes', () => {
      for (const values of [[], ['HRK', 'ABC', 'EUR']]) {
        jest.spyOn(Intl, 'supportedValuesOf').mockReturnValue(values);
        const fresh = freshBusinessViolations();
        jest.restoreAllMocks();
        expect(fresh(order({ currency: 'EUR' }))).toEqual([]);
        expect(fresh(order({ currency: 'CLF' }))).toEqual([]);
        expect(fresh(order({ currency: 'HRK' }))).toEqual(currencyViolation);
        expect(fresh(order({ currency: 'ABC' }))).toEqual(currencyViolation);
        expect(everyThreeLetterCode.filter((currency) => fresh(order({ currency })).length === 0)).toEqual([...ISO_4217_CODES]);
      }
    });
  });
});

describe('orderViolations: a creditor bank_code is 1 to 35 letters and digits (docs/profile-decisions.md)', () => {
  const withBankCode = (bankCode: string) => ({
    reference: 'BANK-CODE-1',
    initiated_at: '2026-11-22T09:00:00Z',
    reason: 'Invoice',
    type: 'CREDIT_TRANSFER',
    debtor: { name: 'Alice', iban: 'DE89370400440532013000' },
    creditors: [{ name: 'Bob', iban: 'FR1420041010050500013M02606', bank_code: bankCode, amount: '1.00', reason: 'Invoice' }],
    total_amount: '1.00',
    currency: 'EUR',
  });

  it.each(['BNPAFRPP', 'DEUTDEFF500', '123456', 'A'.repeat(35)])('%s is accepted', (bankCode) => {
    expect(orderViolations(withBankCode(bankCode))).toEqual([]);
  });

  it.each(['12-34-56', 'BNPA FRPP', '', 'A'.repeat(36)])('%j is body_invalid at /creditors/0/bank_code', (bankCode) => {
    expect(orderViolations(withBankCode(bankCode))).toEqual([expect.objectContaining({ path: '/creditors/0/bank_code' })]);
  });
});
