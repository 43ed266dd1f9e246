// The Bank's public keys, fetched from its JWKS (GET /.well-known/jwks.json) and cached.
// What it shows a Connector team: verify the Bank with the keys it publishes, never with a key pasted into the
// code; refetch when a signature names a kid the cache does not know (the Bank rotated its key), even if the
// JWKS was fetched a moment ago, but not on every request: a kid is refetched for once, and a burst of made-up
// kids costs at most UNKNOWN_KID_BURST fetches per MIN_REFETCH_MS.
import { KeyObject } from 'node:crypto';
import type { Logger } from 'winston';
import { JwsAlg } from '../wire/algorithms';
import { Jwks, KeySet } from '../wire/keys';
import { Flaws } from './flaws';
import { Problem } from './problems';
import { withinLast } from '../wire/clock';

/** A cached JWKS older than this is refetched before use. */
const MAX_AGE_MS = 60 * 60_000;
/** The window of the unknown-kid refetch budget. Only unknown-kid refetches count: the first fetch and the max-age refresh do not. */
const MIN_REFETCH_MS = 5_000;
/**
 * Unknown-kid refetches allowed per MIN_REFETCH_MS. Two, not one: a made-up kid followed at once by a genuinely
 * rotated key (as conformance plays unit.unknown_kid_rejected then unit.rotated_key_accepted) must still find it.
 */
const UNKNOWN_KID_BURST = 2;
/** A kid already refetched for is not refetched for again within this time (a repeated made-up kid costs one fetch). */
const KID_MEMORY_MS = 60_000;
/** Kids remembered at most (the oldest is forgotten first). */
const KID_MEMORY_SIZE = 1_000;

export class BankJwks {
  private keys: KeySet | null = null;
  private fetchedAt = 0;
  private inFlight: Promise<void> | null = null;
  /** When each recent unknown-kid refetch started. */
  private kidRefetches: number[] = [];
  /** kid -> when it last triggered a refetch. */
  private readonly kidsRefetched = new Map<string, number>();

  constructor(
    private readonly fetchJwks: () => Promise<Jwks>,
    private readonly now: () => number,
    private readonly logger: Logger,
    private readonly flaws: Flaws = Flaws.NONE,
  ) {}

  /** The Bank's key for this kid and alg, or null when the Bank does not publish one. */
  async keyFor(kid: string, alg: JwsAlg): Promise<KeyObject | null> {
    if (!this.keys || !withinLast(MAX_AGE_MS, this.fetchedAt, this.now())) await this.refresh();
    const known = this.keys?.find(kid, alg) ?? null;
    if (known) return known;
    if (this.inFlight) {
      // Another request's refetch is under way: its answer may hold this kid too.
      await this.inFlight;
      return this.keys?.find(kid, alg) ?? null;
    }
    if (!this.mayRefetchFor(kid)) return null;
    if (this.flaws.has('no_jwks_refetch')) return null; // FLAW no_jwks_refetch: never looks for a rotated key
    this.logger.info('unknown kid: refetching the Bank JWKS', { kid });
    this.recordKidRefetch(kid);
    await this.refresh();
    return this.keys?.find(kid, alg) ?? null;
  }

  /** Once per kid (within KID_MEMORY_MS), and at most UNKNOWN_KID_BURST unknown-kid refetches per MIN_REFETCH_MS. */
  private mayRefetchFor(kid: string): boolean {
    const now = this.now();
    const last = this.kidsRefetched.get(kid);
    if (last !== undefined && withinLast(KID_MEMORY_MS, last, now)) return false;
    this.kidRefetches = this.kidRefetches.filter((at) => withinLast(MIN_REFETCH_MS, at, now));
    return this.kidRefetches.length < UNKNOWN_KID_BURST;
  }

  private recordKidRefetch(kid: string): void {
    const now = this.now();
    this.kidRefetches.push(now);
    this.kidsRefetched.delete(kid); // re-inserted last: Map order is the forgetting order
    this.kidsRefetched.set(kid, now);
    if (this.kidsRefetched.size > KID_MEMORY_SIZE) this.kidsRefetched.delete(this.kidsRefetched.keys().next().value as string);
  }

  /** Fetches the JWKS; concurrent callers share one fetch. Keeps the old keys when a refetch fails. */
  private refresh(): Promise<void> {
    if (!this.inFlight) {
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
