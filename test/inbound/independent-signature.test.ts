// Acceptance: requests signed by an independent implementation of the profile (section 1), written here from the
// profile text with node:crypto and plain code only. Nothing from src/security nor the helpers' signing code is used.
import { constants, createHash, createPrivateKey, generateKeyPairSync, JsonWebKey, KeyObject, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { Bank } from '../../src/bank/bank';
import { startBank } from '../helpers/bank';

const ROOT = path.resolve(__dirname, '..', '..');
const credentials = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/demo-connector/credentials.json'), 'utf8')) as {
  client_id: string;
  client_secret: string;
  private_jwk: JsonWebKey & { kid: string };
};

type Alg = 'ES256' | 'PS256' | 'RS256';

interface Signer {
  clientId: string;
  secret: string;
  kid: string;
  alg: Alg;
  key: KeyObject;
}

const demoSigner: Signer = {
  clientId: credentials.client_id,
  secret: credentials.client_secret,
  kid: credentials.private_jwk.kid,
  alg: 'ES256',
  key: createPrivateKey({ key: credentials.private_jwk, format: 'jwk' }),
};

// --- the profile, section 1, by hand ---------------------------------------------------------------------------

const b64url = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

/** RFC 9530: `sha-256=:` + standard base64 of SHA-256 over the raw body + `:`. */
function contentDigest(body: Buffer | string): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/** Lines joined by \n, no trailing newline: @method, @target-uri, the flow's headers in order, content-digest. */
function signatureBase(method: string, target: string, headerLines: [string, string][], body: Buffer | string): string {
  return [`@method: ${method}`, `@target-uri: ${target}`, ...headerLines.map(([name, value]) => `${name}: ${value}`), `content-digest: ${contentDigest(body)}`].join('\n');
}

function signBytes(alg: Alg, key: KeyObject, input: string, options: { der?: boolean } = {}): Buffer {
  const data = Buffer.from(input, 'utf8');
  if (alg === 'ES256') return sign('sha256', data, { key, dsaEncoding: options.der ? 'der' : 'ieee-p1363' });
  if (alg === 'PS256') return sign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  return sign('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING });
}

/** Compact JWS, detached payload: BASE64URL(protected) + ".." + BASE64URL(signature). */
function detachedJws(signer: Signer, base: string, options: { header?: Record<string, unknown>; der?: boolean; signAlg?: Alg } = {}): string {
  const protectedHeader = b64url(JSON.stringify({ alg: signer.alg, kid: signer.kid, typ: 'JOSE', ...options.header }));
  const signature = signBytes(options.signAlg ?? signer.alg, signer.key, `${protectedHeader}.${b64url(base)}`, { der: options.der });
  return `${protectedHeader}..${b64url(signature)}`;
}

function nowIso(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function nonce(): string {
  return randomBytes(24).toString('base64url');
}

// --- fixtures ----------------------------------------------------------------------------------------------------

function order(reference: string): string {
  return JSON.stringify({
    reference,
    initiated_at: '2026-11-22T09:00:00Z',
    reason: 'Independent signer',
    type: 'CREDIT_TRANSFER',
    debtor: { name: 'Alice', iban: 'DE89370400440532013000' },
    creditors: [{ name: 'Bob', iban: 'FR1420041010050500013M02606', bank_code: 'BNPAFRPP', amount: '12.50', reason: 'Invoice' }],
    total_amount: '12.50',
    currency: 'EUR',
    metadata: { initiator: 'independent-signature-test', sandbox_scenario: 'PENDING:600:SUCCESS' },
  });
}

function uniqueReference(prefix: string): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaSecret = randomBytes(24).toString('base64url');
const rsaPublic = rsa.publicKey.export({ format: 'jwk' }) as JsonWebKey;
const rsaSigners: Record<'PS256' | 'RS256', Signer> = {
  PS256: { clientId: 'rsa-connector', secret: rsaSecret, kid: 'rsa-connector-ps256', alg: 'PS256', key: rsa.privateKey },
  RS256: { clientId: 'rsa-connector', secret: rsaSecret, kid: 'rsa-connector-rs256', alg: 'RS256', key: rsa.privateKey },
};

function clientsFileWithRsaClient(): string {
  const shipped = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/clients.json'), 'utf8')) as { clients: unknown[] };
  const rsaClient = {
    client_id: 'rsa-connector',
    jwks: {
      keys: [
        { ...rsaPublic, kid: 'rsa-connector-ps256', alg: 'PS256', use: 'sig' },
        { ...rsaPublic, kid: 'rsa-connector-rs256', alg: 'RS256', use: 'sig' },
      ],
    },
    client_secret_hash: `sha256:${createHash('sha256').update(rsaSecret).digest('hex')}`,
    auth_methods: ['bearer'],
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-bank-independent-'));
  const file = path.join(dir, 'clients.json');
  fs.writeFileSync(file, JSON.stringify({ clients: [...shipped.clients, rsaClient] }));
  return file;
}

// --- tests -------------------------------------------------------------------------------------------------------

let bank: Bank;
const tokens = new Map<string, string>();

beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed', clientsFile: clientsFileWithRsaClient() });
});
afterAll(() => bank.close());

async function tokenFor(signer: Signer): Promise<string> {
  const cached = tokens.get(signer.clientId);
  if (cached) return cached;
  const response = await request(bank.app)
    .post('/oauth/token')
    .set('Authorization', `Basic ${Buffer.from(`${signer.clientId}:${signer.secret}`).toString('base64')}`)
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send('grant_type=client_credentials');
  expect(response.status).toBe(200);
  tokens.set(signer.clientId, response.body.access_token as string);
  return response.body.access_token as string;
}

async function signedCreate(signer: Signer, body: string, tweak: { base?: (base: string) => string; jws?: Parameters<typeof detachedJws>[2] } = {}) {
  const headers: [string, string][] = [
    ['x-client-id', signer.clientId],
    ['x-request-id', `independent-${randomBytes(8).toString('hex')}`],
    ['x-timestamp', nowIso()],
    ['x-nonce', nonce()],
    ['x-idempotency-key', `independent-${randomBytes(8).toString('hex')}`],
  ];
  let base = signatureBase('POST', '/payment-orders', headers, body);
  if (tweak.base) base = tweak.base(base);
  const test = request(bank.app).post('/payment-orders');
  for (const [name, value] of headers) test.set(name, value);
  return test
    .set('X-Signature', detachedJws(signer, base, tweak.jws))
    .set('Authorization', `Bearer ${await tokenFor(signer)}`)
    .set('Content-Type', 'application/json')
    .send(body);
}

/** Reverse polling: `signedTarget` goes into the base, `sentTarget` on the wire (the same unless a test says otherwise). */
async function signedPoll(signer: Signer, signedTarget: string, sentTarget = signedTarget) {
  const headers: [string, string][] = [
    ['x-client-id', signer.clientId],
    ['x-timestamp', nowIso()],
    ['x-nonce', nonce()],
  ];
  const base = signatureBase('GET', signedTarget, headers, '');
  const test = request(bank.app).get(sentTarget);
  for (const [name, value] of headers) test.set(name, value);
  return test.set('X-Signature', detachedJws(signer, base)).set('Authorization', `Bearer ${await tokenFor(signer)}`);
}

describe('the profile text, rebuilt independently', () => {
  it("the empty-string digest is the profile's example", () => {
    expect(contentDigest('')).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
    expect(contentDigest(Buffer.alloc(0))).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
  });

  it('the create base has the eight lines of the profile, in order, with no trailing newline', () => {
    const base = signatureBase(
      'POST',
      '/payment-orders',
      [
        ['x-client-id', 'demo-connector'],
        ['x-request-id', '6f1c'],
        ['x-timestamp', '2026-11-22T10:15:30Z'],
        ['x-nonce', '9b2e'],
        ['x-idempotency-key', 'order-123-create'],
      ],
      '',
    );
    expect(base).toBe(
      [
        '@method: POST',
        '@target-uri: /payment-orders',
        'x-client-id: demo-connector',
        'x-request-id: 6f1c',
        'x-timestamp: 2026-11-22T10:15:30Z',
        'x-nonce: 9b2e',
        'x-idempotency-key: order-123-create',
        'content-digest: sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:',
      ].join('\n'),
    );
    expect(base.endsWith('\n')).toBe(false);
  });
});

describe('create signed independently (ES256, demo client)', () => {
  it('is accepted', async () => {
    const reference = uniqueReference('IND');
    const response = await signedCreate(demoSigner, order(reference));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'PENDING', reference });
  });

  it('the digest is over the raw bytes as sent (non-canonical JSON, non-ASCII text)', async () => {
    const reference = uniqueReference('IND-RAW');
    const body = order(reference).replace('"reason":"Independent signer"', '"reason" :  "Überweisung — naïve façade"');
    const response = await signedCreate(demoSigner, body);
    expect(response.status).toBe(200);
  });

  it('a DER-encoded ECDSA signature (not JOSE r||s) is signature_invalid', async () => {
    const response = await signedCreate(demoSigner, order(uniqueReference('IND-DER')), { jws: { der: true } });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('signature_invalid');
  });

  const hexDigest = (body: string) => `content-digest: sha-256=:${createHash('sha256').update(body).digest('hex')}:`;
  const variants: [string, (base: string, body: string) => string][] = [
    ['a trailing newline', (base) => `${base}\n`],
    ['CRLF line ends', (base) => base.replace(/\n/g, '\r\n')],
    ['upper-case header names', (base) => base.replace('x-client-id:', 'X-Client-Id:')],
    ['the full URL as @target-uri', (base) => base.replace('@target-uri: /payment-orders', '@target-uri: http://127.0.0.1/payment-orders')],
    ['headers out of order', (base) => {
      const lines = base.split('\n');
      [lines[3], lines[4]] = [lines[4], lines[3]];
      return lines.join('\n');
    }],
    ['the digest in hex', (base, body) => base.replace(/content-digest: .*$/, hexDigest(body))],
  ];

  it.each(variants)('a base with %s is signature_invalid', async (_label, tweak) => {
    const body = order(uniqueReference('IND-BASE'));
    const response = await signedCreate(demoSigner, body, { base: (base) => tweak(base, body) });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('signature_invalid');
  });

  it('a protected header with b64: false is signature_invalid', async () => {
    const response = await signedCreate(demoSigner, order(uniqueReference('IND-B64')), { jws: { header: { b64: false, crit: ['b64'] } } });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('signature_invalid');
  });
});

describe('reverse polling signed independently (ES256, demo client)', () => {
  let reference: string;

  beforeAll(async () => {
    reference = uniqueReference('IND-POLL');
    expect((await signedCreate(demoSigner, order(reference))).status).toBe(200);
  });

  it('is accepted', async () => {
    const response = await signedPoll(demoSigner, `/payment-orders/${reference}/status`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ reference, status: 'PENDING' });
  });

  it('with a query string, signed exactly as sent', async () => {
    const target = `/payment-orders/${reference}/status?verbose=true&note=a%20b&empty=`;
    const response = await signedPoll(demoSigner, target);
    expect(response.status).toBe(200);
    expect(response.body.reference).toBe(reference);
  });

  it('a query re-ordered or re-encoded after signing is signature_invalid', async () => {
    const signed = `/payment-orders/${reference}/status?verbose=true&note=a%20b`;
    for (const sent of [`/payment-orders/${reference}/status?note=a%20b&verbose=true`, `/payment-orders/${reference}/status?verbose=true&note=a+b`, `/payment-orders/${reference}/status`]) {
      const response = await signedPoll(demoSigner, signed, sent);
      expect([sent, response.status, response.body.code]).toEqual([sent, 401, 'signature_invalid']);
    }
  });

  it('a percent-encoded orderId is signed as sent on the wire', async () => {
    const colonReference = `${uniqueReference('IND')}:part`;
    expect((await signedCreate(demoSigner, order(colonReference))).status).toBe(200);
    const encoded = `/payment-orders/${encodeURIComponent(colonReference)}/status`;
    expect(encoded).toContain('%3A');
    const response = await signedPoll(demoSigner, encoded);
    expect(response.status).toBe(200);
    expect(response.body.reference).toBe(colonReference);
    const decodedBase = await signedPoll(demoSigner, `/payment-orders/${colonReference}/status`, encoded);
    expect([decodedBase.status, decodedBase.body.code]).toEqual([401, 'signature_invalid']);
  });
});

describe('RSA keys registered for a client (PS256 and RS256)', () => {
  it.each(['PS256', 'RS256'] as const)('%s: create and reverse polling are accepted', async (alg) => {
    const signer = rsaSigners[alg];
    const reference = uniqueReference(`IND-${alg}`);
    const created = await signedCreate(signer, order(reference));
    expect(created.status).toBe(200);
    const polled = await signedPoll(signer, `/payment-orders/${reference}/status`);
    expect(polled.status).toBe(200);
    expect(polled.body.reference).toBe(reference);
  });

  it('a key registered for PS256 does not verify an RS256 signature (alg bound to the kid)', async () => {
    const signer: Signer = { ...rsaSigners.PS256, alg: 'RS256' };
    const response = await signedCreate(signer, order(uniqueReference('IND-ALG')));
    expect([response.status, response.body.code]).toEqual([401, 'signature_invalid']);
  });

  it("the demo client's kid cannot be used by the RSA client, nor the RSA kid by the demo client", async () => {
    const borrowed = await signedCreate({ ...rsaSigners.RS256, kid: demoSigner.kid }, order(uniqueReference('IND-KID')));
    expect([borrowed.status, borrowed.body.code]).toEqual([401, 'signature_invalid']);
    const lent = await signedCreate({ ...demoSigner, kid: rsaSigners.RS256.kid, alg: 'RS256', key: rsa.privateKey }, order(uniqueReference('IND-KID')));
    expect([lent.status, lent.body.code]).toEqual([401, 'signature_invalid']);
  });
});
