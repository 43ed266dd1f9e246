// The keys GET /.well-known/jwks.json publishes: the Bank's signing key, and for the length of a conformance run a
// freshly made one (unit.rotated_key_accepted: a key added after the Connector's last fetch).
import { PublicJwk } from '../../wire/keys';

export class PublishedKeys {
  private readonly extra = new Map<string, Record<string, unknown>>();

  constructor(private readonly signing: PublicJwk) {}

  all(): Record<string, unknown>[] {
    return [this.signing as Record<string, unknown>, ...this.extra.values()];
  }

  /** Publishes a public JWK; answers the function that takes it out again. */
  add(jwk: Record<string, unknown>): () => void {
    const token = `${String(jwk.kid)}#${this.extra.size}-${Math.random()}`;
    this.extra.set(token, jwk);
    return () => {
      this.extra.delete(token);
    };
  }
}
