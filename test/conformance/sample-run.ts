// Realistic conformance runs for the report tests, built by hand against model.ts (the engine is written
// separately): a finished run with every verdict in several groups, a case with no exchanges, an exchange with a
// network error and no answer, a hostile Connector answer (<script>, "]]>", control characters, a lone surrogate,
// non-ASCII text), and an aborted run.
import { caseInfo, CaseResult, CASES, ConformanceRun, RecordedExchange, Verdict } from '../../src/bank/conformance/model';

export const CONNECTOR_URL = 'https://connector.example.test:8443';

/** What a hostile or broken Connector may answer: markup, a CDATA end, C0/C1 controls, a lone surrogate, non-ASCII. */
export const HOSTILE_BODY =
  '{"error":"<script>window.__pwned = 1; alert(1)</script><img src=x onerror="window.__pwned = 2">",' +
  '"cdata":"]]> and ]]&gt;","controls":"\u0000\u0001\u0007\u001b[31m\u007f\u0085\ufffe","surrogate":"\ud800",' +
  '"note":"Zahlung für Müller – 東京 ✓ 😀","link":"https://evil.example/x.js","quote":"\'\\"&amp;"}';

/** The text that must show up (escaped) wherever the hostile body is rendered. */
export const HOSTILE_MARKER = '<script>window.__pwned = 1; alert(1)</script>';

const SIGNATURE = 'eyJhbGciOiJFUzI1NiIsImtpZCI6ImJhbmstMjAyNSJ9..MEUCIQDexampleSignatureOnly';

function signedHeaders(extra: Record<string, string | string[]> = {}): Record<string, string | string[]> {
  return {
    authorization: 'Bearer ****',
    'x-client-id': 'acme-connector',
    'x-timestamp': '2025-03-04T10:00:01Z',
    'x-nonce': 'n-6f1c2d9a',
    'x-signature': SIGNATURE,
    ...extra,
  };
}

function signatureBase(method: string, path: string, body: string): string {
  return [`${method} ${path}`, 'x-client-id: acme-connector', 'x-timestamp: 2025-03-04T10:00:01Z', 'x-nonce: n-6f1c2d9a', '', body].join('\n');
}

let journalSequence = 4100;

export function exchange(overrides: Partial<RecordedExchange> & { label: string }): RecordedExchange {
  const method = overrides.method ?? 'GET';
  const url = overrides.url ?? `${CONNECTOR_URL}/payment-orders?limit=50`;
  const body = overrides.request?.body ?? '';
  journalSequence += 1;
  return {
    direction: 'out',
    at: '2025-03-04T10:00:01.120Z',
    method,
    url,
    request: { headers: signedHeaders(), body, truncated: false },
    jwsHeader: { alg: 'ES256', kid: 'bank-2025', b64: false, crit: ['b64'] },
    signatureBase: signatureBase(method, new URL(url).pathname + new URL(url).search, body),
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"orders":[],"next_offset":null}', truncated: false },
    error: null,
    latencyMs: 14,
    curl: `curl -sS -X ${method} '${url}' -H 'Authorization: Bearer <token>' -H 'X-Signature: <signature>'`,
    journalId: journalSequence,
    misbehaviour: null,
    ...overrides,
  };
}

export function result(id: string, verdict: Verdict, seen: string, exchanges: RecordedExchange[], reason: string | null = null): CaseResult {
  const info = caseInfo(id);
  if (info === undefined) throw new Error(`no case ${id}`);
  return { id, group: info.group, clause: info.clause, verdict, expected: info.expected, seen, reason, startedAt: '2025-03-04T10:00:01.100Z', durationMs: 20 + exchanges.length * 15, exchanges };
}

const PAGE = JSON.stringify({
  orders: [{ reference: 'ORD-1001', amount: { value: 12550, currency: 'EUR' }, creditor: { name: 'Zahlung für Müller – 東京' }, initiated_at: '2025-03-04T09:58:00Z' }],
  next_offset: '2025-03-04T09:58:00Z',
});

const CALLBACK = '{"reference":"ORD-1001","status":"SUCCESS"}';

function sampleResults(): CaseResult[] {
  return [
    result('pull.signed_request_accepted', 'PASSED', '200 with a page of 1 order', [
      exchange({ label: 'signed pull', response: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: PAGE, truncated: false } }),
    ]),
    result('pull.page_respects_limit', 'PASSED', '1 order for limit=1, 2 for limit=2', [
      exchange({ label: 'pull with limit=1', url: `${CONNECTOR_URL}/payment-orders?limit=1` }),
      exchange({ label: 'pull with limit=2', url: `${CONNECTOR_URL}/payment-orders?limit=2`, response: { status: 200, headers: { 'content-type': 'application/json' }, body: 'x'.repeat(2048), truncated: true } }),
    ]),
    result('pull.unsigned_rejected', 'FAILED', '200', [
      exchange({ label: 'pull without X-Signature', misbehaviour: 'X-Signature header removed', jwsHeader: null, signatureBase: null, request: { headers: { authorization: 'Bearer ****', 'set-cookie': ['a=1', 'b=2'] }, body: '', truncated: false } }),
    ]),
    result('pull.missing_token_rejected', 'FAILED', 'no answer: connect ECONNREFUSED 127.0.0.1:8443', [
      exchange({ label: 'pull without Authorization', misbehaviour: 'Authorization header removed', response: null, error: 'connect ECONNREFUSED 127.0.0.1:8443', latencyMs: 3, journalId: null }),
    ]),
    result('unit.valid_callback_accepted', 'PASSED', '200', [
      exchange({ label: 'SUCCESS callback', method: 'POST', url: `${CONNECTOR_URL}/callbacks/payment-status`, request: { headers: signedHeaders({ 'x-idempotency-key': 'cb-ORD-1001-1', 'content-type': 'application/json' }), body: CALLBACK, truncated: false } }),
    ]),
    result('unit.bad_signature_rejected', 'FAILED', `200 with body ${HOSTILE_BODY}`, [
      exchange({
        label: 'callback with the body changed after signing',
        method: 'POST',
        url: `${CONNECTOR_URL}/callbacks/payment-status`,
        misbehaviour: 'body changed after signing <b>bold?</b>',
        request: { headers: signedHeaders({ 'x-idempotency-key': 'cb-ORD-1002-1' }), body: CALLBACK.replace('SUCCESS', 'FAILED'), truncated: false },
        response: { status: 200, headers: { 'content-type': 'text/html', 'x-debug': '<b onmouseover="alert(1)">hi</b> \u0001' }, body: HOSTILE_BODY, truncated: false },
      }),
    ]),
    result('unit.final_status_not_changed', 'WARNING', '200 to FAILED after SUCCESS', [
      exchange({ label: 'SUCCESS', method: 'POST', url: `${CONNECTOR_URL}/callbacks/payment-status`, request: { headers: signedHeaders(), body: CALLBACK, truncated: false } }),
      exchange({ label: 'FAILED under a new key', method: 'POST', url: `${CONNECTOR_URL}/callbacks/payment-status`, request: { headers: signedHeaders(), body: '{"reference":"ORD-1003","status":"FAILED","reasonCode":"AC04"}', truncated: false } }),
    ], 'the Connector answered 200 to a change of a final status (the contract forbids the change, not the answer)'),
    result('transport.client_certificate_required', 'PASSED', 'TLS handshake refused', [
      exchange({ label: 'connect without a client certificate', misbehaviour: 'no client certificate', response: null, error: 'write EPROTO: tlsv13 alert certificate required', jwsHeader: null, signatureBase: null }),
    ]),
    result('transport.foreign_ca_refused', 'SKIPPED', 'not run', [], 'the Connector has no foreign-CA check configured in this sandbox'),
    result('client.create_signed_correctly', 'PASSED', '3 creates, all verified', [
      exchange({ label: 'create CONF-r1-0001', direction: 'in', method: 'POST', url: 'https://bank.example.test/payment-orders', request: { headers: signedHeaders({ 'x-idempotency-key': 'CONF-r1-0001' }), body: '{"reference":"CONF-r1-0001"}', truncated: false }, response: { status: 201, headers: { location: '/payment-orders/CONF-r1-0001' }, body: '', truncated: false } }),
    ]),
    result('client.polls_with_backoff', 'SKIPPED', 'no status poll', [], 'the Connector made no status poll during the run'),
  ];
}

export function sampleRun(): ConformanceRun {
  const results = sampleResults();
  return {
    id: 'r1',
    clientId: 'acme-connector',
    state: 'finished',
    startedAt: '2025-03-04T10:00:00.512Z',
    finishedAt: '2025-03-04T10:00:41.907Z',
    durationMs: 41_395,
    bankVersion: '0.1.0',
    connectorUrl: CONNECTOR_URL,
    cases: results.map((one) => one.id),
    results,
    clientOrders: [
      { reference: 'CONF-r1-0001', sandbox_scenario: 'SUCCESS', case: 'client.create_signed_correctly', order: { reference: 'CONF-r1-0001' } },
      { reference: 'CONF-r1-0002', sandbox_scenario: 'PENDING_LONG', case: 'client.polls_with_backoff', order: { reference: 'CONF-r1-0002' } },
    ],
    windowS: 20,
    error: null,
  };
}

/** A run that stopped after two pull cases: every other planned case has no result. */
export function abortedRun(): ConformanceRun {
  const results = sampleResults().filter((one) => one.id === 'pull.signed_request_accepted' || one.id === 'pull.missing_token_rejected');
  return {
    ...sampleRun(),
    id: 'r2',
    state: 'aborted',
    finishedAt: '2025-03-04T10:00:03.000Z',
    durationMs: 2488,
    cases: CASES.filter((one) => one.group === 'pull' || one.group === 'unit').map((one) => one.id),
    results,
    error: 'Connector unreachable: connect ECONNREFUSED 127.0.0.1:8443 <for every case>',
  };
}
