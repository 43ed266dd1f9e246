// The request id both sides answer with (profile section 5: every problem carries `request_id`): the caller's
// X-Request-Id when it is 1 to 200 visible ASCII characters, else a fresh UUID. The same rule on both sides, so
// the Connector document's XRequestId parameter describes the reference Connector as it does the Bank.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const REQUEST_ID = /^[\x21-\x7E]{1,200}$/;

export function requestIdOf(req: { headers: IncomingHttpHeaders }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
