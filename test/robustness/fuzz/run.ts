// Running a generator in batches of concurrent requests, every answer checked; the per-code summary.
import fc from 'fast-check';
import { sendAndCheck } from './oracle';
import { RequestArb, WireRequest } from './requests';
import { FuzzTarget } from './types';

/** Request makers print as a placeholder in counterexamples (the failure message carries the request itself). */
function named(arb: fc.Arbitrary<(t: FuzzTarget) => WireRequest>): fc.Arbitrary<(t: FuzzTarget) => WireRequest> {
  return arb.map((make) => Object.assign((t: FuzzTarget) => make(t), { [fc.toStringMethod]: () => '<request>' }));
}

/** Sends `runs` batches of `batch` concurrent requests from `arb`, checking every answer. Returns requests sent. */
export async function runBatches(t: FuzzTarget, requests: RequestArb, runs: number, batch = 8, seed?: number): Promise<number> {
  const before = t.stats.requests;
  await fc.assert(
    fc.asyncProperty(fc.array(named(requests.arb), { minLength: batch, maxLength: batch }), async (makers) => {
      // allSettled: a failure must not leave requests in flight into the next property.
      const outcomes = await Promise.allSettled(makers.map(async (make) => sendAndCheck(t, make(t))));
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
  return t.stats.requests - before;
}

export function describeStats(t: FuzzTarget): string {
  const codes = [...t.stats.byCode.entries()].sort((a, b) => b[1] - a[1]).map(([code, count]) => `${code}=${count}`).join(' ');
  return `${t.mode}: ${t.stats.requests} requests; ${codes}`;
}
