// Step 1: size and media type. The size limit itself is enforced while reading the body (read-raw-body.ts).
import { ProblemError } from '../../../wire/problems';
import { Step } from '../exchange';

const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

export function isJsonMediaType(value: string): boolean {
  return JSON_MEDIA_TYPE.test(value.trim());
}

/**
 * Whether a Content-Encoding names anything but the bytes as sent. The body is read as sent (the signature and the
 * digest are over those bytes; the control plane reads the same way), so a compressed body is refused by name.
 */
export function isEncoded(contentEncoding: string | undefined): contentEncoding is string {
  return contentEncoding !== undefined && contentEncoding.trim().toLowerCase() !== 'identity';
}

export const checkSizeAndMediaType: Step = (exchange, services, spec) => {
  if (exchange.rawBody.length > services.config.bodyLimitBytes) {
    throw new ProblemError('body_too_large', `the body exceeds ${services.config.bodyLimitBytes} bytes`);
  }
  if (!spec.hasBody) return;
  const contentType = exchange.header('content-type');
  if (contentType !== undefined && !isJsonMediaType(contentType)) {
    throw new ProblemError('unsupported_media_type', `Content-Type must be application/json (UTF-8), got "${contentType}"`);
  }
  // The specs do not name a Content-Encoding; the body is read as the bytes sent (the signature and the digest are
  // over them), so a compressed body would only fail later as malformed JSON. Said here instead, plainly.
  const contentEncoding = exchange.header('content-encoding');
  if (isEncoded(contentEncoding)) {
    throw new ProblemError('unsupported_media_type', `Content-Encoding "${contentEncoding}" is not accepted: send the JSON body uncompressed (the signature and Content-Digest cover the bytes as sent)`);
  }
};
