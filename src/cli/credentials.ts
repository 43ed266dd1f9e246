// A client's credentials on the command line: --client-id, --client-secret and --key (a private JWK file), or a
// credentials file shaped like fixtures/demo-connector/credentials.json (or the `clients create --save` output),
// the flags winning over the file; and the mTLS files. A file that cannot be read is a usage error (exit 3).
import fs from 'node:fs';
import { isAllowedAlg } from '../wire/algorithms';
import { PublicJwk, SigningKey, signingKeyFromJwk } from '../wire/keys';
import type { TlsMaterial } from '../wire/signed-client';
import type { OptionSpec, Parsed } from './args';
import { usageError } from './io';

/** Who the client is: id and secret, or a credentials file. */
export const CLIENT_OPTIONS: Record<string, OptionSpec> = {
  'client-id': { type: 'string', value: 'id', help: 'the client (X-Client-Id)' },
  'client-secret': { type: 'string', value: 'secret', help: 'its client secret (for the token)' },
  credentials: { type: 'string', value: 'file', help: 'a credentials JSON file {client_id, client_secret, private_jwk, api_key}' },
};

export const KEY_OPTION: Record<string, OptionSpec> = {
  key: { type: 'string', value: 'file', help: 'the private signing key: a JWK file (or a credentials file)' },
};

export const CREDENTIAL_OPTIONS: Record<string, OptionSpec> = { ...CLIENT_OPTIONS, ...KEY_OPTION };

export const TLS_OPTIONS: Record<string, OptionSpec> = {
  cert: { type: 'string', value: 'file', help: 'client certificate (PEM), for mTLS on the https listener' },
  'key-pem': { type: 'string', value: 'file', help: 'private key of --cert (PEM)' },
  ca: { type: 'string', value: 'file', help: "CA certificate (PEM) that the Bank's https certificate chains to" },
};

export function readFileOrFail(file: string, what: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw usageError(`cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

export function readJsonFile(file: string, what: string): unknown {
  const text = readFileOrFail(file, what).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usageError(`${what} ${file} is not JSON: ${(error as Error).message}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ClientIdentity {
  clientId?: string;
  clientSecret?: string;
  privateJwk?: PublicJwk;
  apiKey?: string;
}

/** The credentials file, then the flags over it. */
export function identityOf(parsed: Parsed): ClientIdentity {
  const identity: ClientIdentity = {};
  const file = parsed.string('credentials');
  if (file !== undefined) {
    const content = readJsonFile(file, 'credentials file');
    if (!isObject(content)) throw usageError(`credentials file ${file} must hold a JSON object`);
    if (typeof content.client_id === 'string') identity.clientId = content.client_id;
    if (typeof content.client_secret === 'string') identity.clientSecret = content.client_secret;
    if (typeof content.api_key === 'string') identity.apiKey = content.api_key;
    if (isObject(content.private_jwk)) identity.privateJwk = content.private_jwk as PublicJwk;
  }
  identity.clientId = parsed.string('client-id') ?? identity.clientId;
  identity.clientSecret = parsed.string('client-secret') ?? identity.clientSecret;
  const keyFile = parsed.string('key');
  if (keyFile !== undefined) identity.privateJwk = jwkOfFile(keyFile);
  return identity;
}

/** A JWK file, or any JSON file with a `private_jwk` member (a credentials file). */
export function jwkOfFile(file: string): PublicJwk {
  const content = readJsonFile(file, 'key file');
  const jwk = isObject(content) && isObject(content.private_jwk) ? content.private_jwk : content;
  if (!isObject(jwk) || typeof jwk.kty !== 'string') throw usageError(`key file ${file} holds no JWK (expected {"kty": ...})`);
  return jwk as PublicJwk;
}

/** The profile's default algorithm for a key that does not name one. */
function defaultAlg(jwk: PublicJwk): string | undefined {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'RSA') return 'PS256';
  return undefined;
}

export function signingKeyOf(jwk: PublicJwk | undefined): SigningKey {
  if (!jwk) throw usageError('a signing key is required: --key <private JWK file> or --credentials <file>');
  if (typeof jwk.d !== 'string') throw usageError('the signing key must be a private JWK (it has no "d")');
  if (!jwk.kid) throw usageError('the signing key needs a "kid": the Bank finds the public key by it');
  const alg = jwk.alg ?? defaultAlg(jwk);
  if (!isAllowedAlg(alg)) throw usageError(`the signing key's alg must be ES256, PS256 or RS256, got ${String(alg)}`);
  try {
    return signingKeyFromJwk({ ...jwk, alg });
  } catch (error) {
    throw usageError(`the signing key cannot be used: ${(error as Error).message}`);
  }
}

/** --cert, --key-pem and --ca; undefined when none is given. --cert and --key-pem go together. */
export function tlsOf(parsed: Parsed): TlsMaterial | undefined {
  const cert = parsed.string('cert');
  const key = parsed.string('key-pem');
  const ca = parsed.string('ca');
  if ((cert === undefined) !== (key === undefined)) throw usageError('--cert and --key-pem go together');
  if (cert === undefined && ca === undefined) return undefined;
  return {
    cert: cert === undefined ? undefined : readFileOrFail(cert, 'certificate'),
    key: key === undefined ? undefined : readFileOrFail(key, 'certificate key'),
    ca: ca === undefined ? undefined : readFileOrFail(ca, 'CA certificate'),
  };
}
