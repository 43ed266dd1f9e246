// One clock for the whole bank, so tests (and a later test clock) can move time.

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Whether `atMs` lies within the `windowMs` before `nowMs`. A time after now (the wall clock stepped back since it
 * was read: NTP, a VM resumed) is not, so a budget or a wait counted from it ends instead of lasting the step too.
 */
export function withinLast(windowMs: number, atMs: number, nowMs: number): boolean {
  const age = nowMs - atMs;
  return age >= 0 && age < windowMs;
}

export class ManualClock implements Clock {
  constructor(private current: number = Date.parse('2026-11-22T10:00:00Z')) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(ms: number): void {
    this.current = ms;
  }
}
