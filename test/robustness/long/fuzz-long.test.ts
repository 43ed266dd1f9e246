// Long suite (`npm run test:long`): the fuzz suite of test/robustness/fuzz.test.ts at ten times the requests
// (about 109,000), with a one-day timestamp window so that the nonces spent at the start stay spent to the end.
// FUZZ_SEED=<n> replays a run.
import { defineFuzzSuite } from '../fuzz-suite';

defineFuzzSuite({
  relaxed: { create: 36_000, status: 24_000, token: 12_000, other: 10_000, sandbox: 4_800, admin: 2_400, raw: 8_000 },
  strict: { create: 4_000, status: 4_000, sandbox: 2_000, raw: 1_600 },
  minimum: 100_000,
  seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
  overrides: { timestampWindowS: 86_400 },
});
