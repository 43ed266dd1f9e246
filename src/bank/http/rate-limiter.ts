// A token bucket per client: `ratePerS` refill, `burst` capacity.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(private readonly ratePerS: number, private readonly burst: number) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait (Retry-After). */
  take(key: string, nowMs: number): number {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedMs: nowMs };
    // A wall clock stepped back (NTP, a VM resumed) refills nothing and takes nothing away: the bucket starts
    // again from the new time. Unclamped, a 10 min step made every client wait 10 min (429, Retry-After 600).
    const elapsedMs = Math.max(0, nowMs - bucket.updatedMs);
    bucket.tokens = Math.min(this.burst, bucket.tokens + (elapsedMs / 1000) * this.ratePerS);
    bucket.updatedMs = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerS));
  }
}
