// Strict mode never calls back an http:// Connector (sandbox profile section 4; docs/outbound.md: "no connection is
// made"), so a run does not either: its unit and batch cases are SKIPPED with that reason, in the results and the
// JUnit file, and no callback leaves. The rule is the dispatcher's own (plainHttpRefusal). The pull is not affected.
import fs from 'node:fs';
import request from 'supertest';
import { callbacksRefused, playRun, RunDeps, RunPlan } from '../../src/bank/conformance/engine';
import { junitXml } from '../../src/bank/conformance/junit';
import { CASES, CaseResult, ConformanceRun } from '../../src/bank/conformance/model';
import { SentExchange } from '../../src/wire/signed-client';
import { CONFORMANCE_FIXTURE, RunPair, startRunPair } from './helpers';

jest.setTimeout(60_000);

let pair: RunPair;
beforeAll(async () => {
  pair = await startRunPair();
});
afterAll(() => pair.close());

const CALLBACK_CASES = CASES.filter((one) => one.group === 'unit' || one.group === 'batch').map((one) => one.id);

/** Plays `caseIds` against the reference Connector (served over http://) with the Bank's signer; answers the results and every request the run sent. */
async function play(caseIds: string[], allowPlainHttp: boolean): Promise<{ results: CaseResult[]; sent: SentExchange[]; plan: RunPlan }> {
  const sent: SentExchange[] = [];
  const plan: RunPlan = {
    runId: `plain${Math.random().toString(36).slice(2, 8)}`,
    clientId: 'demo-connector',
    caseIds,
    clientOrders: [],
    windowS: 0,
    target: { clientId: 'demo-connector', baseUrl: pair.connector.url, tls: {}, token: async () => 'demo-pull-token' },
    callbackMode: 'auto',
    pullStatus: 'READY',
    pullLimit: 100,
    allowPlainHttp,
  };
  const deps: RunDeps = {
    probe: {
      bankClientId: pair.bank.config.bankClientId, signer: pair.bank.signer, clock: pair.bank.clock, deadlineMs: 5000, maxResponseBytes: 1 << 20, reportBodyLimit: 4096,
      journal: (_clientId, exchange) => {
        sent.push(exchange);
        return null;
      },
    },
    knownReference: () => false,
    publishKey: () => () => undefined,
    jwksFetches: () => null,
    observed: () => null,
    finalDeliveredAt: () => null,
    onCaseFinished: () => undefined,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
  const outcome = await playRun(plan, deps);
  expect(outcome.error).toBeNull();
  return { results: outcome.results, sent, plan };
}

function runOf(results: CaseResult[], plan: RunPlan): ConformanceRun {
  return {
    id: plan.runId, clientId: plan.clientId, state: 'finished', startedAt: '2026-11-22T10:00:00.000Z', finishedAt: '2026-11-22T10:00:01.000Z', durationMs: 1000,
    bankVersion: '0.1.0', connectorUrl: plan.target.baseUrl, cases: plan.caseIds as string[], results, clientOrders: [], windowS: 0, error: null,
  };
}

const fixtureReferences = (): string[] => (JSON.parse(fs.readFileSync(CONFORMANCE_FIXTURE, 'utf8')) as { reference: string }[]).map((order) => order.reference);

describe('a run by a strict Bank against an http:// Connector', () => {
  it('skips every unit and batch case with the reason, makes no callback connection, and still plays the pull', async () => {
    const { results, sent, plan } = await play(['pull.signed_request_accepted', ...CALLBACK_CASES], false);
    const callbacks = results.filter((result) => result.group === 'unit' || result.group === 'batch');
    expect(callbacks.map((result) => result.id)).toEqual(CALLBACK_CASES);
    for (const result of callbacks) {
      expect(result).toMatchObject({ verdict: 'SKIPPED', exchanges: [] });
      expect(result.reason).toMatch(/never calls back an http:\/\/ Connector in strict mode \(refused: callbacks to http:\/\/ Connectors are sent only with SANDBOX_MODE=relaxed\).*no connection made/);
    }
    expect(results.find((result) => result.id === 'pull.signed_request_accepted')?.verdict).toBe('PASSED');
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((exchange) => new URL(exchange.url).pathname.startsWith('/callbacks'))).toEqual([]);
    // Nothing reached the Connector's callbacks: every fixture order is as it was served.
    expect(fixtureReferences().map((reference) => pair.connector.store.order(reference)?.status).filter((status) => status !== 'READY')).toEqual([]);

    const xml = junitXml(runOf(results, plan));
    expect(xml).toContain('<testcase name="unit.valid_callback_accepted" classname="conformance.unit"');
    expect(xml).toMatch(/<testcase name="batch.valid_batch_accepted"[^>]*>\s*<skipped message="the Bank never calls back an http:\/\/ Connector in strict mode/);
  });

  it('makes no request at all when only callback cases are planned (no discovery pull for cases that do not apply)', async () => {
    const { results, sent } = await play(CALLBACK_CASES, false);
    expect(results.map((result) => result.verdict)).toEqual(CALLBACK_CASES.map(() => 'SKIPPED'));
    expect(sent).toEqual([]);
  });

  it('the same run in relaxed mode sends the callbacks', async () => {
    const { results, sent } = await play(['unit.valid_callback_accepted'], true);
    expect(results.map((result) => [result.id, result.verdict])).toEqual([['unit.valid_callback_accepted', 'PASSED']]);
    expect(sent.filter((exchange) => new URL(exchange.url).pathname === '/callbacks/orders/status')).toHaveLength(1);
  });
});

it('the rule is the dispatcher\'s: only http:// in strict mode is refused', () => {
  const target = (baseUrl: string) => ({ clientId: 'c', baseUrl, tls: {}, token: async () => null });
  expect(callbacksRefused({ target: target('http://localhost:9090'), allowPlainHttp: false })).toMatch(/strict mode/);
  expect(callbacksRefused({ target: target('http://localhost:9090'), allowPlainHttp: true })).toBeNull();
  expect(callbacksRefused({ target: target('https://localhost:9443'), allowPlainHttp: false })).toBeNull();
});

it('a strict Bank passes its mode to the run: POST /sandbox/conformance-runs skips the callback cases of an http:// Connector', async () => {
  const strict = await startRunPair({}, { sandboxMode: 'strict', adminToken: 'conformance-admin' });
  try {
    const started = await request(strict.bank.app)
      .post('/sandbox/conformance-runs')
      .set('authorization', 'Bearer conformance-admin')
      .send({ client_id: 'demo-connector', cases: ['unit.valid_callback_accepted', 'batch.valid_batch_accepted'] });
    expect(started.status).toBe(202);
    const run = await strict.bank.conformance.finished(started.body.id);
    expect(run?.results.map((result) => [result.id, result.verdict])).toEqual([
      ['unit.valid_callback_accepted', 'SKIPPED'],
      ['batch.valid_batch_accepted', 'SKIPPED'],
    ]);
    expect(run?.results[0].reason).toMatch(/never calls back an http:\/\/ Connector in strict mode/);
  } finally {
    await strict.close();
  }
});
