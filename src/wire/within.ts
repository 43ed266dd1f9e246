// Waiting with a bound: what a stop does with work in flight (deliveries, requests) before it closes the store.

/** Waits for `work`, but no longer than `ms`; the timer never holds the process up. */
export function within(ms: number, work: Promise<unknown>): Promise<unknown> {
  return Promise.race([work, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
}
