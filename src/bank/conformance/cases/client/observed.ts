// What the client.* cases read: the Connector's own requests about one of the run's orders, from the journal.
import { CaseContext, ConformanceCase, defineCase, Judgement, ObservedRequest, skipped } from '../../case';

/** Requests for the case's order, oldest first; or the SKIPPED judgement that says why there are none to judge. */
export function requestsFor(context: CaseContext, caseId: string): { reference: string; requests: ObservedRequest[] } | Judgement {
  const reference = context.clientOrderFor(caseId);
  if (!reference) return skipped('the run asked the Connector to push no order for this case');
  const observed = context.observed();
  if (observed === null) return skipped('the journal is off (JOURNAL=off): the Connector\'s requests cannot be observed');
  return { reference, requests: observed.filter((request) => request.reference === reference).sort((a, b) => a.at - b.at) };
}

export const isJudgement = (value: unknown): value is Judgement => typeof value === 'object' && value !== null && 'verdict' in value;

export const creates = (requests: readonly ObservedRequest[]) => requests.filter((request) => request.method === 'POST' && request.path === '/payment-orders');
export const polls = (requests: readonly ObservedRequest[]) => requests.filter((request) => request.method === 'GET' && request.path.endsWith('/status'));

/** "polled 3 times, at +0.2 s, +0.6 s, +1.4 s" relative to the first. */
export function pollTimes(list: readonly ObservedRequest[]): string {
  if (list.length === 0) return 'no poll';
  const first = list[0].at;
  return `${list.length} poll${list.length === 1 ? '' : 's'}, at ${list.map((request) => `+${((request.at - first) / 1000).toFixed(1)} s`).join(', ')}`;
}

/** Shows the requests a case judged in its report, as the journal kept them. */
export function attach(context: CaseContext, requests: readonly ObservedRequest[]): void {
  for (const request of requests) context.probe.recordObserved(request, `the Connector's ${request.method === 'POST' ? 'create' : 'status poll'} of ${request.reference ?? 'an order'}`);
}

/**
 * A client.* case that watches the Connector's requests about its own order: they are found and shown in the
 * report before `judge` reads them; without an order or a journal the case is SKIPPED first.
 */
export function defineWatchCase(id: string, judge: (context: CaseContext, found: { reference: string; requests: ObservedRequest[] }) => Judgement): ConformanceCase {
  return defineCase(id, 0, async (context) => {
    const found = requestsFor(context, id);
    if (isJudgement(found)) return found;
    attach(context, found.requests);
    return judge(context, found);
  });
}
