// The per-client token bucket (http/rate-limiter.ts) against a wall clock that steps back: no refill, and no debt.
import { RateLimiter } from '../../src/bank/http/rate-limiter';

const T = Date.parse('2026-11-29T20:00:00Z');

describe('RateLimiter', () => {
  it('refills at its rate up to its burst, and names the wait', () => {
    const limiter = new RateLimiter(1, 2);
    expect([limiter.take('acme', T), limiter.take('acme', T), limiter.take('acme', T)]).toEqual([0, 0, 1]);
    expect(limiter.take('acme', T + 1000)).toBe(0);
    expect(limiter.take('other', T)).toBe(0);
  });

  it('lets a client on after the wall clock steps back 10 minutes (the defaults: a million a second)', () => {
    const limiter = new RateLimiter(1_000_000, 1_000_000);
    expect(limiter.take('acme', T)).toBe(0);
    expect(limiter.take('acme', T - 600_000)).toBe(0);
  });

  it('after a step back, refills from the new time rather than waiting for the old one', () => {
    const limiter = new RateLimiter(1, 1);
    expect(limiter.take('acme', T)).toBe(0);
    expect(limiter.take('acme', T - 600_000)).toBe(1);
    expect(limiter.take('acme', T - 599_000)).toBe(0);
  });
});

describe('RateLimiter buckets', () => {
  it('forgets the clients whose buckets have refilled once the map has doubled, and keeps those still short', () => {
    const limiter = new RateLimiter(1, 2);
    limiter.take('busy', T);
    limiter.take('busy', T);
    for (let i = 0; i < 1023; i += 1) limiter.take(`deleted-${i}`, T - 10_000);
    expect(limiter.size).toBe(1024);
    limiter.take('newcomer', T);
    expect(limiter.size).toBe(2);
    // The busy client's bucket was kept, still empty: its next request waits.
    expect(limiter.take('busy', T)).toBe(1);
  });
});
