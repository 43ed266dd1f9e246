// Step 6: X-Signature, a detached JWS over the signature base, by a key registered for the client.
import { JwsFormatError, parseDetached, verifyDetached } from '../../../wire/jws';
import { signatureBase } from '../../../wire/signature-base';
import { ProblemError } from '../../../wire/problems';
import { Exchange, requireClient, Step } from '../exchange';

export function exchangeSignatureBase(exchange: Exchange, flow: Parameters<typeof signatureBase>[0]): string {
  const headers: Record<string, string> = {};
  for (const name of ['x-client-id', 'x-request-id', 'x-timestamp', 'x-nonce', 'x-idempotency-key']) {
    const value = exchange.header(name);
    if (value !== undefined) headers[name] = value;
  }
  return signatureBase(flow, { method: exchange.req.method, target: exchange.req.originalUrl, headers, body: exchange.rawBody });
}

export const checkSignature: Step = (exchange, _services, spec) => {
  const client = requireClient(exchange);
  const signature = exchange.header('x-signature');
  if (!signature) throw new ProblemError('signature_missing', 'X-Signature is required (a detached JWS over the signature base)');
  let parsed;
  try {
    parsed = parseDetached(signature);
  } catch (error) {
    if (error instanceof JwsFormatError) throw new ProblemError('signature_invalid', error.message);
    throw error;
  }
  const key = client.keys.find(parsed.header.kid, parsed.header.alg);
  if (!key) throw new ProblemError('signature_invalid', `kid "${parsed.header.kid}" is not a ${parsed.header.alg} key of client ${client.id}`);
  if (!verifyDetached(parsed, exchangeSignatureBase(exchange, spec.flow), key)) {
    throw new ProblemError('signature_invalid', 'the signature does not match the signature base of this request');
  }
};
