// Step 6: X-Signature, a detached JWS over the signature base, by a key registered for the client (the shared
// check of wire/verify-request). A refusal explains itself (profile v1.1 section 5): the base the Bank
// computed, the digest of the bytes it received, the kid and alg it read, and a reason, so a developer can
// diff their base line by line.
import type { KeyObject } from 'node:crypto';
import { peekHeader } from '../../../wire/jws';
import { ProblemError } from '../../../wire/problems';
import { originForm } from '../../../wire/http-edge';
import { contentDigestOfSha256 } from '../../../wire/signature-base';
import { checkSignature as verifySignature, incomingSignatureBase, IncomingRequest, VerifyFailure } from '../../../wire/verify-request';
import { findClientKey } from '../../security/client-registry';
import { Exchange, requireClient, Step } from '../exchange';

function incoming(exchange: Exchange): IncomingRequest {
  return {
    method: exchange.req.method,
    // Path and query only, also for an absolute-form target (profile section 1; RFC 9112 section 3.2.2).
    target: originForm(exchange.req.originalUrl),
    header: (name: string) => exchange.header(name),
    body: exchange.rawBody,
    bodySha256: exchange.bodySha256,
  };
}

function signatureProblem(exchange: Exchange, flow: Parameters<typeof incomingSignatureBase>[0], failure: VerifyFailure): ProblemError {
  if (failure.code !== 'signature_invalid') return new ProblemError(failure.code, failure.detail);
  const header = peekHeader(exchange.header('x-signature') ?? '');
  const read = (name: string) => (typeof header?.[name] === 'string' ? header[name] : null);
  return new ProblemError('signature_invalid', failure.detail, {
    extensions: {
      reason: failure.reason,
      signature_base: incomingSignatureBase(flow, incoming(exchange)),
      content_digest: contentDigestOfSha256(exchange.bodySha256),
      kid: read('kid'),
      alg: read('alg'),
    },
  });
}

/**
 * Synchronous when the key is at hand (inline keys, or a fresh jwks_uri cache that knows the kid). A jwks_uri
 * client whose cache is stale or lacks the kid gets one fetch (profile v1.1 section 1: once per kid and minute),
 * and the step answers a Promise: the same check then runs again with the key that fetch gave (or none).
 */
export const checkSignature: Step = (exchange, _services, spec) => {
  const client = requireClient(exchange);
  const owner = `of client ${client.id}`;
  const request = incoming(exchange);
  let fetching: Promise<KeyObject | null> | null = null;
  const failure = verifySignature(spec.flow, request, (kid, alg) => {
    const found = findClientKey(client, kid, alg);
    if (!(found instanceof Promise)) return found;
    fetching = found;
    return null;
  }, owner);
  if (fetching === null) {
    if (failure) throw signatureProblem(exchange, spec.flow, failure);
    return;
  }
  return (fetching as Promise<KeyObject | null>).then((key) => {
    const afterFetch = verifySignature(spec.flow, request, () => key, owner);
    if (afterFetch) throw signatureProblem(exchange, spec.flow, afterFetch);
  });
};
