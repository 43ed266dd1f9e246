// Step 7: X-Nonce not seen from this client within the window. Only a verified request spends its nonce
// (and its DPoP proof's jti, checked for replay here for the same reason). The spend joins this turn's group
// commit (store/group-commit.ts); the answer, refusal or not, goes out once it is committed.
import { ProblemError } from '../../../wire/problems';
import { formatInstant } from '../../../wire/rfc3339';
import { nonceExpiresAt } from '../../../wire/verify-request';
import { requireClient, Step } from '../exchange';
import { authInvalid, invalidProofChallenge } from './check_authorization';

export const checkNonce: Step = (exchange, services) => {
  const client = requireClient(exchange);
  const nonce = exchange.header('x-nonce') ?? '';
  const expiresAt = nonceExpiresAt(exchange.timestampMs ?? exchange.nowMs, exchange.nowMs, services.config.timestampWindowS);
  // Each spend is a unit of its own (one statement, so no savepoint): a replayed DPoP jti must not undo the
  // nonce spent before it.
  if (!services.writes.runStatement(() => services.nonces.spend(client.id, nonce, exchange.nowMs, expiresAt))) {
    const firstSeenAt = services.nonces.firstSeenAt(client.id, nonce);
    throw new ProblemError('nonce_replayed', 'X-Nonce was already used by this client within the acceptance window', {
      extensions: { first_seen_at: firstSeenAt === null ? null : formatInstant(firstSeenAt) },
    });
  }
  const dpop = exchange.dpopJti;
  if (dpop && !services.writes.runStatement(() => services.nonces.spend(dpop.scope, dpop.jti, exchange.nowMs, dpop.expiresAt))) {
    throw authInvalid('dpop_replayed', 'the DPoP proof jti was already used', invalidProofChallenge('the DPoP proof jti was already used'));
  }
};
