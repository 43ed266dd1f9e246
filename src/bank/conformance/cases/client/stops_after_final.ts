import { failed, passed, skipped } from '../../case';
import { creates, defineWatchCase, polls } from './observed';

const FINAL = /"status"\s*:\s*"(SUCCESS|FAILED)"/;

export default defineWatchCase('client.stops_after_final', (context, found) => {
  if (creates(found.requests).length === 0) return skipped(`the Connector never pushed ${found.reference}`);
  const finalAt = context.finalDeliveredAt(found.reference);
  const finalPoll = polls(found.requests).find((request) => request.status === 200 && FINAL.test(request.responseBody ?? ''));
  const knownAt = Math.min(finalAt ?? Infinity, finalPoll?.answeredAt ?? Infinity);
  if (knownAt === Infinity) return skipped(`${found.reference} was not final for the Connector within the window (no final callback delivered, no final poll answer)`);
  const after = polls(found.requests).filter((request) => request.at > knownAt);
  return after.length === 0 ? passed('no poll after the order became final') : failed(`polled ${after.length} time(s) after the order became final`);
});
