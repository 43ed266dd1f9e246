import { defineCase, expectRejected } from '../../case';
import { EPOCH } from './page';

const TEN_MINUTES_MS = 10 * 60_000;

export default defineCase('pull.stale_timestamp_rejected', 0, async ({ probe, pullStatus, pullLimit }) => {
  const request = await probe.pull({ status: pullStatus, limit: String(pullLimit), offset: EPOCH }, { timestampMs: probe.now - TEN_MINUTES_MS });
  return expectRejected(await probe.send(request, 'a pull with X-Timestamp 10 minutes old', 'X-Timestamp 10 minutes old (correctly signed)'), 'the stale pull');
});
