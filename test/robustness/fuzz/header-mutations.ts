// Header-level mutations of a signed request, shared by create and reverse polling: required headers dropped or
// empty, malformed values, signed headers altered after signing, unknown client, broken signatures, timestamps out
// of the window, replayed nonces, bad authorization.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { demo, newNonce } from '../../helpers/bank';
import { authorizationMutations } from './auth-mutations';
import { expectOnly, Mutation } from './mutation';
import { keyAndCoverageMutations, signatureMutations } from './signature-mutations';
import { FuzzTarget } from './types';
import { badClientId, badIdempotencyKey, badNonce, badRequestId, badTimestamp, uuidLike } from './values';

const SIGNED_CREATE = ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key'];
const SIGNED_STATUS = ['x-client-id', 'x-timestamp', 'x-nonce'];

function missingCode(name: string): string {
  if (name === 'x-signature') return 'signature_missing';
  if (name === 'authorization') return 'auth_missing';
  return 'header_missing';
}

function skewedIso(t: FuzzTarget, offsetS: number): string {
  return new Date(t.bank.clock.now() + offsetS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function requiredHeaders(flow: 'create' | 'status'): string[] {
  return flow === 'create' ? [...SIGNED_CREATE, 'x-signature', 'authorization', 'content-type'] : [...SIGNED_STATUS, 'x-signature', 'authorization'];
}

/** Header-level mutations, shared by create and reverse polling. */
export function headerMutations(flow: 'create' | 'status'): fc.Arbitrary<Mutation> {
  const required = requiredHeaders(flow);
  const signed = flow === 'create' ? SIGNED_CREATE : SIGNED_STATUS;
  const syntax: Record<string, fc.Arbitrary<string>> = {
    'x-client-id': badClientId,
    'x-request-id': badRequestId,
    'x-timestamp': badTimestamp,
    'x-nonce': badNonce,
    'x-idempotency-key': badIdempotencyKey,
  };
  return fc.oneof(
    // A required header dropped, or sent empty.
    fc.constantFrom(...required).map((name): Mutation => ({
      name: `drop ${name}`,
      apply: (d) => {
        d.edits.push({ op: 'drop', name });
        if (name === 'content-type') d.rawOnly = true;
        expectOnly(d, missingCode(name));
      },
    })),
    fc.constantFrom(...required).map((name): Mutation => ({
      name: `empty ${name}`,
      apply: (d) => {
        d.edits.push({ op: 'set', name, value: '' });
        expectOnly(d, name === 'content-type' ? 'unsupported_media_type' : missingCode(name));
      },
    })),
    // A malformed non-security header (the value is what goes on the wire: no re-signing needed to break it).
    fc.constantFrom(...signed).chain((name) => syntax[name].map((value): Mutation => ({
      name: `malformed ${name}`,
      apply: (d) => {
        d.fields[name] = value;
        expectOnly(d, 'header_invalid');
      },
    }))),
    // A signed header changed after signing, to another well-formed value.
    fc.constantFrom(...signed).chain((name) => fc.integer({ min: 1, max: 250 }).map((shift): Mutation => ({
      name: `altered ${name} after signing`,
      apply: (d, t) => {
        const changed: Record<string, string> = {
          'x-client-id': t.other.client_id,
          'x-request-id': `fz-${randomUUID()}`,
          'x-timestamp': skewedIso(t, shift % 2 === 0 ? shift : -shift),
          'x-nonce': newNonce(),
          'x-idempotency-key': `idem-${randomUUID()}`,
        };
        d.edits.push({ op: 'set', name, value: changed[name] });
        expectOnly(d, name === 'x-client-id' ? 'auth_invalid' : 'signature_invalid');
      },
    }))),
    fc.constant<Mutation>({
      name: 'unknown client',
      apply: (d) => {
        d.fields['x-client-id'] = `ghost-${uuidLike().slice(0, 12)}`;
        expectOnly(d, 'client_unknown');
      },
    }),
    // X-Signature broken.
    signatureMutations(),
    keyAndCoverageMutations(),
    // Timestamp outside the window, correctly signed.
    fc.tuple(fc.integer({ min: 2, max: 100_000_000 }), fc.boolean()).map(([beyond, future]): Mutation => ({
      name: `timestamp ${future ? '+' : '-'}(window + ${beyond} s)`,
      apply: (d, t) => {
        const seconds = t.bank.config.timestampWindowS + beyond;
        d.fields['x-timestamp'] = skewedIso(t, future ? seconds : -seconds);
        expectOnly(d, 'timestamp_out_of_window');
      },
    })),
    // A nonce this client already spent, correctly signed.
    fc.nat().map((index): Mutation => ({
      name: 'replayed nonce',
      apply: (d, t) => {
        if (t.seeds.spentNonces.length === 0 || d.fields['x-client-id'] !== demo.client_id) {
          // Strict mode has no verified status requests to take nonces from: fall back to a stale timestamp.
          d.fields['x-timestamp'] = skewedIso(t, -(t.bank.config.timestampWindowS + 3600));
          expectOnly(d, 'timestamp_out_of_window');
          return;
        }
        d.fields['x-nonce'] = t.seeds.spentNonces[index % t.seeds.spentNonces.length];
        expectOnly(d, 'nonce_replayed');
      },
    })),
    // Authorization that is not this client's valid credential.
    authorizationMutations(flow),
  );
}
