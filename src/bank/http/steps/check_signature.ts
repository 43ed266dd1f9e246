// Step 6: X-Signature, a detached JWS over the signature base, by a key registered for the client.
// A refusal explains itself (profile v1.1 section 5): the base the Bank computed, the digest of the bytes it
// received, the kid and alg it read, and a reason, so a developer can diff their base line by line.
import { JwsFormatError, JwsRejection, parseDetached, peekHeader, verifyDetached } from '../../../wire/jws';
import { contentDigest, contentDigestMatches, SignedFlow, signatureBase } from '../../../wire/signature-base';
import { ProblemError } from '../../../wire/problems';
import { Exchange, requireClient, Step } from '../exchange';

type SignatureRejection = JwsRejection | 'kid_unknown' | 'digest_mismatch' | 'signature_mismatch';

export function exchangeSignatureBase(exchange: Exchange, flow: SignedFlow, digest = contentDigest(exchange.rawBody)): string {
  const headers: Record<string, string> = {};
  for (const name of ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key']) {
    const value = exchange.header(name);
    if (value !== undefined) headers[name] = value;
  }
  return signatureBase(flow, { method: exchange.req.method, target: exchange.req.originalUrl, headers, body: exchange.rawBody, digest });
}

function signatureInvalid(exchange: Exchange, flow: SignedFlow, reason: SignatureRejection, detail: string, signature: string): ProblemError {
  const digest = contentDigest(exchange.rawBody);
  const header = peekHeader(signature);
  const read = (name: string) => (typeof header?.[name] === 'string' ? header[name] : null);
  return new ProblemError('signature_invalid', detail, {
    extensions: { reason, signature_base: exchangeSignatureBase(exchange, flow, digest), content_digest: digest, kid: read('kid'), alg: read('alg') },
  });
}

export const checkSignature: Step = (exchange, _services, spec) => {
  const client = requireClient(exchange);
  const signature = exchange.header('x-signature');
  if (!signature) throw new ProblemError('signature_missing', 'X-Signature is required (a detached JWS over the signature base)');
  const refuse = (reason: SignatureRejection, detail: string) => signatureInvalid(exchange, spec.flow, reason, detail, signature);
  let parsed;
  try {
    parsed = parseDetached(signature);
  } catch (error) {
    if (error instanceof JwsFormatError) throw refuse(error.reason, error.message);
    throw error;
  }
  const digest = contentDigest(exchange.rawBody);
  const sentDigest = exchange.header('content-digest');
  if (sentDigest !== undefined && !contentDigestMatches(sentDigest, exchange.rawBody)) {
    throw refuse('digest_mismatch', `the Content-Digest header does not match the body received (${digest})`);
  }
  const key = client.keys.find(parsed.header.kid, parsed.header.alg);
  if (!key) throw refuse('kid_unknown', `kid "${parsed.header.kid}" is not a ${parsed.header.alg} key of client ${client.id}`);
  if (!verifyDetached(parsed, exchangeSignatureBase(exchange, spec.flow, digest), key)) {
    throw refuse('signature_mismatch', 'the signature does not match the signature base of this request (see signature_base)');
  }
};
