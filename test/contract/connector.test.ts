// Contract tests of GET /openapi/connector.json against real traffic: an in-process Bank pulls from the reference
// Connector and calls it back (unit, then batch mode). Every request the Bank sends must match the document
// (required headers present, each header, query parameter and body valid against its schema), and every answer
// of the reference Connector too (status, content type, body).
import { connectorDocument } from '../../src/bank/http/openapi/documents';
import { ManualClock } from '../../src/wire/clock';
import { bankSignedHeaders, Pair, startPair } from '../connector/helpers';
import { ContractChecker, observeApp } from '../helpers/contract';
import { drain } from '../helpers/outbound';
import request from 'supertest';

const doc = connectorDocument();

describe.each(['unit', 'batch'] as const)('the Bank and the reference Connector against /openapi/connector.json (%s callbacks)', (mode) => {
  const clock = new ManualClock(Date.now());
  const checker = new ContractChecker(doc, { emptyWhenUndescribed: false });
  const requestViolations: string[] = [];
  const answerViolations: string[] = [];
  let requestsChecked = 0;
  let pair: Pair;

  beforeAll(async () => {
    pair = await startPair(clock, { callbackMode: mode });
    observeApp(pair.connector.app, (observed) => {
      answerViolations.push(...checker.check(observed));
      // Only what the Bank itself sent is judged on the request side (the refusal test below sends a bad one).
      if (observed.request?.headers['x-client-id'] === pair.bank.config.bankClientId && observed.request.headers['x-signature'] !== 'not-a-jws') {
        requestsChecked += 1;
        requestViolations.push(...checker.checkRequest(observed));
      }
    });
  });
  afterAll(() => pair.close());

  it('pulls, settles and calls back: every request the Bank sends and every answer match the document', async () => {
    const [report] = await pair.bank.outbound.poller.runCycle();
    expect(report.outcome).toBe('ok');
    await drain(pair.bank);
    clock.advance(6_000);
    await drain(pair.bank);
    const [again] = await pair.bank.outbound.poller.runCycle();
    expect(again.outcome).toBe('no_content');
    expect(requestViolations).toEqual([]);
    expect(answerViolations).toEqual([]);
    expect(requestsChecked).toBeGreaterThanOrEqual(3);
    const callback = mode === 'unit' ? 'POST /callbacks/orders/status 200' : 'POST /callbacks/orders/status/batch 200';
    expect([...checker.exercised]).toEqual(expect.arrayContaining(['GET /payment-orders 200', 'GET /payment-orders 204', callback]));
  });

  it('a refusal of the Connector matches the document too', async () => {
    const target = '/payment-orders?status=READY&limit=10&offset=2026-01-01T00:00:00Z';
    const headers = bankSignedHeaders(pair.bank.signer, 'pull', 'GET', target, '', clock);
    const refused = await request(pair.connector.app).get(target).set({ ...headers, 'x-signature': 'not-a-jws', authorization: 'Bearer demo-pull-token' });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(answerViolations).toEqual([]);
  });

  it('the request checker names what breaks the document', () => {
    const base = { method: 'POST', url: '/callbacks/orders/status', status: 200, headers: {}, body: Buffer.alloc(0), partial: false };
    const headers = { 'x-client-id': 'sandbox-bank', 'x-timestamp': '2026-11-22T10:00:00Z', 'x-nonce': 'n'.repeat(16), 'x-idempotency-key': 'k', 'x-signature': 'a..b', 'content-digest': 'sha-256=:AAAA:', 'content-type': 'application/json' };
    const body = Buffer.from(JSON.stringify({ reference: 'R', bank_reference: 'B', status: 'FAILED', processed_at: '2026-11-22T10:00:00Z' }));
    const { 'x-nonce': _nonce, ...withoutNonce } = headers;
    expect(checker.checkRequest({ ...base, request: { headers: withoutNonce, body } })).toEqual(expect.arrayContaining([expect.stringContaining('X-Nonce is missing'), expect.stringContaining("must have required property 'reasonCode'")]));
  });
});
