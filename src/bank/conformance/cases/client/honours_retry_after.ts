import { failed, passed, skipped } from '../../case';
import { defineWatchCase, polls } from './observed';

/** POLL_429's Retry-After, in ms; a poll may come this early and still count (clock resolution, scheduling). */
const RETRY_AFTER_MS = 2000;
const SLACK_MS = 50;

export default defineWatchCase('client.honours_retry_after', (context, found) => {
  const list = polls(found.requests);
  const throttled = list.find((request) => request.status === 429);
  if (!throttled) return skipped(list.length === 0 ? `the Connector never polled ${found.reference}` : `no poll of ${found.reference} was answered 429`);
  const next = list.find((request) => request.at > throttled.at);
  if (!next) return passed(`answered 429 with Retry-After: 2; no poll of it afterwards within the window`);
  const waited = next.at - throttled.answeredAt;
  if (waited < RETRY_AFTER_MS - SLACK_MS) return failed(`polled again ${waited} ms after the 429 with Retry-After: 2`);
  return passed(`polled again ${(waited / 1000).toFixed(1)} s after the 429`);
});
