import { failed, passed, skipped } from '../../case';
import { defineWatchCase, polls } from './observed';

export default defineWatchCase('client.stops_after_404', (context, found) => {
  const list = polls(found.requests);
  const notFound = list.find((request) => request.status === 404);
  if (!notFound) return skipped(list.length === 0 ? `the Connector never polled ${found.reference}` : `no poll of ${found.reference} was answered 404`);
  const after = list.filter((request) => request.at > notFound.answeredAt);
  return after.length === 0 ? passed('answered 404; never polled again') : failed(`polled ${after.length} more time(s) after the 404`);
});
