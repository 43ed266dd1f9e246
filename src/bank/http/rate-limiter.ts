// A token bucket per client: `ratePerS` refill, `burst` capacity.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(private readonly ratePerS: number, private readonly burst: number) {}

  /** Takes one token; returns 0 when allowed, else the seconds to wait (Retry-After). */
  take(key: string, nowMs: number): number {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedMs: nowMs };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((nowMs - bucket.updatedMs) / 1000) * this.ratePerS);
    bucket.updatedMs = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerS));
  }
}
