// The demo's flows as an end-to-end test: the Bank and the reference Connector as child processes (dist/),
// real sockets, mTLS both ways on the dev PKI. Every expected outcome of `npm run demo` must hold.
import { runDemo } from '../../src/demo/run';

describe('end to end: Bank and reference Connector over mTLS', () => {
  it('push 200 SUCCESS/FAILED, PENDING->final, 202->callback, NO_CALLBACK->reverse polling, a pull batch, DUPLICATE_CALLBACK', async () => {
    const result = await runDemo({ timeoutMs: 90_000 });
    const failed = result.checks.filter((check) => !check.ok).map((check) => `${check.name}: ${check.detail}`);
    expect(failed).toEqual([]);
    expect(result.checks.length).toBeGreaterThanOrEqual(9);
    expect(result.timeline.some((line) => line.includes('batch callback'))).toBe(true);
  }, 120_000);
});
