// A Connector in Python, written from the docs alone (test/interop/python/bank_client.py, with the standard
// library, requests, cryptography and PyJWT: the Debian packages python3-requests, python3-cryptography and
// python3-jwt), against the built Bank as a child process in relaxed mode with its dev PKI:
//   a. tokens by client_secret_basic, client_secret_post and DPoP (proof made with PyJWT), each checked as RFC 9068;
//   b. signed creates (RFC 9530 digest, detached ES256 JWS) under Bearer and under DPoP (ath);
//   c. reverse polling over mTLS with requests (cert=, verify=ca.crt) until the status is final;
//   d. the script as a Connector (http.server) receiving the callbacks of an ASYNC:1:SUCCESS order, each verified
//      against the Bank's JWKS with a key built by cryptography, Content-Digest checked, answered 200;
//   e. refusals the client provokes (wrong Content-Digest, stale X-Timestamp, reused X-Nonce): RFC 9457 problems
//      that requests' response.json() parses.
// Without /usr/bin/python3 or one of the three modules the suite is skipped, loudly, never failed.
// PYTHON_INTEROP_PORTS="<http>,<https>,<callback>" pins the three ports (on a shared machine); by default the Bank
// takes free ports and the callback receiver a free loopback port.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pkiFiles } from '../../src/bank/security/pki';
import { ROOT, tempDir } from '../helpers/bank';
import { ChildBank, kill, startChildBank } from '../helpers/child-bank';
import { freePort } from '../helpers/tcp-switch';
import { expectResult, INTEROP_TIMEOUT_MS, runJsonChild } from './interop';

const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(__dirname, 'python', 'bank_client.py');
const MODULES = ['requests', 'cryptography', 'jwt'];

/** Why the suite cannot run here, or null when it can. */
function missingPython(): string | null {
  if (!fs.existsSync(PYTHON)) return `${PYTHON} is missing`;
  const probe = spawnSync(PYTHON, ['-c', `import ${MODULES.join(', ')}`], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) return `${PYTHON} cannot import ${MODULES.join(', ')}: ${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}`;
  return null;
}

const missing = missingPython();

/** `describe`, or `describe.skip` with a warning that says what is missing (never a silent skip). */
function describeWithPython(name: string, body: () => void): void {
  if (missing === null) {
    describe(name, body);
    return;
  }
  console.warn(
    `\n${'!'.repeat(100)}\n!! SKIPPED: the Python interop tests "${name}" need ${PYTHON} with requests, cryptography and PyJWT: ${missing}.\n` +
      `!! Install Debian's python3-requests, python3-cryptography and python3-jwt (apt-get install -y python3-requests python3-cryptography python3-jwt) to run them.\n${'!'.repeat(100)}\n`,
  );
  describe.skip(name, body);
}

interface Captured {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: Record<string, unknown> | null;
}

interface Problem {
  status: number;
  content_type: string | null;
  www_authenticate: string | null;
  json_parsed: boolean;
  missing_members: string[];
  status_member_matches: boolean;
  body: Record<string, unknown> | null;
}

interface CallbackRecord {
  method: string;
  target: string;
  idempotency_key: string;
  content_type: string;
  content_digest: { header: string | null; of_body: string };
  protected_header: Record<string, unknown>;
  signature_ok: boolean;
  nonce_fresh: boolean;
  failures: string[];
  accepted: boolean;
  body: Record<string, unknown> | null;
}

type Attempt<T> = T & { ok: boolean; error?: { name: string; message: string } };
type Token = Attempt<Captured & { token?: string; token_type?: string; access_token?: Attempt<{ header: Record<string, unknown>; claims: Record<string, unknown> }> }>;

interface PythonResults {
  python: string;
  requests: string;
  token_basic: Token;
  token_post: Token;
  token_dpop: Token;
  dpop_jkt: string;
  create_bearer: Attempt<Captured> & { reference: string };
  create_dpop: Attempt<Captured> & { reference: string };
  poll: {
    reference: string;
    create: Attempt<Captured>;
    mtls_bearer: Attempt<{ statuses: string[]; last: Captured }>;
    mtls_dpop: Attempt<Captured>;
    without_certificate: Attempt<Captured>;
  };
  callback: { reference: string; create: Attempt<Captured>; final_received: boolean; for_order: CallbackRecord[]; all: Partial<CallbackRecord>[] };
  negative: Record<'wrong_content_digest' | 'signed_other_digest' | 'stale_timestamp' | 'reused_nonce', Problem> & { nonce_first_status: number };
}

function runPython(args: string[], timeoutMs: number): Promise<PythonResults> {
  // A clean environment: no REQUESTS_CA_BUNDLE or proxy from the caller's shell reaches requests.
  return runJsonChild<PythonResults>('bank_client.py', PYTHON, [SCRIPT, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' } }, timeoutMs);
}

describeWithPython('a Python Connector (requests, cryptography, PyJWT) against the Bank', () => {
  const dataDir = tempDir('sandbox-bank-interop-python-');
  const files = pkiFiles(path.join(dataDir, 'pki'));
  let bank: ChildBank;
  let result: PythonResults;

  beforeAll(async () => {
    const pinned = process.env.PYTHON_INTEROP_PORTS?.split(',').map((port) => port.trim());
    const [httpPort, httpsPort, callbackPort] = pinned?.length === 3 ? pinned : ['0', '0', String(await freePort())];
    bank = await startChildBank({
      DATA_DIR: dataDir,
      PORT: httpPort,
      HTTPS_PORT: httpsPort,
      POLL_CRON: 'off',
      SANDBOX_MODE: 'relaxed',
      CONNECTOR_URL: `http://127.0.0.1:${callbackPort}`,
      CALLBACK_MODE: 'unit',
    });
    const listening = JSON.parse(bank.logs.find((line) => line.includes('"sandbox bank listening"')) as string) as { http: string; https: string };
    result = await runPython(
      [
        ...['--bank-url', listening.http, '--bank-tls-url', listening.https],
        ...['--credentials', path.join(ROOT, 'fixtures/demo-connector/credentials.json')],
        ...['--ca', files.caCert, '--cert', files.clientCert('demo-connector'), '--key', files.clientKey('demo-connector')],
        ...['--callback-port', callbackPort, '--callback-timeout', '10'],
      ],
      INTEROP_TIMEOUT_MS - 5_000,
    );
  }, INTEROP_TIMEOUT_MS);
  afterAll(async () => {
    if (bank) await kill(bank, 'SIGTERM');
  });

  describe('a. tokens', () => {
    it.each(['token_basic', 'token_post'] as const)('%s: a Bearer token, an RFC 9068 JWT that PyJWT verifies with the Bank JWKS', (name) => {
      // Profile section 3 (v1.1): typ at+jwt; iss, sub = client_id, aud, client_id, iat, exp (3600 s), jti.
      expectResult(result[name], {
        ok: true,
        status: 200,
        token_type: 'Bearer',
        headers: { 'content-type': expect.stringContaining('application/json'), 'cache-control': 'no-store' },
        access_token: {
          ok: true,
          header: { typ: 'at+jwt', alg: 'ES256' },
          claims: { iss: 'sandbox-bank', sub: 'demo-connector', aud: 'sandbox-bank', client_id: 'demo-connector', jti: expect.any(String) },
        },
      });
      const claims = result[name].access_token!.claims as { iat: number; exp: number };
      expect(claims.exp - claims.iat).toBe(3600);
    });

    it('a DPoP proof made with PyJWT binds the token: token_type DPoP, cnf.jkt = the RFC 7638 thumbprint of the proof key', () => {
      // RFC 9449 sections 5 and 6.1.
      expectResult(result.token_dpop, { ok: true, status: 200, token_type: 'DPoP', access_token: { ok: true, claims: { cnf: { jkt: result.dpop_jkt } } } });
    });
  });

  describe('b. signed creates', () => {
    it.each([
      ['Bearer', 'create_bearer'],
      ['DPoP', 'create_dpop'],
    ] as const)('Authorization: %s: 200 SUCCESS with the 2.4 body', (_scheme, name) => {
      // Profile section 1: the base as the profile writes it, signed as a detached JWS; contract 4.1.1 and 2.4.
      expectResult(result[name], { ok: true, status: 200, json: { reference: result[name].reference, status: 'SUCCESS', bank_reference: expect.any(String), timestamp: expect.any(String) } });
    });
  });

  describe('c. reverse polling over mTLS', () => {
    it('a PENDING:1:SUCCESS order is answered 200 PENDING at creation', () => {
      expectResult(result.poll.create, { ok: true, status: 200, json: { reference: result.poll.reference, status: 'PENDING' } });
    });

    it('polled with cert=(crt, key), verify=ca.crt until final: PENDING, then SUCCESS', () => {
      // Contract 4.1.2: reference, bank_reference, status, processed_at; the Connector stops at a final status.
      expectResult(result.poll.mtls_bearer, { ok: true, last: { status: 200, json: { reference: result.poll.reference, status: 'SUCCESS', bank_reference: expect.any(String), processed_at: expect.any(String) } } });
      const { statuses } = result.poll.mtls_bearer;
      expect(statuses[statuses.length - 1]).toBe('SUCCESS');
      for (const status of statuses) expect(['PENDING', 'SUCCESS']).toContain(status);
    });

    it('with a DPoP-bound token and a proof whose htu is the https URL, over mTLS: 200', () => {
      expectResult(result.poll.mtls_dpop, { ok: true, status: 200, json: { reference: result.poll.reference, status: 'SUCCESS' } });
    });

    it('without a client certificate: 403 mtls_required (or a refused TLS handshake)', () => {
      // Profile sections 4 and 5.
      const refused = result.poll.without_certificate;
      if (refused.ok) expectResult(refused, { status: 403, headers: { 'content-type': expect.stringContaining('application/problem+json') }, json: { code: 'mtls_required' } });
      else expect(refused.error?.name).toMatch(/SSLError|ConnectionError/);
    });
  });

  describe('d. callbacks to a Python Connector', () => {
    it('an ASYNC:1:SUCCESS order is answered 202 with no body', () => {
      // Contract 4.1.1: 202, Content-Length 0.
      expectResult(result.callback.create, { ok: true, status: 202, text: '', headers: { 'content-length': '0' } });
    });

    it('its SUCCESS arrives by unit callback at /callbacks/orders/status, and every callback verifies', () => {
      expect(result.callback.final_received).toBe(true);
      expect(result.callback.for_order).toContainEqual(
        expect.objectContaining({ method: 'POST', target: '/callbacks/orders/status', body: expect.objectContaining({ reference: result.callback.reference, status: 'SUCCESS', bank_reference: expect.any(String), processed_at: expect.any(String) }) }),
      );
      for (const record of result.callback.for_order) {
        // Profile section 1: protected header {alg, kid, typ: JOSE}, the JWS over the 7-line base; v1.1: the RFC 9530
        // Content-Digest header equals the digest of the bytes received; X-Client-Id, X-Timestamp, X-Nonce as step 3 says.
        expectResult(record, {
          accepted: true,
          signature_ok: true,
          nonce_fresh: true,
          failures: [],
          content_type: expect.stringContaining('application/json'),
          protected_header: { alg: 'ES256', kid: expect.any(String), typ: 'JOSE' },
          content_digest: { header: record.content_digest.of_body },
          idempotency_key: `${(record.body as { bank_reference: string }).bank_reference}-${(record.body as { status: string }).status}`,
        });
      }
    });

    it('nothing the Bank sent was refused', () => {
      for (const record of result.callback.all) expectResult(record, { accepted: true, signature_ok: true });
    });
  });

  describe('e. refusals, as requests sees them', () => {
    it.each([
      ['wrong_content_digest', 'signature_invalid', { reason: 'digest_mismatch', signature_base: expect.any(String), content_digest: expect.any(String), kid: expect.any(String), alg: 'ES256' }],
      ['signed_other_digest', 'signature_invalid', { reason: 'signature_mismatch', signature_base: expect.any(String) }],
      ['stale_timestamp', 'timestamp_out_of_window', { bank_time: expect.any(String), window_s: 300 }],
      ['reused_nonce', 'nonce_replayed', { first_seen_at: expect.any(String) }],
    ] as const)('%s: 401 %s, application/problem+json that response.json() parses, with every RFC 9457 member', (name, code, extra) => {
      // Profile section 5: {type, title, status, detail, instance, code, request_id} and (v1.1) the members that explain it.
      expectResult(result.negative[name], {
        status: 401,
        content_type: expect.stringMatching(/^application\/problem\+json/),
        www_authenticate: expect.stringContaining('realm="sandbox-bank"'),
        json_parsed: true,
        missing_members: [],
        status_member_matches: true,
        body: { type: `urn:sandbox-bank:problem:${code}`, code, instance: '/payment-orders', ...extra },
      });
    });

    it('the nonce reused was first spent by an accepted create', () => {
      expect(result.negative.nonce_first_status).toBe(200);
    });
  });
});
