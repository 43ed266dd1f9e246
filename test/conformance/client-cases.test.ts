// The client.* cases judge the Connector's own requests as the journal kept them. Played here through the engine
// with those requests made up, so each rule is held against exact times and answers.
import { playRun, RunDeps, RunPlan } from '../../src/bank/conformance/engine';
import { ObservedRequest } from '../../src/bank/conformance/case';
import { CaseResult } from '../../src/bank/conformance/model';
import { Bank } from '../../src/bank/bank';
import { startBank } from '../helpers/bank';

let bank: Bank;
beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed', pollCron: 'off' });
});
afterAll(() => bank.close());

const REFERENCE = 'CONF-test-backoff';

function poll(at: number, status: number | null, code: string | null = null): ObservedRequest {
  return {
    journalId: at, at, answeredAt: at + 5, method: 'GET', url: `https://bank/payment-orders/${REFERENCE}/status`, path: `/payment-orders/${REFERENCE}/status`,
    status, code, headers: {}, body: null, responseHeaders: {}, responseBody: status === 200 ? '{"status":"PENDING"}' : null, curl: 'curl …', reference: REFERENCE,
  };
}

/** Plays client.polls_with_backoff over `observed`, the requests the journal would hold. */
async function backoffVerdict(observed: ObservedRequest[]): Promise<CaseResult> {
  const plan: RunPlan = {
    runId: 'client-cases', clientId: 'demo-connector', caseIds: ['client.polls_with_backoff'],
    clientOrders: [{ reference: REFERENCE, sandbox_scenario: 'NO_CALLBACK', case: 'client.polls_with_backoff', order: {} }],
    windowS: 0, target: { clientId: 'demo-connector', baseUrl: 'http://127.0.0.1:9', tls: {}, token: async () => 'unused' },
    callbackMode: 'auto', pullStatus: 'READY', pullLimit: 100, allowPlainHttp: true,
  };
  const deps: RunDeps = {
    probe: { bankClientId: 'sandbox-bank', signer: bank.signer, clock: bank.clock, deadlineMs: 1000, maxResponseBytes: 1 << 20, reportBodyLimit: 4096, journal: () => null },
    knownReference: () => false, publishKey: () => () => undefined, jwksFetches: () => null,
    observed: () => observed, finalDeliveredAt: () => null, onCaseFinished: () => undefined, sleep: async () => undefined,
  };
  const outcome = await playRun(plan, deps);
  expect(outcome.error).toBeNull();
  return outcome.results[0];
}

describe('client.polls_with_backoff', () => {
  it('passes growing intervals between polls answered with the status', async () => {
    const result = await backoffVerdict([poll(0, 200), poll(1000, 200), poll(3000, 200), poll(7000, 200)]);
    expect([result.verdict, result.seen]).toEqual(['PASSED', '4 polls, at +0.0 s, +1.0 s, +3.0 s, +7.0 s']);
  });

  it('fails an interval that shrinks beyond the tolerance, and one that never grows', async () => {
    expect((await backoffVerdict([poll(0, 200), poll(2000, 200), poll(3000, 200)])).verdict).toBe('FAILED');
    expect((await backoffVerdict([poll(0, 200), poll(1000, 200), poll(2000, 200), poll(3000, 200)])).verdict).toBe('FAILED');
  });

  it('skips, saying how they were answered, when the Bank refused every poll: refusals show error handling, not backoff', async () => {
    // A strict Bank and a plain-HTTP Connector: every poll 403 mtls_required (docs/conformance.md). Before, these
    // growing intervals were PASSED.
    const result = await backoffVerdict([poll(0, 403, 'mtls_required'), poll(2000, 403, 'mtls_required'), poll(6000, 403, 'mtls_required')]);
    expect(result.verdict).toBe('SKIPPED');
    expect(result.reason).toBe(`no poll of ${REFERENCE} was answered with its status (3 answered 403 mtls_required)`);
  });

  it('judges only the answered polls when some were refused', async () => {
    const mixed = [poll(0, 401, 'auth_invalid'), poll(500, 200), poll(1500, 200), poll(3500, 200)];
    const result = await backoffVerdict(mixed);
    expect([result.verdict, result.seen]).toEqual(['PASSED', '3 polls, at +0.0 s, +1.0 s, +3.0 s']);
    expect((await backoffVerdict([poll(0, 200), poll(1000, 200), poll(1200, 500)])).verdict).toBe('WARNING');
  });
});
