// Fuzzing (issue: robustness suite, fast part): about 11,000 generated bad requests across every endpoint, each
// answered with a 4xx problem body carrying one of the profile's codes (the one the mutation calls for), never a 5xx;
// the Bank keeps serving, and no table but nonces changes (only verified requests spend a nonce).
// FUZZ_SEED=<n> replays a run. The long run (x10) is test/robustness/long/fuzz-long.test.ts.
import { defineFuzzSuite } from './fuzz-suite';

defineFuzzSuite({
  relaxed: { create: 3600, status: 2400, token: 1200, other: 1000, sandbox: 480, admin: 240, raw: 800 },
  strict: { create: 400, status: 400, sandbox: 200, raw: 160 },
  minimum: 10_000,
  seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
});
