// The key set of a client registered with a `jwks_uri` (control-plane.md section 1, profile v1.1 section 1):
// fetched from that URL, cached for the answer's `Cache-Control: max-age` (or JWKS_CACHE_TTL_S without one), and
// refetched ONCE when a signature names a kid the cache lacks, at most once per kid and minute, so that a client
// can rotate its keys without a call to the Bank while a burst of made-up kids never becomes a burst of fetches.
// The common path (a fresh cache that knows the kid) answers synchronously; only a fetch returns a Promise.
import type { KeyObject } from 'node:crypto';
import type { Logger } from 'winston';
import { JwsAlg } from '../../wire/algorithms';
import { Jwks, KeySet } from '../../wire/keys';
import { withinLast } from '../../wire/clock';

/** One fetch of a JWKS: the keys, and the answer's max-age in seconds (null: none given). Throws on failure. */
export interface FetchedJwks {
  jwks: Jwks;
  maxAgeS: number | null;
}

/** Fetches `url` for `clientId` (named so the call can be journaled as that client's). */
export type JwksFetch = (url: string, clientId: string) => Promise<FetchedJwks>;

/** Profile v1.1 section 1: an unknown kid refetches at most once per kid and this long. */
export const UNKNOWN_KID_REFETCH_MS = 60_000;
/** After a failed fetch, the keys at hand (maybe none) are used this long before the next try. */
export const FAILED_FETCH_RETRY_MS = 10_000;
/** Kids remembered for the once-a-minute rule; beyond this the oldest are forgotten first. */
const MAX_REMEMBERED_KIDS = 1_000;

export interface RemoteJwksView {
  jwks_uri: string;
  /** The public keys of the last successful fetch (null: none yet). */
  jwks: Jwks | null;
  fetched_at: number | null;
  expires_at: number | null;
  fetches: number;
  last_error: string | null;
}

export class RemoteJwks {
  private keys = new KeySet({ keys: [] });
  private jwks: Jwks | null = null;
  private fetchedAt: number | null = null;
  /** Until when the keys at hand are used without a fetch (0: never fetched). */
  private freshUntil = 0;
  private lastError: string | null = null;
  private fetches = 0;
  private readonly refetchedFor = new Map<string, number>();
  private inFlight: Promise<void> | null = null;

  constructor(
    readonly url: string,
    private readonly fetchJwks: JwksFetch,
    private readonly now: () => number,
    private readonly ttlS: number,
    private readonly logger: Logger,
    private readonly clientId: string,
  ) {}

  /** Fetches now and throws the reason when the URL does not give a usable key set (registration, PATCH). */
  async load(): Promise<void> {
    await this.refresh();
    if (this.lastError !== null) throw new Error(this.lastError);
  }

  /** The key for kid and alg: synchronous from a fresh cache, else a Promise after one fetch; null when none. */
  lookup(kid: string, alg: JwsAlg): KeyObject | null | Promise<KeyObject | null> {
    const now = this.now();
    if (now < this.freshUntil) {
      const key = this.keys.find(kid, alg);
      if (key) return key;
      // A fetch under way (another request's refetch) may bring this kid too: wait for it rather than refuse.
      if (this.inFlight) return this.inFlight.then(() => this.keys.find(kid, alg));
      const last = this.refetchedFor.get(kid);
      if (last !== undefined && withinLast(UNKNOWN_KID_REFETCH_MS, last, now)) return null;
      this.remember(kid, now);
      this.logger.info('unknown kid: refetching the client JWKS once', { client_id: this.clientId, kid, jwks_uri: this.url });
    } else {
      // A stale (or never fetched) cache is refreshed; that fetch also counts as this kid's refetch.
      this.remember(kid, now);
    }
    return this.refresh().then(() => this.keys.find(kid, alg));
  }

  view(): RemoteJwksView {
    return {
      jwks_uri: this.url,
      jwks: this.jwks,
      fetched_at: this.fetchedAt,
      expires_at: this.fetchedAt === null ? null : this.freshUntil,
      fetches: this.fetches,
      last_error: this.lastError,
    };
  }

  private remember(kid: string, now: number): void {
    this.refetchedFor.delete(kid);
    this.refetchedFor.set(kid, now);
    if (this.refetchedFor.size > MAX_REMEMBERED_KIDS) {
      for (const [known, at] of this.refetchedFor) {
        if (this.refetchedFor.size <= MAX_REMEMBERED_KIDS && withinLast(UNKNOWN_KID_REFETCH_MS, at, now)) break;
        this.refetchedFor.delete(known);
      }
    }
  }

  /** One fetch at a time: concurrent callers share it. A failed fetch keeps the keys at hand. */
  private refresh(): Promise<void> {
    this.inFlight ??= this.fetchOnce().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async fetchOnce(): Promise<void> {
    this.fetches += 1;
    try {
      const { jwks, maxAgeS } = await this.fetchJwks(this.url, this.clientId);
      this.keys = new KeySet(jwks);
      this.jwks = jwks;
      const now = this.now();
      this.fetchedAt = now;
      this.freshUntil = now + (maxAgeS ?? this.ttlS) * 1000;
      this.lastError = null;
    } catch (error) {
      this.lastError = (error as Error).message;
      this.freshUntil = this.now() + FAILED_FETCH_RETRY_MS;
      this.logger.warn('could not fetch a client JWKS; keeping the keys at hand', { client_id: this.clientId, jwks_uri: this.url, error: this.lastError });
    }
  }
}
