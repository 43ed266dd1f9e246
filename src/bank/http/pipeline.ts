// The inbound security pipeline, in the profile's check order (section 5):
// size and media type -> headers -> client -> authorization -> timestamp -> signature -> nonce.
// Idempotency and body checks are flow-specific and follow in each flow's handler.
import { checkAuthorization } from './steps/check_authorization';
import { checkClient } from './steps/check_client';
import { checkHeaders } from './steps/check_headers';
import { checkNonce } from './steps/check_nonce';
import { checkRateLimit } from './steps/check_rate_limit';
import { checkSignature } from './steps/check_signature';
import { checkSizeAndMediaType } from './steps/check_size_and_media_type';
import { checkTimestamp } from './steps/check_timestamp';
import { checkCertificateMatchesClient, checkTransport } from './steps/check_transport';
import { Exchange, FlowSpec, InboundServices, Step } from './exchange';

/** mTLS flows only: plain HTTP or a missing certificate is refused before the body is read. */
export const TRANSPORT_STEP: Step = checkTransport;

export const SECURITY_STEPS: readonly Step[] = [
  checkSizeAndMediaType,
  checkHeaders,
  checkCertificateMatchesClient, // mTLS flows only: certificate CN = X-Client-Id
  checkClient,
  checkAuthorization,
  checkRateLimit,
  checkTimestamp,
  checkSignature,
  checkNonce,
];

/** Runs the steps in order; synchronous unless a step answers a Promise, and then the rest run after it. */
export function runSecuritySteps(exchange: Exchange, services: InboundServices, spec: FlowSpec, from = 0): void | Promise<void> {
  for (let index = from; index < SECURITY_STEPS.length; index += 1) {
    const pending = SECURITY_STEPS[index](exchange, services, spec);
    if (pending) return pending.then(() => runSecuritySteps(exchange, services, spec, index + 1));
  }
}
