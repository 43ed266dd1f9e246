import { defineCase, expectRejected, runKey, statusFor } from '../../case';

const TEN_MINUTES_MS = 10 * 60_000;

export default defineCase('unit.stale_timestamp_rejected', 1, async (context, [order]) => {
  const { probe } = context;
  const request = probe.callback('unit', statusFor(context, order, 'SUCCESS', 'unit'), runKey(context, 'unit'), { timestampMs: probe.now - TEN_MINUTES_MS });
  return expectRejected(await probe.send(request, `SUCCESS for ${order.reference}, X-Timestamp 10 minutes old`, 'X-Timestamp 10 minutes old (correctly signed)'), 'the stale callback');
});
