// After authorization: a per-client token bucket per flow; 429 rate_limited with Retry-After.
import { ProblemError } from '../../../wire/problems';
import { requireClient, Step } from '../exchange';

export const checkRateLimit: Step = (exchange, _services, spec) => {
  const retryAfterS = spec.rateLimiter.take(requireClient(exchange).id, exchange.nowMs);
  if (retryAfterS > 0) {
    throw new ProblemError('rate_limited', `over the ${spec.flow} quota for this client; retry in ${retryAfterS} s`, {
      headers: { 'Retry-After': String(retryAfterS) },
    });
  }
};
