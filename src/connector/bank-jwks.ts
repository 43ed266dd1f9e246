// The Bank's public keys, fetched from its JWKS (GET /.well-known/jwks.json) and cached.
// What it shows a Connector team: verify the Bank with the keys it publishes, never with a key pasted into the
// code; refetch once when a signature names an unknown kid (the Bank rotated its key), but not on every request
// (a burst of made-up kids must not turn into a burst of fetches).
import { KeyObject } from 'node:crypto';
import type { Logger } from 'winston';
import { JwsAlg } from '../wire/algorithms';
import { Jwks, KeySet } from '../wire/keys';
import { Problem } from './problems';

/** A cached JWKS older than this is refetched before use. */
const MAX_AGE_MS = 60 * 60_000;
/** An unknown kid triggers a refetch only when the cache is at least this old. */
const MIN_REFETCH_MS = 5_000;

export class BankJwks {
  private keys: KeySet | null = null;
  private fetchedAt = 0;
  private attemptedAt = 0;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly fetchJwks: () => Promise<Jwks>,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /** The Bank's key for this kid and alg, or null when the Bank does not publish one. */
  async keyFor(kid: string, alg: JwsAlg): Promise<KeyObject | null> {
    if (!this.keys || this.now() - this.fetchedAt > MAX_AGE_MS) await this.refresh();
    let key = this.keys?.find(kid, alg) ?? null;
    if (!key && this.now() - this.attemptedAt >= MIN_REFETCH_MS) {
      this.logger.info('unknown kid: refetching the Bank JWKS once', { kid });
      await this.refresh();
      key = this.keys?.find(kid, alg) ?? null;
    }
    return key;
  }

  /** Fetches the JWKS; concurrent callers share one fetch. Keeps the old keys when a refetch fails. */
  private refresh(): Promise<void> {
    if (!this.inFlight) {
      this.attemptedAt = this.now();
      this.inFlight = this.fetchJwks()
        .then((jwks) => {
          this.keys = new KeySet(jwks);
          this.fetchedAt = this.now();
        })
        .catch((error: unknown) => {
          this.logger.warn('could not fetch the Bank JWKS', { error: (error as Error).message });
          if (!this.keys) throw new Problem('jwks_unavailable', `the Bank's JWKS could not be fetched: ${(error as Error).message}`);
        })
        .finally(() => {
          this.inFlight = null;
        });
    }
    return this.inFlight;
  }
}
