// sandbox-bank verify: the rebuilt base, each check, the verdict; the differing line named when the request was
// signed over a changed header and the signer's base is given; requests from -H lines, raw files and the journal;
// keys from the Bank, a JWKS URL or file, a JWK file.
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { diffBases } from '../../src/cli/commands/verify';
import { systemClock } from '../../src/wire/clock';
import { SignedClient } from '../../src/wire/signed-client';
import { demo, sampleOrder } from '../helpers/bank';
import { deadUrl, ROOT, runCli, tempFile } from './helpers';
import { ListeningBank, listeningBank } from './listening-bank';

const DEMO_CREDENTIALS = path.join(ROOT, 'fixtures/demo-connector/credentials.json');

let target: ListeningBank;
beforeAll(async () => {
  target = await listeningBank();
});
afterAll(() => target.close());

const cli = (argv: string[]) => runCli(argv, target.env);

interface Signed {
  headers: Record<string, string>;
  signature_base: string;
  body: string;
  bodyFile: string;
  baseFile: string;
}

/** A create signed by the demo client with `sandbox-bank sign`; the base it printed saved as a file. */
async function signedCreate(): Promise<Signed> {
  const body = JSON.stringify(sampleOrder());
  const run = await cli(['sign', 'POST', '/payment-orders', '--data', body, '--credentials', DEMO_CREDENTIALS, '--format', 'json', '--print-base']);
  expect(run.code).toBe(0);
  const signed = JSON.parse(run.stdout) as Omit<Signed, 'body' | 'bodyFile' | 'baseFile'>;
  return { ...signed, body, bodyFile: tempFile('body.json', body), baseFile: tempFile('base.txt', run.stderr) };
}

const headerFlags = (headers: Record<string, string>) => Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);

describe('sandbox-bank verify', () => {
  it('a correct request: exit 0, the base, the JWS header, every check ok, the verdict', async () => {
    const signed = await signedCreate();
    const run = await cli(['verify', 'POST', '/payment-orders', ...headerFlags(signed.headers), '--body', signed.bodyFile]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`   1 | @method: POST\n   2 | @target-uri: /payment-orders\n   3 | x-client-id: ${demo.client_id}\n`);
    expect(run.stdout).toContain(`JWS header: {"alg":"ES256","kid":"${demo.private_jwk.kid}","typ":"JOSE"}`);
    for (const check of ['signed headers', 'content-digest', 'timestamp', 'jws', 'key', 'signature']) expect(run.stdout).toMatch(new RegExp(`\\n  ok +${check}: `));
    expect(run.stdout).toContain(`kid "${demo.private_jwk.kid}" found in the keys of client demo-connector at the Bank`);
    expect(run.stdout).toContain('Verdict: the signature verifies');
  });

  it('names the differing line when the request was signed over a changed header (given the signer\'s base)', async () => {
    const signed = await signedCreate();
    const changed = { ...signed.headers, 'x-request-id': 'another-request-id' };
    const run = await cli(['verify', 'POST', '/payment-orders', ...headerFlags(changed), '--body', signed.bodyFile, '--expected-base', signed.baseFile]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      [
        '  line 4 differs (x-request-id):',
        `    signed:  x-request-id: ${signed.headers['x-request-id']}`,
        '    request: x-request-id: another-request-id',
        '  The signature verifies over the expected base: the request was changed after signing, at line 4 (x-request-id).',
      ].join('\n'),
    );
    expect(run.stdout).toMatch(/\n {2}FAIL +signature: does not match the signature base of this request/);
    expect(run.stdout).toContain('Verdict: does NOT verify: signature_invalid (signature_mismatch)');
  });

  it('without the signer\'s base: says which checks passed, that the signature failed, and how to find the line', async () => {
    const signed = await signedCreate();
    const run = await cli(['verify', 'POST', '/payment-orders', ...headerFlags({ ...signed.headers, 'x-nonce': 'a-different-nonce-1234' }), '--body', signed.bodyFile]);
    expect(run.code).toBe(1);
    for (const check of ['signed headers', 'content-digest', 'timestamp', 'jws', 'key']) expect(run.stdout).toMatch(new RegExp(`\\n  ok +${check}: `));
    expect(run.stdout).toMatch(/\n {2}FAIL +signature: /);
    expect(run.stdout).toContain('Hint: pass --expected-base <file>');
  });

  it('a body changed after signing fails the digest check, and names the content-digest line', async () => {
    const signed = await signedCreate();
    const run = await cli(['verify', 'POST', '/payment-orders', ...headerFlags(signed.headers), '--body', tempFile('other.json', signed.body.replace('100.00', '900.00')), '--expected-base', signed.baseFile]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\n {2}FAIL +content-digest: the header \(sha-256=:.*:\) does not match the \d+ body bytes .*: the body changed after signing/);
    expect(run.stdout).toContain('line 8 differs (content-digest)');
    expect(run.stdout).toContain('Verdict: does NOT verify: signature_invalid (digest_mismatch)');
  });

  it('the expected base equal to the rebuilt one: blames the key or the JWS only when the signature fails', async () => {
    const signed = await signedCreate();
    const request = ['verify', 'POST', '/payment-orders', ...headerFlags(signed.headers), '--body', signed.bodyFile, '--expected-base', signed.baseFile];
    const verifies = await cli(request);
    expect(verifies.code).toBe(0);
    expect(verifies.stdout).toContain('  the rebuilt base equals it, line for line, and the signature verifies over it\n');
    expect(verifies.stdout).not.toContain('the difference is in the key or the JWS');
    // A failure elsewhere (the timestamp) is no reason to blame the key either.
    const later = new Date(Date.parse(`${signed.headers['x-timestamp']}`) + 10 * 60_000).toISOString();
    const stale = await cli([...request, '--at', later]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).not.toContain('the difference is in the key or the JWS');
    // Another key under the same kid: the same base, a signature that does not verify.
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const wrongKey = tempFile('wrong.jwk', { ...other, kid: demo.private_jwk.kid, alg: 'ES256' });
    const wrong = await cli([...request, '--key', wrongKey]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('  the rebuilt base equals it, line for line: the difference is in the key or the JWS, not in the request\n');
  });

  it('a stale timestamp, judged with --at: the timestamp check fails, exit 1', async () => {
    const signed = await signedCreate();
    const later = new Date(Date.parse(`${signed.headers['x-timestamp']}`) + 10 * 60_000).toISOString();
    const run = await cli(['verify', 'POST', '/payment-orders', ...headerFlags(signed.headers), '--body', signed.bodyFile, '--at', later]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\n {2}FAIL +timestamp: .* is 600 s before now \(window ±300 s\)/);
    expect(run.stdout).toMatch(/\n {2}ok +signature: /);
  });

  it('a raw HTTP request file (CRLF) and a JWK file (a private key is reduced to its public part)', async () => {
    const signed = await signedCreate();
    const head = ['POST /payment-orders HTTP/1.1', 'Host: bank.example', ...Object.entries(signed.headers).map(([name, value]) => `${name}: ${value}`)].join('\r\n');
    const file = tempFile('create.http', `${head}\r\n\r\n${signed.body}`);
    const run = await cli(['verify', '--request', file, '--key', DEMO_CREDENTIALS, '--json']);
    const report = JSON.parse(run.stdout) as { verifies: boolean; flow: string; checks: { name: string; outcome: string }[] };
    expect([run.code, report.verifies, report.flow]).toEqual([0, true, 'create']);
    expect(report.checks.map((check) => check.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it("a callback signed by the Bank, against the Bank's JWKS (by default, and by URL)", async () => {
    const client = new SignedClient({ clientId: 'sandbox-bank', signer: target.bank.signer, clock: systemClock, timeoutMs: 1000 });
    const body = JSON.stringify({ reference: 'ORDER-1', status: 'SUCCESS' });
    const headers = client.signedHeaders('callback', 'POST', new URL('http://connector.example/payment-order-callbacks'), body, { 'x-idempotency-key': 'callback-key-1' });
    const file = tempFile('callback.http', `POST /payment-order-callbacks HTTP/1.1\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n${body}`);
    const byDefault = await cli(['verify', '--request', file]);
    expect([byDefault.code, byDefault.stdout]).toEqual([0, expect.stringContaining(`found in the JWKS at ${target.url}/.well-known/jwks.json`)]);
    expect(byDefault.stdout).toContain('(flow callback)');
    const byUrl = await cli(['verify', '--request', file, '--jwks', `${target.url}/.well-known/jwks.json`]);
    expect(byUrl.code).toBe(0);
    const byOtherKeys = await cli(['verify', '--request', file, '--jwks', tempFile('jwks.json', { keys: [{ ...demo.private_jwk, d: undefined }] })]);
    expect([byOtherKeys.code, byOtherKeys.stdout]).toEqual([1, expect.stringMatching(/FAIL +key: kid ".*" is not a ES256 key in the JWKS file .* \(kids: demo-connector-/)]);
  });

  it('a request from the journal (--journal <id>), e.g. one the Bank refused', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const wrongKey = tempFile('wrong.jwk', { ...other, kid: demo.private_jwk.kid, alg: 'ES256' });
    const refused = await cli(['request', 'POST', '/payment-orders', '--data', JSON.stringify(sampleOrder()), '--credentials', DEMO_CREDENTIALS, '--key', wrongKey, '--request-id', 'refused-then-verified']);
    expect(refused.code).toBe(1);
    const list = await cli(['journal', 'list', '--client', 'demo-connector', '--code', 'signature_invalid', '--json']);
    const id = (JSON.parse(list.stdout) as { data: { id: number }[] }).data[0].id;
    const run = await cli(['verify', '--journal', String(id)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('x-request-id: refused-then-verified');
    expect(run.stdout).toMatch(/FAIL +signature: does not match/);
  });

  it('keys that cannot be had: exit 2 (unreachable JWKS, unknown client); no request at all: exit 3', async () => {
    const signed = await signedCreate();
    const request = ['verify', 'POST', '/payment-orders', ...headerFlags(signed.headers), '--body', signed.bodyFile];
    expect((await cli([...request, '--jwks', `${await deadUrl()}/jwks.json`])).code).toBe(2);
    const unknown = await cli([...request, '--client', 'nobody']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('404 not_found')]);
    expect((await cli([...request, '--request', '/nonexistent.http'])).code).toBe(3);
    expect((await cli(['verify', '--request', tempFile('bad.http', 'not a request line\n\n')])).code).toBe(3);
  });
});

describe('diffBases', () => {
  it('names each differing line by what it carries, and lines only one side has', () => {
    const base = '@method: POST\n@target-uri: /payment-orders\nx-client-id: acme\ncontent-digest: sha-256=:x:';
    expect(diffBases(base, base)).toEqual([]);
    expect(diffBases(base, base.replace('/payment-orders', '/payment-orders?x=1'))).toEqual([
      { line: 2, name: '@target-uri', expected: '@target-uri: /payment-orders', actual: '@target-uri: /payment-orders?x=1' },
    ]);
    expect(diffBases(base, `${base}\nx-extra: 1`)).toEqual([{ line: 5, name: 'x-extra', expected: null, actual: 'x-extra: 1' }]);
  });
});
