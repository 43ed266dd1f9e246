// Detached JWS parsing (wire/jws.ts): the checked protected header is kept by its encoded text (issue 15), so these
// pin that a kept header answers exactly as a fresh parse would, and that a refused one is refused every time.
import { generateKeyPairSync } from 'node:crypto';
import { JwsFormatError, parseDetached, signDetached, verifyDetached } from '../../src/wire/jws';
import { b64url } from '../../src/wire/base64url';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;

function refusal(jws: string): { reason: string; message: string } {
  try {
    parseDetached(jws);
  } catch (error) {
    if (error instanceof JwsFormatError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('parsed');
}

describe('parseDetached', () => {
  it('answers the same checked header for the same protected text, frozen so no caller can change it for the next', () => {
    const first = parseDetached(signDetached('one', privateKey, { alg: 'ES256', kid: 'k1', typ: 'JOSE' }));
    const second = parseDetached(signDetached('two', privateKey, { alg: 'ES256', kid: 'k1', typ: 'JOSE' }));
    expect(second.header).toBe(first.header);
    expect(second.header).toEqual({ alg: 'ES256', kid: 'k1', typ: 'JOSE' });
    expect(Object.isFrozen(second.header)).toBe(true);
    expect(second.signature.equals(first.signature)).toBe(false);
  });

  it('keeps each signature to its own request: a reused header verifies only what it signed', () => {
    const header = { alg: 'ES256' as const, kid: 'k2' };
    const first = parseDetached(signDetached('payload one', privateKey, header));
    const second = parseDetached(signDetached('payload two', privateKey, header));
    expect(verifyDetached(first, 'payload one', publicKey)).toBe(true);
    expect(verifyDetached(second, 'payload two', publicKey)).toBe(true);
    expect(verifyDetached(second, 'payload one', publicKey)).toBe(false);
    expect(verifyDetached(second, 'payload two', otherKey)).toBe(false);
  });

  it('tells headers apart by their text: another kid is another header', () => {
    const a = parseDetached(signDetached('x', privateKey, { alg: 'ES256', kid: 'a' }));
    const b = parseDetached(signDetached('x', privateKey, { alg: 'ES256', kid: 'b' }));
    expect([a.header.kid, b.header.kid]).toEqual(['a', 'b']);
  });

  it.each([
    ['alg none', { alg: 'none', kid: 'k' }, 'alg_not_allowed'],
    ['HS256', { alg: 'HS256', kid: 'k' }, 'alg_not_allowed'],
    ['no kid', { alg: 'ES256' }, 'malformed'],
    ['crit', { alg: 'ES256', kid: 'k', crit: ['exp'] }, 'crit_unsupported'],
    ['b64', { alg: 'ES256', kid: 'k', b64: false }, 'crit_unsupported'],
  ])('refuses %s every time it is sent, not only the first', (_name, header, reason) => {
    const jws = `${b64url(JSON.stringify(header))}..${b64url(Buffer.alloc(64, 1))}`;
    expect(refusal(jws).reason).toBe(reason);
    expect(refusal(jws).reason).toBe(reason);
  });

  it('parses a header longer than the kept ones the same way (not kept: the text is the sender\'s)', () => {
    const header = { alg: 'ES256' as const, kid: 'k'.repeat(600) };
    const first = parseDetached(signDetached('long', privateKey, header));
    const second = parseDetached(signDetached('long', privateKey, header));
    expect(second.header).toEqual(header);
    expect(second.header).not.toBe(first.header);
    expect(verifyDetached(second, 'long', publicKey)).toBe(true);
  });

  it('refuses a protected header that is not JSON or not an object', () => {
    expect(refusal(`${b64url('not json')}..${b64url('sig')}`).message).toBe('protected header is not JSON');
    expect(refusal(`${b64url('[1]')}..${b64url('sig')}`).message).toBe('protected header is not an object');
  });
});
