import { defineCase, failed, passed, skipped } from '../../case';
import { attach } from './observed';

/** Refusals that say the Connector's signing or freshness is wrong. */
const SIGNING_CODES = new Set(['signature_missing', 'signature_invalid', 'timestamp_out_of_window', 'nonce_replayed', 'header_missing', 'header_invalid']);

export default defineCase('client.create_signed_correctly', 0, async (context) => {
  const observed = context.observed();
  if (observed === null) return skipped("the journal is off (JOURNAL=off): the Connector's requests cannot be observed");
  const creates = observed.filter((request) => request.method === 'POST' && request.path === '/payment-orders');
  if (creates.length === 0) return skipped('the Connector sent no create during the window');
  attach(context, creates);
  const refused = creates.filter((request) => request.code !== null && SIGNING_CODES.has(request.code));
  if (refused.length > 0) return failed(`${refused.length} of ${creates.length} creates refused: ${refused.slice(0, 3).map((request) => `${request.reference ?? '?'} ${request.status} ${request.code} (journal ${request.journalId})`).join('; ')}`);
  return passed(`${creates.length} creates, none refused for signature, timestamp or nonce`);
});
