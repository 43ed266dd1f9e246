// A token bucket per client: `ratePerS` refill, `burst` capacity.

/** Buckets kept before the first sweep of full ones. */
const SWEEP_FROM = 1024;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();
  private sweepAt = SWEEP_FROM;

  constructor(private readonly ratePerS: number, private readonly burst: number) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait (Retry-After). */
  take(key: string, nowMs: number): number {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.burst, updatedMs: nowMs };
      this.add(key, bucket, nowMs);
    }
    // A wall clock stepped back (NTP, a VM resumed) refills nothing and takes nothing away: the bucket starts
    // again from the new time. Unclamped, a 10 min step made every client wait 10 min (429, Retry-After 600).
    const elapsedMs = Math.max(0, nowMs - bucket.updatedMs);
    bucket.tokens = Math.min(this.burst, bucket.tokens + (elapsedMs / 1000) * this.ratePerS);
    bucket.updatedMs = nowMs;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerS));
  }

  /**
   * A bucket that has refilled to its burst says nothing a new one would not, so when the map has doubled since the
   * last sweep the full ones go: clients registered and deleted at run time do not stay in it for the process's life.
   */
  private add(key: string, bucket: { tokens: number; updatedMs: number }, nowMs: number): void {
    if (this.buckets.size >= this.sweepAt) {
      for (const [known, kept] of this.buckets) {
        if (kept.tokens + (Math.max(0, nowMs - kept.updatedMs) / 1000) * this.ratePerS >= this.burst) this.buckets.delete(known);
      }
      this.sweepAt = Math.max(SWEEP_FROM, this.buckets.size * 2);
    }
    this.buckets.set(key, bucket);
  }

  /** How many clients have a bucket (for tests). */
  get size(): number {
    return this.buckets.size;
  }
}
