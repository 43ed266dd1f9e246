import { failed, passed, skipped, warning } from '../../case';
import { defineWatchCase, pollTimes, polls } from './observed';

/** Jitter and scheduling noise: an interval may come out this much shorter than the one before and still count. */
const TOLERANCE = 0.1;
const SLACK_MS = 50;

/** "3 answered 403 mtls_required": how the Bank answered polls, grouped. */
function answers(list: readonly { status: number | null; code: string | null }[]): string {
  const counts = new Map<string, number>();
  for (const { status, code } of list) {
    const answer = status === null ? 'no answer' : `${status}${code ? ` ${code}` : ''}`;
    counts.set(answer, (counts.get(answer) ?? 0) + 1);
  }
  return [...counts].map(([answer, count]) => `${count} answered ${answer}`).join(', ');
}

export default defineWatchCase('client.polls_with_backoff', (context, found) => {
  const all = polls(found.requests);
  if (all.length === 0) return skipped(`the Connector never polled ${found.reference}`);
  // Backoff on a PENDING order is seen only in polls that got its status: polls the Bank refused (403
  // mtls_required over plain HTTP, 401 …) show how the Connector treats an error, not a PENDING order.
  const list = all.filter((request) => request.status === 200);
  if (list.length === 0) return skipped(`no poll of ${found.reference} was answered with its status (${answers(all)})`);
  if (list.length < 3) return warning(pollTimes(list), `only ${list.length} poll(s) of ${found.reference} answered with its status in the window: growth cannot be seen; lengthen window_s`);
  const intervals = list.slice(1).map((request, index) => request.at - list[index].at);
  for (let i = 1; i < intervals.length; i += 1) {
    if (intervals[i] < intervals[i - 1] * (1 - TOLERANCE) - SLACK_MS) return failed(`${pollTimes(list)}: interval ${i + 1} (${intervals[i]} ms) is shorter than interval ${i} (${intervals[i - 1]} ms)`);
  }
  const grows = intervals.some((interval) => interval > intervals[0] * (1 + TOLERANCE) + SLACK_MS);
  return grows ? passed(pollTimes(list)) : failed(`${pollTimes(list)}: the interval never grows`);
});
