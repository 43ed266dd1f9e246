// The signature base of profile section 1: exactly the flow's lines, in order, lower-case names, the raw target, and
// the RFC 9530 digest of the raw body bytes (the empty string's digest when there is no body).
import { createHash } from 'node:crypto';
import { contentDigest, contentDigestMatches, SIGNED_HEADERS, signatureBase, SignedFlow } from '../../src/wire/signature-base';

const EMPTY_DIGEST = 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:';

/** Every header a request of any flow may carry, so that each flow must pick its own. */
const ALL_HEADERS = {
  'x-client-id': 'demo-connector',
  'x-request-id': '6f1c0a52-3c1e-4f8e-9f55-1a2b3c4d5e6f',
  'x-timestamp': '2026-11-22T10:15:30Z',
  'x-nonce': '9b2e4f6a8c0d2e4f6a8c',
  'x-idempotency-key': 'order-123-create',
  'x-signature': 'never-in-the-base',
  authorization: 'Bearer never-in-the-base',
  'content-type': 'application/json',
};

describe('contentDigest', () => {
  it('of no body is the digest of the empty string', () => {
    expect(contentDigest('')).toBe(EMPTY_DIGEST);
    expect(contentDigest(Buffer.alloc(0))).toBe(EMPTY_DIGEST);
  });

  it('is sha-256=:<standard base64>: over the bytes as given (no re-serialisation)', () => {
    expect(contentDigest('{}')).toBe('sha-256=:RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=:');
    expect(contentDigest('{"a":1}')).toBe('sha-256=:AVq9f1zFei3ZS3WQ8ErYCEJzkF7jPsXOvq5iJ2qX+GI=:');
    expect(contentDigest('{ "a": 1 }')).toBe('sha-256=:78b7voNfApluBw2bPzf/xBU/jtEVkPv1Vb/3Ah0nH+k=:');
  });

  it('of a Buffer hashes its raw bytes (0xFF is not the UTF-8 of U+00FF)', () => {
    expect(contentDigest(Buffer.from([0xff]))).toBe('sha-256=:qBAK5qoZQNC2Y7sxzUZhQuu9vVGHExuS2TgYmHgy64k=:');
    expect(contentDigest('\u00ff')).toBe('sha-256=:6kf6ls9tcn0waJE9qRk/70SuxO4sWXLprFDPfWN6Vs8=:');
  });
});

describe('contentDigestMatches with the SHA-256 the receiver already took', () => {
  const body = Buffer.from('{"reference":"ORD-1"}');
  const sha256 = createHash('sha256').update(body).digest();
  const header = `sha-256=:${sha256.toString('base64')}:`;

  it('compares the sha-256 member with the digest given instead of hashing the body again', () => {
    expect(contentDigestMatches(header, body, sha256)).toBe(true);
    const otherDigest = createHash('sha256').update('{}').digest();
    expect(contentDigestMatches(header, body, otherDigest)).toBe(false);
  });

  it('still hashes for the other algorithms, and every member must match', () => {
    const sha512 = createHash('sha512').update(body).digest('base64');
    expect(contentDigestMatches(`${header}, sha-512=:${sha512}:`, body, sha256)).toBe(true);
    expect(contentDigestMatches(`${header}, sha-512=:${createHash('sha512').update('x').digest('base64')}:`, body, sha256)).toBe(false);
  });
});

describe('SIGNED_HEADERS', () => {
  it('is the profile table, in order (content-digest is added last by signatureBase)', () => {
    expect(SIGNED_HEADERS).toEqual({
      create: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
      pull: ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
      status: ['x-client-id', 'x-timestamp', 'x-nonce'],
      callback: ['x-client-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'],
    });
  });
});

describe('signatureBase per flow', () => {
  it('create: the profile example, line for line, no trailing newline', () => {
    const base = signatureBase('create', { method: 'POST', target: '/payment-orders', headers: ALL_HEADERS, body: '' });
    expect(base).toBe(
      [
        '@method: POST',
        '@target-uri: /payment-orders',
        'x-client-id: demo-connector',
        'x-request-id: 6f1c0a52-3c1e-4f8e-9f55-1a2b3c4d5e6f',
        'x-timestamp: 2026-11-22T10:15:30Z',
        'x-nonce: 9b2e4f6a8c0d2e4f6a8c',
        'x-idempotency-key: order-123-create',
        `content-digest: ${EMPTY_DIGEST}`,
      ].join('\n'),
    );
    expect(base.endsWith('\n')).toBe(false);
    expect(base.includes('\r')).toBe(false);
  });

  it('pull: the same lines as create, for a GET with its raw query', () => {
    const target = '/payment-orders?offset=2026-11-22T00%3A00%3A00Z&limit=100&status=READY';
    expect(signatureBase('pull', { method: 'GET', target, headers: ALL_HEADERS, body: '' }).split('\n')).toEqual([
      '@method: GET',
      `@target-uri: ${target}`,
      'x-client-id: demo-connector',
      'x-request-id: 6f1c0a52-3c1e-4f8e-9f55-1a2b3c4d5e6f',
      'x-timestamp: 2026-11-22T10:15:30Z',
      'x-nonce: 9b2e4f6a8c0d2e4f6a8c',
      'x-idempotency-key: order-123-create',
      `content-digest: ${EMPTY_DIGEST}`,
    ]);
  });

  it('status (reverse polling): no x-request-id, no x-idempotency-key, even when the request carries them', () => {
    expect(signatureBase('status', { method: 'GET', target: '/payment-orders/ORD-1/status', headers: ALL_HEADERS, body: Buffer.alloc(0) }).split('\n')).toEqual([
      '@method: GET',
      '@target-uri: /payment-orders/ORD-1/status',
      'x-client-id: demo-connector',
      'x-timestamp: 2026-11-22T10:15:30Z',
      'x-nonce: 9b2e4f6a8c0d2e4f6a8c',
      `content-digest: ${EMPTY_DIGEST}`,
    ]);
  });

  it('callback: x-idempotency-key but no x-request-id; the digest of the body', () => {
    const body = '{"reference":"ORD-1","bank_reference":"BR-1","status":"SUCCESS","processed_at":"2026-11-22T10:15:30.000Z"}';
    expect(signatureBase('callback', { method: 'POST', target: '/callbacks/orders/status', headers: ALL_HEADERS, body }).split('\n')).toEqual([
      '@method: POST',
      '@target-uri: /callbacks/orders/status',
      'x-client-id: demo-connector',
      'x-timestamp: 2026-11-22T10:15:30Z',
      'x-nonce: 9b2e4f6a8c0d2e4f6a8c',
      'x-idempotency-key: order-123-create',
      `content-digest: ${contentDigest(body)}`,
    ]);
  });

  it.each<SignedFlow>(['create', 'pull', 'status', 'callback'])('%s: exactly @method, @target-uri, the flow headers, content-digest; never the signature, authorization or content-type', (flow) => {
    const base = signatureBase(flow, { method: 'POST', target: '/x', headers: ALL_HEADERS, body: '{}' });
    const names = base.split('\n').map((line) => line.slice(0, line.indexOf(': ')));
    expect(names).toEqual(['@method', '@target-uri', ...SIGNED_HEADERS[flow], 'content-digest']);
    expect(base).not.toMatch(/x-signature|authorization|content-type/i);
  });

  it('upper-cases the method', () => {
    expect(signatureBase('status', { method: 'get', target: '/x', headers: ALL_HEADERS, body: '' }).split('\n')[0]).toBe('@method: GET');
    expect(signatureBase('create', { method: 'Post', target: '/x', headers: ALL_HEADERS, body: '' }).split('\n')[0]).toBe('@method: POST');
  });

  it('keeps the target exactly as sent: query order, percent-encoding, case and repeats untouched', () => {
    const target = '/payment-orders/A%2Fb/status?z=1&a=%7e&A=2&a=3&empty=&flag';
    expect(signatureBase('status', { method: 'GET', target, headers: ALL_HEADERS, body: '' }).split('\n')[1]).toBe(`@target-uri: ${target}`);
  });

  it('uses header values as sent (blanks and case kept)', () => {
    const headers = { ...ALL_HEADERS, 'x-client-id': 'Demo-Connector', 'x-nonce': 'AbC_-0123456789xyz' };
    const lines = signatureBase('status', { method: 'GET', target: '/x', headers, body: '' }).split('\n');
    expect(lines[2]).toBe('x-client-id: Demo-Connector');
    expect(lines[4]).toBe('x-nonce: AbC_-0123456789xyz');
  });

  it('reads lower-case header names; an absent header gives an empty value (the request is refused earlier)', () => {
    const lines = signatureBase('status', { method: 'GET', target: '/x', headers: { 'X-Client-Id': 'upper', 'x-timestamp': 't' }, body: '' }).split('\n');
    expect(lines.slice(2, 5)).toEqual(['x-client-id: ', 'x-timestamp: t', 'x-nonce: ']);
  });

  it('changes with any byte of the body (a trailing space included)', () => {
    const input = { method: 'POST', target: '/payment-orders', headers: ALL_HEADERS };
    expect(signatureBase('create', { ...input, body: '{}' })).not.toBe(signatureBase('create', { ...input, body: '{} ' }));
    expect(signatureBase('create', { ...input, body: Buffer.from('{}') })).toBe(signatureBase('create', { ...input, body: '{}' }));
  });
});
