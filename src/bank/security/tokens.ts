// Access tokens: RFC 9068 JWTs signed by the Bank (profile section 3). Verified tokens are cached: a token is immutable,
// so only its expiry needs re-checking on the hot path.
import { randomUUID } from 'node:crypto';
import { Clock } from '../../wire/clock';
import { parseJwt, signJwt, verifyJwtSignature } from '../../wire/compact-jwt';
import { SigningKey } from '../../wire/keys';

/** RFC 9068 access token claims. */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  iat: number;
  exp: number;
  jti: string;
  cnf?: { jkt: string };
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
}

/** Why a token was refused: the `reason` of the auth_invalid problem (profile section 5). */
export type TokenRejection = 'token_malformed' | 'token_signature' | 'token_issuer' | 'token_audience' | 'token_expired';

export class TokenInvalidError extends Error {
  constructor(readonly reason: TokenRejection, message: string) {
    super(message);
  }
}

const CACHE_LIMIT = 10_000;

export class TokenService {
  private readonly verified = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly signer: SigningKey,
    private readonly clock: Clock,
    private readonly issuer: string,
    private readonly audience: string,
    private readonly ttlS: number,
  ) {}

  issue(clientId: string, dpopJkt: string | null): IssuedToken {
    const iat = Math.floor(this.clock.now() / 1000);
    const claims: AccessTokenClaims = { iss: this.issuer, sub: clientId, aud: this.audience, client_id: clientId, iat, exp: iat + this.ttlS, jti: randomUUID() };
    if (dpopJkt) claims.cnf = { jkt: dpopJkt };
    const header = { alg: this.signer.alg, kid: this.signer.kid, typ: 'at+jwt' };
    return {
      access_token: signJwt(header, claims as unknown as Record<string, unknown>, this.signer.privateKey),
      token_type: dpopJkt ? 'DPoP' : 'Bearer',
      expires_in: this.ttlS,
    };
  }

  verify(token: string): AccessTokenClaims {
    const claims = this.verified.get(token) ?? this.verifySignature(token);
    if (claims.exp * 1000 <= this.clock.now()) throw new TokenInvalidError('token_expired', 'token expired');
    return claims;
  }

  private verifySignature(token: string): AccessTokenClaims {
    let jwt;
    try {
      jwt = parseJwt(token);
    } catch (error) {
      throw new TokenInvalidError('token_malformed', (error as Error).message);
    }
    if (jwt.header.typ !== 'at+jwt') throw new TokenInvalidError('token_malformed', 'token typ must be at+jwt (RFC 9068)');
    if (jwt.header.kid !== this.signer.kid || jwt.header.alg !== this.signer.alg || !verifyJwtSignature(jwt, this.signer.publicKey)) {
      throw new TokenInvalidError('token_signature', 'token signature does not verify');
    }
    const claims = jwt.claims as unknown as AccessTokenClaims;
    if (claims.iss !== this.issuer || typeof claims.client_id !== 'string' || typeof claims.exp !== 'number') {
      throw new TokenInvalidError('token_issuer', 'token claims are not ours');
    }
    if (claims.aud !== this.audience) throw new TokenInvalidError('token_audience', `token aud must be "${this.audience}"`);
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }
}
