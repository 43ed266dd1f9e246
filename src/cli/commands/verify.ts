// sandbox-bank verify: explains, line by line, why a request (or a callback) signature does or does not verify.
// It rebuilds the signature base from the request as captured, runs the receivers' own checks (wire/
// verify-request, wire/signature-base, wire/jws) one by one, and, given the base the signer printed
// (--expected-base), names the line that differs.
import { KeyObject } from 'node:crypto';
import { JwsAlg } from '../../wire/algorithms';
import { JwsFormatError, parseDetached, ParsedDetachedJws, peekHeader, verifyDetached } from '../../wire/jws';
import { Jwks, KeySet, publicOnly } from '../../wire/keys';
import { parseInstant } from '../../wire/rfc3339';
import { withinWindow } from '../../wire/freshness';
import { contentDigest, contentDigestMatches, SIGNED_HEADERS, SignedFlow } from '../../wire/signature-base';
import { checkSignature, incomingSignatureBase, IncomingRequest, isFailure, readSignedHeaders } from '../../wire/verify-request';
import { BANK_OPTIONS, JSON_OPTION, Parsed } from '../args';
import { BankApi, expectSuccess } from '../bank-api';
import { addHeaderLine, CapturedRequest, parseRawRequest, requestOfJournalEntry, targetOf } from '../captured-request';
import { command } from '../command';
import { jwkOfFile, readFileOrFail, readJsonFile } from '../credentials';
import { httpCall, parseJsonText, Unreachable } from '../http';
import { CliError, CliIo, EXIT, ExitCode, jsonText, usageError } from '../io';
import { FLOWS, flowOf } from '../signing';

type Outcome = 'ok' | 'FAIL' | 'n/a';

interface Check {
  name: string;
  outcome: Outcome;
  detail: string;
}

export interface BaseDifference {
  /** 1-based line number in the base. */
  line: number;
  /** What the line carries: @method, @target-uri, a header name, content-digest. */
  name: string;
  expected: string | null;
  actual: string | null;
}

function lineName(line: string | undefined): string {
  if (line === undefined) return '(none)';
  const colon = line.indexOf(':', line.startsWith('@') ? 1 : 0);
  return colon > 0 ? line.slice(0, colon) : line;
}

/** The lines where two signature bases differ, each named by what it carries. */
export function diffBases(expected: string, actual: string): BaseDifference[] {
  const want = expected.split('\n');
  const have = actual.split('\n');
  const differences: BaseDifference[] = [];
  for (let index = 0; index < Math.max(want.length, have.length); index += 1) {
    if (want[index] === have[index]) continue;
    differences.push({ line: index + 1, name: lineName(want[index] ?? have[index]), expected: want[index] ?? null, actual: have[index] ?? null });
  }
  return differences;
}

/** A base file as --print-base wrote it: CRLF read as LF, the final newline not part of the base. */
export function readBaseFile(file: string): string {
  return readFileOrFail(file, 'expected base').toString('utf8').replace(/^\uFEFF/, '').replace(/\r\n/g, '\n').replace(/\n$/, '');
}

interface KeySource {
  description: string;
  keys: KeySet;
  kids: string[];
}

function keySourceOf(jwks: unknown, description: string, exit: ExitCode): KeySource {
  const keys = (jwks as Jwks | null)?.keys;
  if (!Array.isArray(keys)) throw new CliError(exit, `${description} is not a JWKS ({"keys": [...]})`);
  try {
    return { description, keys: new KeySet({ keys: keys.map(publicOnly) }), kids: keys.map((key) => String(key.kid)) };
  } catch (error) {
    throw new CliError(exit, `${description}: ${(error as Error).message}`);
  }
}

async function fetchJwks(url: URL): Promise<KeySource> {
  let answer;
  try {
    answer = await httpCall({ method: 'GET', url, headers: { accept: 'application/json' } });
  } catch (error) {
    if (error instanceof Unreachable) throw new CliError(EXIT.unavailable, `cannot fetch the JWKS: ${error.message}`);
    throw error;
  }
  if (answer.status !== 200) throw new CliError(EXIT.unavailable, `the JWKS at ${url.href} answered ${answer.status}`);
  return keySourceOf(parseJsonText(answer.text), `the JWKS at ${url.href}`, EXIT.unavailable);
}

/** The keys a client registered (or the Bank last fetched from its jwks_uri), from the control plane. */
async function clientKeys(api: BankApi, clientId: string): Promise<KeySource> {
  const answer = expectSuccess(await api.call('GET', `/sandbox/clients/${encodeURIComponent(clientId)}`), { notFoundIsUnknownClient: true });
  const jwks = (answer.json as { jwks?: unknown } | undefined)?.jwks;
  if (!jwks) throw new CliError(EXIT.unavailable, `the Bank knows no keys of client ${clientId} yet (a jwks_uri not fetched so far)`);
  return keySourceOf(jwks, `the keys of client ${clientId} at the Bank`, EXIT.unavailable);
}

/** Whose keys verify this request: what the flags name, else the signer's as the Bank knows them. */
async function keysFor(parsed: Parsed, io: CliIo, flow: SignedFlow, request: CapturedRequest): Promise<KeySource> {
  const jwks = parsed.string('jwks');
  if (jwks !== undefined) {
    if (/^https?:\/\//i.test(jwks)) return fetchJwks(new URL(jwks));
    return keySourceOf(readJsonFile(jwks, 'JWKS file'), `the JWKS file ${jwks}`, EXIT.usage);
  }
  const keyFile = parsed.string('key');
  if (keyFile !== undefined) return keySourceOf({ keys: [jwkOfFile(keyFile)] }, `the key file ${keyFile}`, EXIT.usage);
  const api = BankApi.of(parsed, io);
  const client = parsed.string('client');
  if (client !== undefined) return clientKeys(api, client);
  // Pulls and callbacks are the Bank's own requests: its JWKS. Creates and polls are a client's: its keys.
  if (flow === 'pull' || flow === 'callback') return fetchJwks(api.url('/.well-known/jwks.json'));
  const claimed = request.headers.get('x-client-id');
  if (!claimed) throw usageError('no X-Client-Id in the request: name the keys with --jwks, --key or --client');
  return clientKeys(api, claimed);
}

async function capturedRequest(parsed: Parsed, io: CliIo): Promise<CapturedRequest> {
  const file = parsed.string('request');
  const journalId = parsed.string('journal');
  let request: CapturedRequest;
  if (file !== undefined) request = parseRawRequest(readFileOrFail(file, 'request file'), file);
  else if (journalId !== undefined) {
    if (!/^\d{1,15}$/.test(journalId)) throw usageError(`--journal must be a journal entry id, got "${journalId}"`);
    const answer = expectSuccess(await BankApi.of(parsed, io).call('GET', `/sandbox/journal/${journalId}`), { members: ['method', 'url', 'request'] });
    request = requestOfJournalEntry(answer.json as Parameters<typeof requestOfJournalEntry>[0]);
  } else {
    const [method, target] = parsed.positionals;
    if (method === undefined || target === undefined) throw usageError('give the request: METHOD TARGET with -H lines, --request <file>, or --journal <id>');
    request = { method: method.toUpperCase(), target: targetOf(target), headers: new Map(), body: Buffer.alloc(0) };
  }
  for (const line of parsed.many('header')) addHeaderLine(request.headers, line, '-H');
  const bodyFile = parsed.string('body');
  if (bodyFile !== undefined) request.body = readFileOrFail(bodyFile, 'body file');
  return request;
}

interface Findings {
  checks: Check[];
  parsedJws: ParsedDetachedJws | null;
  key: KeyObject | null;
}

function headerCheck(flow: SignedFlow, incoming: IncomingRequest): { check: Check; timestampMs: number | null } {
  const read = readSignedHeaders(flow, incoming.header);
  if (isFailure(read)) return { check: { name: 'signed headers', outcome: 'FAIL', detail: `${read.code}: ${read.detail}` }, timestampMs: null };
  return { check: { name: 'signed headers', outcome: 'ok', detail: `${SIGNED_HEADERS[flow].join(', ')} present; X-Timestamp and X-Nonce well formed` }, timestampMs: read.timestampMs };
}

function digestCheck(incoming: IncomingRequest): Check {
  const sent = incoming.header('content-digest');
  const size = `${incoming.body.length} body bytes`;
  if (sent === undefined) return { name: 'content-digest', outcome: 'ok', detail: `no Content-Digest header; the base carries the digest of the ${size}` };
  if (contentDigestMatches(sent, incoming.body)) return { name: 'content-digest', outcome: 'ok', detail: `the header matches the ${size}` };
  return { name: 'content-digest', outcome: 'FAIL', detail: `the header (${sent}) does not match the ${size} (${contentDigest(incoming.body)}): the body changed after signing` };
}

function timestampCheck(timestampMs: number | null, nowMs: number, windowS: number): Check {
  if (timestampMs === null) return { name: 'timestamp', outcome: 'n/a', detail: 'no well-formed X-Timestamp' };
  const offsetS = Math.round((timestampMs - nowMs) / 1000);
  const when = offsetS === 0 ? 'now' : offsetS > 0 ? `${offsetS} s after now` : `${-offsetS} s before now`;
  const outcome = withinWindow(timestampMs, nowMs, windowS) ? 'ok' : 'FAIL';
  return { name: 'timestamp', outcome, detail: `${new Date(timestampMs).toISOString()} is ${when} (window ±${windowS} s)` };
}

function jwsChecks(incoming: IncomingRequest, base: string, source: KeySource): Findings {
  const value = incoming.header('x-signature');
  if (!value) return { checks: [{ name: 'jws', outcome: 'FAIL', detail: 'no X-Signature header' }], parsedJws: null, key: null };
  let parsedJws: ParsedDetachedJws;
  try {
    parsedJws = parseDetached(value);
  } catch (error) {
    if (!(error instanceof JwsFormatError)) throw error;
    return { checks: [{ name: 'jws', outcome: 'FAIL', detail: `${error.reason}: ${error.message}` }], parsedJws: null, key: null };
  }
  const { alg, kid } = parsedJws.header;
  const key = source.keys.find(kid, alg as JwsAlg);
  const checks: Check[] = [{ name: 'jws', outcome: 'ok', detail: `a detached JWS, alg ${alg} allowed` }];
  if (!key) {
    checks.push({ name: 'key', outcome: 'FAIL', detail: `kid "${kid}" is not a ${alg} key in ${source.description} (kids: ${source.kids.join(', ') || 'none'})` });
    return { checks, parsedJws, key: null };
  }
  checks.push({ name: 'key', outcome: 'ok', detail: `kid "${kid}" found in ${source.description}` });
  const matches = verifyDetached(parsedJws, base, key);
  checks.push({ name: 'signature', outcome: matches ? 'ok' : 'FAIL', detail: matches ? 'verifies over the rebuilt base' : 'does not match the signature base of this request' });
  return { checks, parsedJws, key };
}

interface Comparison {
  file: string;
  differences: BaseDifference[];
  /** Whether the JWS verifies over the expected base (null: no key or no JWS to try). */
  signedThatBase: boolean | null;
}

function compareWithExpected(file: string, base: string, findings: Findings): Comparison {
  const expected = readBaseFile(file);
  const signedThatBase = findings.parsedJws && findings.key ? verifyDetached(findings.parsedJws, expected, findings.key) : null;
  return { file, differences: diffBases(expected, base), signedThatBase };
}

function comparisonText(comparison: Comparison): string[] {
  const lines = [`Against the expected base (${comparison.file}):`];
  if (comparison.differences.length === 0) {
    // Equal bases: the signature over it decides whether the key or the JWS is to blame (null: nothing to try).
    const equal = '  the rebuilt base equals it, line for line';
    if (comparison.signedThatBase === true) lines.push(`${equal}, and the signature verifies over it`);
    else if (comparison.signedThatBase === false) lines.push(`${equal}: the difference is in the key or the JWS, not in the request`);
    else lines.push(equal);
    return lines;
  }
  for (const difference of comparison.differences) {
    lines.push(`  line ${difference.line} differs (${difference.name}):`);
    lines.push(`    signed:  ${difference.expected ?? '(no such line)'}`);
    lines.push(`    request: ${difference.actual ?? '(no such line)'}`);
  }
  const named = comparison.differences.map((difference) => `line ${difference.line} (${difference.name})`).join(', ');
  if (comparison.signedThatBase === true) lines.push(`  The signature verifies over the expected base: the request was changed after signing, at ${named}.`);
  else if (comparison.signedThatBase === false) lines.push('  The signature does not verify over the expected base either: it was made by another key or over another base.');
  return lines;
}

export const verifyCommand = command(
  {
    name: 'verify',
    summary: 'Explain, line by line, why a request or callback signature does or does not verify.',
    details: [
      'The request: METHOD TARGET with -H lines and --body, or --request <raw HTTP file>, or --journal <id> (an',
      "exchange from the Bank's journal). The keys: --jwks <url|file>, --key <JWK file>, --client <id> (its keys",
      "at the Bank); by default the Bank's JWKS for pulls and callbacks, the X-Client-Id client's keys otherwise.",
      'Prints the rebuilt signature base, the JWS header, each check (signed headers, digest vs body, timestamp',
      'window, alg and kid, signature) and the verdict. With --expected-base (the base the signer printed with',
      '--print-base) it names the line that differs. Exit 0: verifies; 1: does not.',
    ],
    arguments: [
      { name: 'METHOD', required: false },
      { name: 'TARGET', required: false },
    ],
    options: {
      header: { type: 'string', short: 'H', multiple: true, value: 'name: value', help: 'a request header' },
      body: { type: 'string', value: 'file', help: 'the body bytes, as received' },
      request: { type: 'string', value: 'file', help: 'a raw HTTP request: request line, headers, blank line, body' },
      journal: { type: 'string', value: 'id', help: "a journal entry of the Bank (GET /sandbox/journal/<id>)" },
      flow: { type: 'string', value: 'flow', help: `${FLOWS.join(', ')} (default: from the method and target)` },
      jwks: { type: 'string', value: 'url|file', help: 'the signer\'s JWKS, by URL or file' },
      key: { type: 'string', value: 'file', help: "the signer's key as one JWK (a private one is reduced to its public part)" },
      client: { type: 'string', value: 'id', help: 'the keys of this client at the Bank (control plane)' },
      'expected-base': { type: 'string', value: 'file', help: 'the base the signer signed (--print-base): names the differing line' },
      'window-s': { type: 'string', value: 'seconds', help: 'accepted X-Timestamp skew (default 300, as the Bank)' },
      at: { type: 'string', value: 'instant', help: 'judge the timestamp at this RFC 3339 time (default now)' },
      ...BANK_OPTIONS,
      ...JSON_OPTION,
    },
    examples: [
      "sandbox-bank verify POST /payment-orders -H 'X-Client-Id: acme' -H 'X-Signature: ...' ... --body order.json --expected-base base.txt",
      'sandbox-bank verify --request callback.http --bank http://localhost:8080',
      'sandbox-bank verify --journal 42',
    ],
  },
  async (parsed, io) => {
    const request = await capturedRequest(parsed, io);
    const flow = flowOf(parsed, request.method, request.target);
    const windowS = parsed.integer('window-s', 1, 86_400) ?? 300;
    const at = parsed.string('at');
    const nowMs = at === undefined ? Date.now() : parseInstant(at);
    if (nowMs === null) throw usageError(`--at must be an RFC 3339 UTC instant, got "${at}"`);
    const incoming: IncomingRequest = { method: request.method, target: request.target, header: (name) => request.headers.get(name), body: request.body };
    const base = incomingSignatureBase(flow, incoming);
    const source = await keysFor(parsed, io, flow, request);

    const headers = headerCheck(flow, incoming);
    const findings = jwsChecks(incoming, base, source);
    const checks = [headers.check, digestCheck(incoming), timestampCheck(headers.timestampMs, nowMs, windowS), ...findings.checks];
    // The verdict is the receivers' own check, run as they run it.
    const failure = checkSignature(flow, incoming, (kid, alg) => source.keys.find(kid, alg), `in ${source.description}`);
    const verifies = failure === null && checks.every((check) => check.outcome !== 'FAIL');
    const expectedFile = parsed.string('expected-base');
    const comparison = expectedFile === undefined ? null : compareWithExpected(expectedFile, base, findings);
    const verdict = verifies ? 'the signature verifies' : `does NOT verify${failure ? `: ${failure.code}${failure.reason ? ` (${failure.reason})` : ''}: ${failure.detail}` : ''}`;
    const jwsHeader = peekHeader(request.headers.get('x-signature') ?? '');

    if (parsed.flag('json')) {
      io.stdout(jsonText({ flow, method: request.method, target: request.target, signature_base: base, jws_header: jwsHeader, checks, expected_base: comparison, verifies, verdict }));
      return verifies ? EXIT.ok : EXIT.failed;
    }
    const out = [
      `Request: ${request.method} ${request.target} (flow ${flow})`,
      '',
      'Signature base rebuilt from the request:',
      ...base.split('\n').map((line, index) => `  ${String(index + 1).padStart(2)} | ${line}`),
      '',
      `JWS header: ${jwsHeader ? JSON.stringify(jwsHeader) : '(none that decodes)'}`,
      '',
      'Checks:',
      ...checks.map((check) => `  ${check.outcome.padEnd(5)} ${check.name}: ${check.detail}`),
      '',
      ...(comparison ? [...comparisonText(comparison), ''] : []),
      `Verdict: ${verdict}`,
    ];
    if (!verifies && !comparison && findings.checks.some((check) => check.name === 'signature' && check.outcome === 'FAIL')) {
      out.push('Hint: pass --expected-base <file> (the base the signer printed with --print-base) to name the line that differs.');
    }
    io.stdout(`${out.join('\n')}\n`);
    return verifies ? EXIT.ok : EXIT.failed;
  },
);
