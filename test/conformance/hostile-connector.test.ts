// Bad input and safety (issue 4/7): a Connector that hangs, resets the connection, answers garbage, a huge body,
// a body that trickles, or accepts anything, makes the affected cases FAILED with a message naming the problem;
// the run always ends (finished, or aborted with a clear error when the Connector answered nothing at all) and
// the Bank still answers afterwards. Each behaviour is a small server of its own (hostile-connectors.ts),
// registered as a client's Connector at run time. The per-exchange deadline is shortened to 1 s through
// CONFORMANCE_EXCHANGE_TIMEOUT_MS (default 5 s) so that the time-outs stay quick.
import fs from 'node:fs';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { CaseResult, ConformanceRun } from '../../src/bank/conformance/model';
import { ensureDevPki } from '../../src/bank/security/pki';
import { startBank, tempDir } from '../helpers/bank';
import {
  acceptsAnything, FIVE_MB, garbage, hangs, HostileConnector, hugeBody, httpConnector, httpsConnector, notHttp, registerConnector, resets, runToEnd,
  socketConnector, trickles,
} from './hostile-connectors';

jest.setTimeout(60_000);

// Long enough for a 1 MiB answer or a TLS handshake on a loaded machine, short enough for the hanging cases.
const DEADLINE_MS = 2_500;
/** The answer size limit of a run's exchanges (CONFORMANCE_DEFAULTS in src/bank/bank.ts). */
const BODY_LIMIT = 1024 * 1024;
/** A signed pull the Connector must serve, and one it must refuse. */
const PULL_CASES = ['pull.signed_request_accepted', 'pull.unsigned_rejected'];

let bank: Bank;
let pki: { ca: Buffer; cert: Buffer; key: Buffer; serverCert: Buffer; serverKey: Buffer };
const hostiles: HostileConnector[] = [];

beforeAll(async () => {
  const { files } = await ensureDevPki({ dir: tempDir('hostile-pki-'), bankClientId: 'sandbox-bank', clientIds: ['hostile-tls'], serverNames: [] });
  const read = (file: string) => fs.readFileSync(file);
  pki = { ca: read(files.caCert), cert: read(files.bankClientCert), key: read(files.bankClientKey), serverCert: read(files.clientCert('hostile-tls')), serverKey: read(files.clientKey('hostile-tls')) };
  bank = await startBank({ sandboxMode: 'relaxed', pollCron: 'off', conformanceExchangeTimeoutMs: DEADLINE_MS }, { connectorTls: { ca: pki.ca, cert: pki.cert, key: pki.key } });
});
afterAll(async () => {
  await Promise.all(hostiles.map((hostile) => hostile.close()));
  await bank.outbound.stop(1000);
  bank.close();
});

/** Registers `hostile` as the Connector of client `clientId` and plays `cases` against it to the end. */
async function runAgainst(hostile: HostileConnector, clientId: string, cases: string[]): Promise<ConformanceRun> {
  hostiles.push(hostile);
  await registerConnector(bank, clientId, hostile.url);
  return runToEnd(bank, { client_id: clientId, cases });
}

function resultOf(run: ConformanceRun, id: string): CaseResult {
  const result = run.results.find((one) => one.id === id);
  if (!result) throw new Error(`no result for ${id} in ${run.results.map((one) => one.id).join(', ')}`);
  return result;
}

/** Every planned case has a result, each of `cases` FAILED with a message that matches `problem`. */
function expectFailedWith(run: ConformanceRun, cases: string[], problem: RegExp): void {
  expect(run.results.map((result) => result.id)).toEqual(run.cases);
  for (const id of cases) {
    const result = resultOf(run, id);
    expect([id, result.verdict]).toEqual([id, 'FAILED']);
    expect(result.seen).toMatch(problem);
    // The exchanges are in the report, with the problem in place of an answer.
    expect(result.exchanges.length).toBeGreaterThan(0);
  }
}

/** The run is over as the API shows it, and the Bank still serves its API and its own endpoints. */
async function expectBankStillAnswers(run: ConformanceRun): Promise<void> {
  expect((await request(bank.app).get('/healthz')).status).toBe(200);
  const shown = await request(bank.app).get(`/sandbox/conformance-runs/${run.id}`);
  expect(shown.status).toBe(200);
  expect(shown.body.state).toBe(run.state);
  expect(shown.body.finished_at).not.toBeNull();
  expect((await request(bank.app).get(`/sandbox/conformance-runs/${run.id}/junit.xml`)).status).toBe(200);
  expect((await request(bank.app).get(`/sandbox/conformance-runs/${run.id}/report.html`)).status).toBe(200);
}

/** A Connector that gave no complete answer at all: the run is aborted, and its error says why. */
function expectAbortedFor(run: ConformanceRun, hostile: HostileConnector, problem: RegExp): void {
  expect(run.state).toBe('aborted');
  expect(run.error).toContain(`the Connector at ${hostile.url} answered none of the run's`);
  expect(run.error).toMatch(problem);
}

describe('a Connector that gives no usable answer', () => {
  it('never answers: each case FAILED on the per-exchange deadline, the run aborted saying so', async () => {
    const hostile = await httpConnector(hangs);
    const run = await runAgainst(hostile, 'hostile-hangs', PULL_CASES);
    const timeOut = new RegExp(`time-out: no complete answer within the ${DEADLINE_MS} ms deadline`);
    expectFailedWith(run, PULL_CASES, timeOut);
    expectAbortedFor(run, hostile, timeOut);
    // Discovery and both cases asked; none waited beyond its own deadline.
    expect(hostile.hits).toBe(3);
    await expectBankStillAnswers(run);
  });

  it('resets the connection: each case FAILED naming the reset', async () => {
    const hostile = await socketConnector(resets);
    const run = await runAgainst(hostile, 'hostile-resets', PULL_CASES);
    expectFailedWith(run, PULL_CASES, /connection reset: .*ECONNRESET/);
    expectAbortedFor(run, hostile, /connection reset/);
    await expectBankStillAnswers(run);
  });

  it('answers bytes that are not HTTP: each case FAILED saying so', async () => {
    const hostile = await socketConnector(notHttp);
    const run = await runAgainst(hostile, 'hostile-not-http', PULL_CASES);
    expectFailedWith(run, PULL_CASES, /not HTTP: the answer could not be parsed as an HTTP response/);
    expectAbortedFor(run, hostile, /not HTTP/);
    await expectBankStillAnswers(run);
  });

  it('answers a 5 MB body: each case FAILED on the body limit, the body never kept', async () => {
    const hostile = await httpConnector(hugeBody);
    const run = await runAgainst(hostile, 'hostile-huge', PULL_CASES);
    expectFailedWith(run, PULL_CASES, new RegExp(`body limit: the answer is larger than the ${BODY_LIMIT} bytes a run reads`));
    expectAbortedFor(run, hostile, /body limit/);
    expect(JSON.stringify(run).length).toBeLessThan(FIVE_MB / 10);
    await expectBankStillAnswers(run);
  });

  it('trickles its body one byte every 200 ms: the deadline covers the whole exchange, not only silence', async () => {
    const hostile = await httpConnector(trickles);
    const run = await runAgainst(hostile, 'hostile-trickles', PULL_CASES);
    const timeOut = new RegExp(`time-out: no complete answer within the ${DEADLINE_MS} ms deadline`);
    expectFailedWith(run, PULL_CASES, timeOut);
    expectAbortedFor(run, hostile, timeOut);
    await expectBankStillAnswers(run);
  });

  it('stalls on its token endpoint (connector.token_url): the run aborted naming the token, never stuck', async () => {
    const hostile = await httpConnector((req, res) => (req.url === '/token' ? trickles(req, res) : acceptsAnything(req, res)));
    hostiles.push(hostile);
    await registerConnector(bank, 'hostile-token', hostile.url, { token: undefined, token_url: `${hostile.url}/token`, token_client_id: 'bank', token_client_secret: 'secret' });
    const run = await runToEnd(bank, { client_id: 'hostile-token', cases: PULL_CASES });
    expect(run.state).toBe('aborted');
    expect(run.error).toBe(`the Connector's token endpoint gave no token for the pull: time-out: no token within the ${DEADLINE_MS} ms deadline of an exchange`);
    // Not one pull went out without its token.
    expect(hostile.hits).toBe(1);
    await expectBankStillAnswers(run);
  });

  it('gives one short-lived token, then stalls: the later cases FAILED naming the token endpoint, not the Bank', async () => {
    let tokens = 0;
    const hostile = await httpConnector((req, res) => {
      if (req.url !== '/token') return void res.writeHead(204).end();
      tokens += 1;
      // Within the Bank's refresh margin from the start: every later pull asks for a new one.
      if (tokens === 1) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'short-lived', token_type: 'Bearer', expires_in: 1 }));
      else trickles(req, res);
    });
    hostiles.push(hostile);
    await registerConnector(bank, 'hostile-token-later', hostile.url, { token: undefined, token_url: `${hostile.url}/token`, token_client_id: 'bank', token_client_secret: 'secret' });
    const run = await runToEnd(bank, { client_id: 'hostile-token-later', cases: PULL_CASES });
    // The discovery pull (a 204) had its token; both cases met the stalled endpoint.
    expect(run.state).toBe('finished');
    for (const id of PULL_CASES) {
      expect([id, resultOf(run, id).verdict]).toEqual([id, 'FAILED']);
      expect(resultOf(run, id).seen).toBe(`the Connector's token endpoint gave no token for the pull: time-out: no token within the ${DEADLINE_MS} ms deadline of an exchange`);
    }
    await expectBankStillAnswers(run);
  });

  it('floods the answer to a transport case over TLS: the case FAILED on the body limit, not read to the end', async () => {
    const hostile = await httpsConnector({ key: pki.serverKey, cert: pki.serverCert }, hugeBody);
    const run = await runAgainst(hostile, 'hostile-tls', ['transport.client_certificate_required']);
    expectFailedWith(run, ['transport.client_certificate_required'], new RegExp(`body limit: .*more than ${BODY_LIMIT} bytes`));
    await expectBankStillAnswers(run);
  });
});

describe('a Connector that answers, wrongly', () => {
  it('answers garbage with 200: the signed pull FAILED as "not a page", the rejection FAILED, the run finished', async () => {
    const hostile = await httpConnector(garbage);
    const run = await runAgainst(hostile, 'hostile-garbage', PULL_CASES);
    expect(run.state).toBe('finished');
    expect(run.error).toBeNull();
    expectFailedWith(run, ['pull.signed_request_accepted'], /^200 but not a page \(contract 2\.2\): the body is not JSON \(\d+ characters, starting "<html><body>Welcome/);
    expectFailedWith(run, ['pull.unsigned_rejected'], /^the unsigned pull answered 200$/);
    await expectBankStillAnswers(run);
  });

  it('accepts anything: every case that sends a request to be refused is FAILED, the correct ones PASSED', async () => {
    const refusals = [
      'pull.unsigned_rejected', 'pull.bad_signature_rejected', 'pull.missing_token_rejected', 'pull.stale_timestamp_rejected', 'pull.replayed_nonce_rejected',
      'unit.bad_signature_rejected', 'unit.alg_none_rejected', 'unit.unknown_kid_rejected', 'unit.stale_timestamp_rejected', 'unit.replayed_nonce_rejected',
      'unit.missing_header_rejected', 'unit.failed_without_reason_rejected',
      'batch.invalid_item_rejects_whole_batch', 'batch.batch_id_must_match_key', 'batch.bad_signature_rejected',
    ];
    const correct = ['pull.signed_request_accepted', 'unit.valid_callback_accepted', 'batch.valid_batch_accepted'];
    const run = await runAgainst(await httpConnector(acceptsAnything), 'hostile-accepts', [...refusals, ...correct, 'unit.final_status_not_changed']);
    expect(run.state).toBe('finished');
    expectFailedWith(run, refusals, /answered 200/);
    for (const id of correct) expect([id, resultOf(run, id).verdict]).toEqual([id, 'PASSED']);
    // The contract forbids the change, not the answer: a 200 to a conflicting final is a WARNING.
    expect(resultOf(run, 'unit.final_status_not_changed').verdict).toBe('WARNING');
    await expectBankStillAnswers(run);
  });
});
