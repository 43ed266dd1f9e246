export function b64url(input: Buffer | string): string {
  return Buffer.from(input).toString('base64url');
}

export function fromB64url(input: string): Buffer {
  return Buffer.from(input, 'base64url');
}

const B64URL = /^[A-Za-z0-9_-]*$/;

export function isB64url(input: string): boolean {
  return B64URL.test(input);
}
