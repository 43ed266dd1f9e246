// X-Signature mutations: signatures broken in their bytes or header, and valid signatures by the wrong key or over
// the wrong method, target or body.
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { PublicJwk } from '../../../src/wire/keys';
import { demo } from '../../helpers/bank';
import { expectOnly, Mutation } from './mutation';
import { b64, garbage } from './values';

export function flipBit(signature: string, index: number, bit: number): string {
  const [protectedHeader, , sig] = signature.split('.');
  const bytes = Buffer.from(sig, 'base64url');
  bytes[index % bytes.length] ^= 1 << (bit % 8);
  return `${protectedHeader}..${bytes.toString('base64url')}`;
}

/** Ways to break X-Signature; each still verifies nothing. */
export const signatureBreaker: fc.Arbitrary<[string, (signature: string) => string]> = fc.oneof(
  fc.tuple(fc.nat(), fc.nat({ max: 7 })).map(([index, bit]): [string, (s: string) => string] => ['flip signature bit', (s) => flipBit(s, index, bit)]),
  fc.constantFrom<[string, (s: string) => string]>(
    ['alg none', (s) => `${b64(JSON.stringify({ alg: 'none', kid: demo.private_jwk.kid, typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['alg HS256', (s) => `${b64(JSON.stringify({ alg: 'HS256', kid: demo.private_jwk.kid, typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['alg RS256 on an EC key', (s) => `${b64(JSON.stringify({ alg: 'RS256', kid: demo.private_jwk.kid, typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['unknown kid', (s) => `${b64(JSON.stringify({ alg: 'ES256', kid: 'no-such-kid', typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['no kid', (s) => `${b64(JSON.stringify({ alg: 'ES256', typ: 'JOSE' }))}..${s.split('.')[2]}`],
    ['b64 false', (s) => `${b64(JSON.stringify({ alg: 'ES256', kid: demo.private_jwk.kid, b64: false }))}..${s.split('.')[2]}`],
    ['header not JSON', (s) => `${b64('{"alg":')}..${s.split('.')[2]}`],
    ['header an array', (s) => `${b64('[1,2]')}..${s.split('.')[2]}`],
    ['attached payload', (s) => `${s.split('.')[0]}.${b64('{}')}.${s.split('.')[2]}`],
    ['truncated', (s) => s.slice(0, s.length - 10)],
    ['signature empty', (s) => `${s.split('.')[0]}..`],
    ['two parts', (s) => s.replace('..', '.')],
    ['four parts', (s) => `${s}.x`],
    ['not base64url', (s) => `${s.split('.')[0]}..${s.split('.')[2].slice(0, 20)}+/=`],
    ['signature zeroed', (s) => `${s.split('.')[0]}..${b64(Buffer.alloc(64))}`],
    ['duplicated signature bytes', (s) => `${s.split('.')[0]}..${s.split('.')[2]}${s.split('.')[2]}`],
  ),
  garbage.filter((value) => value.trim() !== '').map((value): [string, (s: string) => string] => ['garbage signature', () => value]),
);

/** X-Signature broken. */
export function signatureMutations(): fc.Arbitrary<Mutation> {
  return signatureBreaker.map(([name, edit]): Mutation => ({
    name,
    apply: (d) => {
      d.sigEdit = edit;
      expectOnly(d, 'signature_invalid', 'signature_missing');
    },
  }));
}

/** A valid signature, but by another key or over another method, target or body. */
export function keyAndCoverageMutations(): fc.Arbitrary<Mutation> {
  return fc.constantFrom<Mutation>(
    {
      name: "signed with another client's key",
      apply: (d, t) => {
        // Chosen from the caller, not toggled from the current key: applied twice it must stay foreign.
        d.jwk = d.fields['x-client-id'] === demo.client_id ? t.other.private_jwk : demo.private_jwk;
        expectOnly(d, 'signature_invalid');
      },
    },
    {
      name: "a fresh key under the client's kid",
      apply: (d) => {
        const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        d.jwk = { ...(pair.privateKey.export({ format: 'jwk' }) as PublicJwk), kid: d.jwk.kid, alg: 'ES256' };
        expectOnly(d, 'signature_invalid');
      },
    },
    {
      name: 'signed over another method',
      apply: (d) => {
        d.signMethod = d.method === 'GET' ? 'POST' : 'GET';
        expectOnly(d, 'signature_invalid');
      },
    },
    {
      name: 'signed over another target',
      apply: (d) => {
        d.signTarget = `${d.path}?signed=other`;
        expectOnly(d, 'signature_invalid');
      },
    },
    {
      name: 'sent with a query that was not signed',
      apply: (d) => {
        d.signTarget = d.signTarget ?? d.path;
        d.path = `${d.path}?unsigned=1`;
        expectOnly(d, 'signature_invalid');
      },
    },
    {
      name: 'signed over another body',
      apply: (d) => {
        d.signBody = Buffer.concat([d.body, Buffer.from(' ')]);
        expectOnly(d, 'signature_invalid');
      },
    },
  );
}
