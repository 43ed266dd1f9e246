// The reference Connector passes every case (conformance.md section 5), end to end over real sockets.
import { notPassed, runConformance, RunPair, startRunPair } from './helpers';

jest.setTimeout(60_000);

let pair: RunPair;
beforeAll(async () => {
  pair = await startRunPair();
});
afterAll(() => pair.close());

it('the reference Connector passes every case that applies to it (transport cases apply to https only)', async () => {
  const run = await runConformance(pair);
  expect(run.state).toBe('finished');
  expect(run.error).toBeNull();
  expect(notPassed(run).filter((line) => !line.startsWith('SKIPPED transport.'))).toEqual([]);
  expect(run.results.map((result) => result.id)).toHaveLength(33);
});
