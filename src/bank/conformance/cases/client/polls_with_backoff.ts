import { failed, passed, skipped, warning } from '../../case';
import { defineWatchCase, pollTimes, polls } from './observed';

/** Jitter and scheduling noise: an interval may come out this much shorter than the one before and still count. */
const TOLERANCE = 0.1;
const SLACK_MS = 50;

export default defineWatchCase('client.polls_with_backoff', (context, found) => {
  const list = polls(found.requests);
  if (list.length === 0) return skipped(`the Connector never polled ${found.reference}`);
  if (list.length < 3) return warning(pollTimes(list), `only ${list.length} poll(s) of ${found.reference} in the window: growth cannot be seen; lengthen window_s`);
  const intervals = list.slice(1).map((request, index) => request.at - list[index].at);
  for (let i = 1; i < intervals.length; i += 1) {
    if (intervals[i] < intervals[i - 1] * (1 - TOLERANCE) - SLACK_MS) return failed(`${pollTimes(list)}: interval ${i + 1} (${intervals[i]} ms) is shorter than interval ${i} (${intervals[i - 1]} ms)`);
  }
  const grows = intervals.some((interval) => interval > intervals[0] * (1 + TOLERANCE) + SLACK_MS);
  return grows ? passed(pollTimes(list)) : failed(`${pollTimes(list)}: the interval never grows`);
});
