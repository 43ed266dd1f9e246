export function b64url(input: Buffer | string): string {
  return Buffer.from(input).toString('base64url');
}

export function fromB64url(input: string): Buffer {
  return Buffer.from(input, 'base64url');
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/** Unpadded base64url in its one canonical spelling: a variant that only flips unused trailing bits is refused. */
export function isB64url(input: string): boolean {
  return decodedB64url(input) !== undefined;
}

/** The bytes of `input` when it is canonical unpadded base64url (as isB64url), else undefined: one decode for both. */
export function decodedB64url(input: string): Buffer | undefined {
  if (!B64URL.test(input) || input.length % 4 === 1) return undefined;
  const bytes = fromB64url(input);
  return bytes.toString('base64url') === input ? bytes : undefined;
}
