// Money as decimal strings computed in integer cents (profile section 8, step 4): at most two decimals, no leading
// zeros, no sign, compared exactly, never through floating point.
import { centsPart, InvalidAmountError, sumAmounts, toCents } from '../../src/wire/money';

describe('toCents: accepted forms', () => {
  it.each<[string, bigint]>([
    ['0', 0n],
    ['0.0', 0n],
    ['0.00', 0n],
    ['0.01', 1n],
    ['0.1', 10n],
    ['0.10', 10n],
    ['1', 100n],
    ['1.5', 150n],
    ['1.05', 105n],
    ['12.34', 1234n],
    ['100', 10000n],
    ['999999999999999', 99999999999999900n],
    ['999999999999999.99', 99999999999999999n],
  ])('%s is %s cents', (value, cents) => {
    expect(toCents(value)).toBe(cents);
  });
});

describe('toCents: refused forms', () => {
  it.each([
    ['three decimals', '1.234'],
    ['three decimals of zeros', '0.000'],
    ['leading zero', '01.00'],
    ['leading zeros', '00'],
    ['leading zero on an integer', '007'],
    ['negative', '-5.00'],
    ['negative zero', '-0'],
    ['plus sign', '+1.00'],
    ['exponent', '1e3'],
    ['hexadecimal', '0x10'],
    ['empty', ''],
    ['leading blank', ' 1.00'],
    ['trailing blank', '1.00 '],
    ['trailing newline', '1.00\n'],
    ['decimal comma', '1,00'],
    ['point without decimals', '1.'],
    ['no integer part', '.5'],
    ['thousands separator', '1 000.00'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['sixteen integer digits', '1000000000000000'],
    ['non-ASCII digits', '١٢٣'],
    ['full-width digits', '１２'],
  ])('%s: %j', (_why, value) => {
    expect(() => toCents(value)).toThrow(InvalidAmountError);
    expect(() => toCents(value)).toThrow(`not a decimal amount with at most two decimals: ${value}`);
  });
});

describe('exact sums', () => {
  it('"0.1" + "0.2" is exactly 0.30 (where floating point says otherwise)', () => {
    expect(0.1 + 0.2 === 0.3).toBe(false);
    expect(sumAmounts(['0.1', '0.2'])).toBe(30n);
    expect(sumAmounts(['0.1', '0.2'])).toBe(toCents('0.30'));
    expect(sumAmounts(['0.1', '0.2'])).toBe(toCents('0.3'));
    expect(sumAmounts(['0.1', '0.2']) === toCents('0.31')).toBe(false);
  });

  it('sums beyond Number precision exactly', () => {
    expect(sumAmounts(['999999999999999.99', '0.01'])).toBe(100000000000000000n);
    expect(sumAmounts(['999999999999999.99', '999999999999999.99'])).toBe(199999999999999998n);
    // As Numbers these two differ by one cent but compare equal; as cents they do not.
    expect(Number('999999999999999.99') === Number('999999999999999.98')).toBe(true);
    expect(toCents('999999999999999.99') === toCents('999999999999999.98')).toBe(false);
    expect(sumAmounts(Array.from({ length: 10 }, () => '0.1'))).toBe(toCents('1'));
  });

  it('the empty sum is 0', () => {
    expect(sumAmounts([])).toBe(0n);
  });

  it('refuses a sum with one bad amount', () => {
    expect(() => sumAmounts(['1.00', '1.001'])).toThrow(InvalidAmountError);
  });
});

describe('centsPart', () => {
  it.each([
    ['100.1', '10'],
    ['7', '00'],
    ['12.03', '03'],
    ['12.3', '30'],
    ['0.07', '07'],
    ['0.99', '99'],
    ['100.00', '00'],
  ])('%s -> %s', (value, cents) => {
    expect(centsPart(value)).toBe(cents);
  });

  it('refuses what is not an amount', () => {
    expect(() => centsPart('1.001')).toThrow(InvalidAmountError);
  });
});
