// ISO 13616 IBAN checks (profile section 8, step 4): shape and the mod-97 checksum.
import fc from 'fast-check';
import { hasIbanShape, hasValidIbanChecksum, normalizeIban } from '../../src/bank/domain/iban';

/** Independent reference: ISO 7064 MOD 97-10 over the rearranged IBAN with BigInt. */
function referenceCheckDigits(country: string, bban: string): string {
  const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (char) => String(char.charCodeAt(0) - 55));
  return String(98n - (BigInt(numeric) % 97n)).padStart(2, '0');
}

describe('hasValidIbanChecksum', () => {
  it.each([
    'DE89370400440532013000',
    'FR1420041010050500013M02606',
    'GB82WEST12345698765432',
    'NO9386011117947', // 15 characters, the shortest in use
    'MT84MALT011000012345MTLCAST001S', // 31 characters
    'LC55HEMM000100010012001200023015', // 32 characters
    'BE68539007547034',
  ])('accepts %s', (iban) => {
    expect(hasValidIbanChecksum(iban)).toBe(true);
  });

  it('accepts the printed form (groups of four) and lower case, as normalised', () => {
    expect(hasValidIbanChecksum('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(hasValidIbanChecksum('gb82west12345698765432')).toBe(true);
  });

  it.each([
    ['check digits 00', 'DE00370400440532013000'],
    ['check digits swapped', 'DE98370400440532013000'],
    ['one BBAN digit changed', 'DE89370400440532013001'],
    ['two BBAN digits transposed', 'DE89370400440532010300'],
    ['one BBAN letter changed', 'GB82TEST12345698765432'],
    ['country changed', 'FR89370400440532013000'],
    ['too short (10 BBAN characters)', 'NO938601111794'],
    ['too long (31 BBAN characters)', `GB82${'1'.repeat(31)}`],
    ['hyphens', 'DE89-3704-0044-0532-0130-00'],
    ['empty', ''],
    ['country only', 'DE'],
    ['digits first', '89DE370400440532013000'],
    ['non-ASCII letter', 'DE89370400440532013É00'],
    ['tab inside', 'DE89\t370400440532013000'],
  ])('refuses %s: %j', (_why, iban) => {
    expect(hasValidIbanChecksum(iban)).toBe(false);
  });

  it('agrees with an independent BigInt MOD 97-10 on generated IBANs, and any one-digit substitution breaks it', () => {
    const bban = fc.stringMatching(/^[0-9A-Z]{11,30}$/);
    const country = fc.stringMatching(/^[A-Z]{2}$/);
    fc.assert(
      fc.property(country, bban, fc.nat(), fc.integer({ min: 1, max: 9 }), (cc, body, at, delta) => {
        const iban = `${cc}${referenceCheckDigits(cc, body)}${body}`;
        expect(hasValidIbanChecksum(iban)).toBe(true);
        // Change one digit (check digits included) by delta mod 10: 10^k * delta is never a multiple of the prime 97,
        // so MOD 97-10 catches every such substitution. (A letter replaced by a digit changes the length of the
        // numeric form and may collide, so letters are left alone.)
        const digits = [...iban].map((char, index) => (index >= 2 && /[0-9]/.test(char) ? index : -1)).filter((index) => index >= 0);
        const index = digits[at % digits.length];
        const replacement = String((Number(iban[index]) + delta) % 10);
        const broken = `${iban.slice(0, index)}${replacement}${iban.slice(index + 1)}`;
        expect(hasValidIbanChecksum(broken)).toBe(false);
      }),
      { numRuns: 500, seed: 20261122 },
    );
  });
});

describe('hasIbanShape / normalizeIban', () => {
  it('shape is 2 letters, 2 digits, 11 to 30 letters or digits, upper case, no blanks', () => {
    expect(hasIbanShape('DE89370400440532013000')).toBe(true);
    expect(hasIbanShape(`DE89${'A'.repeat(11)}`)).toBe(true);
    expect(hasIbanShape(`DE89${'A'.repeat(30)}`)).toBe(true);
    expect(hasIbanShape(`DE89${'A'.repeat(10)}`)).toBe(false);
    expect(hasIbanShape(`DE89${'A'.repeat(31)}`)).toBe(false);
    expect(hasIbanShape('de89370400440532013000')).toBe(false);
    expect(hasIbanShape('DE89 3704 0044 0532 0130 00')).toBe(false);
    expect(hasIbanShape('DEX9370400440532013000')).toBe(false);
  });

  it('normalizeIban removes spaces and upper-cases, nothing else', () => {
    expect(normalizeIban(' de89 3704 0044 0532 0130 00 ')).toBe('DE89370400440532013000');
    expect(normalizeIban('DE89-3704')).toBe('DE89-3704');
    expect(normalizeIban('DE89\t3704')).toBe('DE89\t3704');
  });
});
