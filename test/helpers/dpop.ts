// DPoP proofs (RFC 9449) made with node:crypto only: a fresh P-256 key per DpopKey, ES256 in JOSE (r||s) form.
import { createHash, generateKeyPairSync, KeyObject, randomUUID, sign } from 'node:crypto';

export interface ProofOptions {
  htm: string;
  htu: string;
  /** Seconds since the epoch. */
  iat: number;
  jti?: string;
  /** The access token to bind (ath = base64url(SHA-256(token))); omit at the token endpoint. */
  accessToken?: string;
  /** Replace or add claims (a value of undefined removes the claim). */
  claims?: Record<string, unknown>;
  /** Replace or add header members (a value of undefined removes the member). */
  header?: Record<string, unknown>;
}

function b64url(input: Buffer | string): string {
  return Buffer.from(input).toString('base64url');
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined));
}

export function accessTokenHash(token: string): string {
  return b64url(createHash('sha256').update(token, 'ascii').digest());
}

export class DpopKey {
  readonly privateKey: KeyObject;
  readonly publicJwk: { kty: string; crv: string; x: string; y: string };
  /** The private JWK (with d), to test that a proof carrying it is refused. */
  readonly privateJwk: Record<string, unknown>;

  constructor() {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    const jwk = pair.publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string };
    this.publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
    this.privateJwk = pair.privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  }

  /** RFC 7638 JWK thumbprint, SHA-256, base64url. */
  thumbprint(): string {
    const { crv, kty, x, y } = this.publicJwk;
    return b64url(createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest());
  }

  proof(options: ProofOptions): string {
    const header = withoutUndefined({ typ: 'dpop+jwt', alg: 'ES256', jwk: this.publicJwk, ...options.header });
    const claims = withoutUndefined({
      htm: options.htm,
      htu: options.htu,
      iat: options.iat,
      jti: options.jti ?? randomUUID(),
      ath: options.accessToken === undefined ? undefined : accessTokenHash(options.accessToken),
      ...options.claims,
    });
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(input), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${b64url(signature)}`;
  }
}
