// ISO 13616 IBAN checks: shape and the mod-97 checksum.

const IBAN_SHAPE = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/;

const NOT_ELECTRONIC = /[^A-Z0-9]/;

export function normalizeIban(value: string): string {
  // A payment order's IBANs are in their electronic form already (its schema says so): tested, not copied twice.
  return NOT_ELECTRONIC.test(value) ? value.replace(/ /g, '').toUpperCase() : value;
}

export function hasIbanShape(value: string): boolean {
  return IBAN_SHAPE.test(value);
}

/** True when the IBAN passes the mod-97 checksum (remainder 1). */
export function hasValidIbanChecksum(value: string): boolean {
  const iban = normalizeIban(value);
  if (!hasIbanShape(iban)) return false;
  // The first four characters move to the end; a letter stands for two digits (A = 10 ... Z = 35). Read by
  // character code, without building the rearranged text or a string a digit (a third of the time, issue 15).
  let remainder = 0;
  for (let index = 0; index < iban.length; index += 1) {
    const code = iban.charCodeAt((index + 4) % iban.length);
    remainder = code >= 65 ? (remainder * 100 + code - 55) % 97 : (remainder * 10 + code - 48) % 97;
  }
  return remainder === 1;
}
