// ISO 13616 IBAN checks: shape and the mod-97 checksum.

const IBAN_SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;

export function normalizeIban(value: string): string {
  return value.replace(/ /g, '').toUpperCase();
}

export function hasIbanShape(value: string): boolean {
  return IBAN_SHAPE.test(value);
}

/** True when the IBAN passes the mod-97 checksum (remainder 1). */
export function hasValidIbanChecksum(value: string): boolean {
  const iban = normalizeIban(value);
  if (!hasIbanShape(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const digits = char >= 'A' ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}
