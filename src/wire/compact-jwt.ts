// Minimal compact JWT (attached payload) sign/parse for access tokens and DPoP proofs, on node:crypto.
import { KeyObject } from 'node:crypto';
import { isAllowedAlg, JwsAlg, signBytes, verifyBytes } from './algorithms';
import { b64url, fromB64url, isB64url } from './base64url';

export type JsonObject = Record<string, unknown>;

export interface ParsedJwt {
  header: JsonObject & { alg: JwsAlg };
  claims: JsonObject;
  signingInput: string;
  signature: Buffer;
}

export class JwtFormatError extends Error {}

export function signJwt(header: JsonObject & { alg: JwsAlg }, claims: JsonObject, key: KeyObject): string {
  const signingInput = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  return `${signingInput}.${b64url(signBytes(header.alg, key, signingInput))}`;
}

function decodeObject(part: string, what: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(fromB64url(part).toString('utf8'));
  } catch {
    throw new JwtFormatError(`${what} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwtFormatError(`${what} is not an object`);
  return value as JsonObject;
}

export function parseJwt(token: string): ParsedJwt {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => part === '' || !isB64url(part))) throw new JwtFormatError('not a compact JWT');
  const header = decodeObject(parts[0], 'header');
  if (!isAllowedAlg(header.alg)) throw new JwtFormatError('unsupported alg');
  return {
    header: header as ParsedJwt['header'],
    claims: decodeObject(parts[1], 'claims'),
    signingInput: `${parts[0]}.${parts[1]}`,
    signature: fromB64url(parts[2]),
  };
}

export function verifyJwtSignature(jwt: ParsedJwt, key: KeyObject): boolean {
  return verifyBytes(jwt.header.alg, key, jwt.signingInput, jwt.signature);
}
