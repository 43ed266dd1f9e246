// Plays one conformance run: discovery pulls first (the callback cases use orders the Connector served), then the
// pull, unit, batch and transport groups side by side (cases within a group one after another, each on orders of
// its own), while the client.* window runs; the client cases are judged from the journal when it closes.
// Nothing here touches the store: the run learns what it needs through RunDeps.
import { formatInstant } from '../../wire/rfc3339';
import { CallbackMode } from '../outbound/connectors';
import { plainHttpRefusal } from '../outbound/dispatcher';
import { CaseContext, ConformanceCase, failed, Judgement, ObservedRequest, ServedOrder, skipped } from './case';
import { REGISTRY } from './cases';
import { EPOCH, pageOf } from './cases/pull/page';
import { freshSigningKey } from './fresh-key';
import { CaseGroup, CaseResult, ClientOrder } from './model';
import { ConnectorFault, ConnectorProbe, ProbeSettings, ProbeTarget } from './probe';

export interface RunPlan {
  runId: string;
  clientId: string;
  caseIds: readonly string[];
  clientOrders: readonly ClientOrder[];
  windowS: number;
  target: ProbeTarget;
  callbackMode: CallbackMode;
  pullStatus: string;
  pullLimit: number;
  /**
   * Whether the Bank sends callbacks to an http:// Connector (SANDBOX_MODE=relaxed), by the dispatcher's own rule
   * (plainHttpRefusal); when it does not, the unit and batch cases are SKIPPED and make no connection.
   */
  allowPlainHttp: boolean;
}

export interface RunDeps {
  probe: Omit<ProbeSettings, 'journal'> & { journal: ProbeSettings['journal'] };
  /** Whether the Bank already holds this order of the client (such orders are never used by a run). */
  knownReference(reference: string): boolean;
  /** Adds a public key to the Bank's JWKS; answers the function that takes it out again. */
  publishKey(jwk: Record<string, unknown>): () => void;
  jwksFetches(from: number, to: number): number | null;
  /** The client's requests about these references since `since`, oldest first; null with the journal off. */
  observed(references: readonly string[], since: number): ObservedRequest[] | null;
  finalDeliveredAt(reference: string, since: number): number | null;
  onCaseFinished(result: CaseResult): void;
  sleep(ms: number): Promise<void>;
}

export interface RunOutcome {
  results: CaseResult[];
  /** Set when the run could not judge the Connector at all. */
  error: string | null;
}

const DISCOVERY_LIMIT = 100;
const DISCOVERY_PAGES = 10;

/** Pulls page after page from the epoch, as the poller would, to learn which orders the Connector serves. */
async function discover(probe: ConnectorProbe, plan: RunPlan): Promise<ServedOrder[]> {
  const served = new Map<string, ServedOrder>();
  let offset = EPOCH;
  const limit = String(Math.max(plan.pullLimit, DISCOVERY_LIMIT));
  for (let page = 0; page < DISCOVERY_PAGES; page += 1) {
    const answer = await probe.send(await probe.pull({ status: plan.pullStatus, limit, offset }), `discovery pull ${page + 1} (offset ${offset})`);
    const orders = pageOf(answer)?.orders ?? [];
    const fresh = orders.filter((order) => !served.has(order.reference));
    if (fresh.length === 0) break;
    for (const order of fresh) served.set(order.reference, order);
    offset = orders[orders.length - 1].initiatedAt;
  }
  return [...served.values()].sort((a, b) => (a.initiatedAt < b.initiatedAt ? -1 : a.initiatedAt > b.initiatedAt ? 1 : 0));
}

/** Why the Bank would send this run's Connector no callback at all (strict mode, http://), or null. */
export function callbacksRefused(plan: Pick<RunPlan, 'target' | 'allowPlainHttp'>): string | null {
  const refusal = plainHttpRefusal(plan.target.baseUrl, plan.allowPlainHttp);
  if (!refusal) return null;
  return `the Bank never calls back an http:// Connector in strict mode (${refusal}), so callback cases do not apply: no callback was sent and no connection made; register an https:// Connector URL, or run the Bank with SANDBOX_MODE=relaxed`;
}

function notApplicable(entry: ConformanceCase, plan: RunPlan): string | null {
  const { group } = entry.info;
  if (group === 'unit' || group === 'batch') {
    const refused = callbacksRefused(plan);
    if (refused) return refused;
  }
  if (group === 'unit' && plan.callbackMode === 'batch') return "the client's callback mode is batch: unit callback cases apply to unit and auto";
  if (group === 'batch' && plan.callbackMode === 'unit') return "the client's callback mode is unit: batch callback cases apply to batch and auto";
  return null;
}

/**
 * Within the unit group the rotated-key case runs before the unknown-kid one: a Connector may rightly limit how
 * often an unknown kid makes it refetch the JWKS, and the rotated key must get the first refetch.
 */
function playOrder(cases: readonly ConformanceCase[]): ConformanceCase[] {
  const rotated = cases.findIndex((one) => one.info.id === 'unit.rotated_key_accepted');
  const unknown = cases.findIndex((one) => one.info.id === 'unit.unknown_kid_rejected');
  if (rotated < 0 || unknown < 0 || rotated < unknown) return [...cases];
  const ordered = [...cases];
  ordered.splice(rotated, 1);
  ordered.splice(unknown, 0, cases[rotated]);
  return ordered;
}

export async function playRun(plan: RunPlan, deps: RunDeps): Promise<RunOutcome> {
  const startedAt = deps.probe.clock.now();
  const probe = new ConnectorProbe(plan.target, deps.probe);
  const unpublish: (() => void)[] = [];
  const results = new Map<string, CaseResult>();
  try {
    const planned = REGISTRY.filter((entry) => plan.caseIds.includes(entry.info.id));
    const needsOrders = planned.some((entry) => entry.info.group !== 'client' && notApplicable(entry, plan) === null);
    const served = needsOrders ? await discover(probe, plan) : [];
    const pool = served.filter((order) => !deps.knownReference(order.reference));
    const references = plan.clientOrders.map((order) => order.reference);
    const context: CaseContext = {
      runId: plan.runId,
      bankClientId: deps.probe.bankClientId,
      probe,
      pullStatus: plan.pullStatus,
      pullLimit: plan.pullLimit,
      served,
      untouched: (reference) => pool.some((order) => order.reference === reference),
      bankReference: (reference) => `CONF-${plan.runId}-${reference}`.slice(0, 128),
      rotatedKey: async () => {
        const key = await freshSigningKey();
        unpublish.push(deps.publishKey({ ...key.publicJwk }));
        return key;
      },
      foreignKey: freshSigningKey,
      jwksFetches: deps.jwksFetches,
      observed: () => deps.observed(references, startedAt),
      finalDeliveredAt: (reference) => deps.finalDeliveredAt(reference, startedAt),
      clientOrderFor: (caseId) => plan.clientOrders.find((order) => order.case === caseId)?.reference ?? null,
    };
    const play = async (entry: ConformanceCase): Promise<void> => {
      const result = await playCase(entry, context, pool, plan);
      results.set(entry.info.id, result);
      deps.onCaseFinished(result);
    };
    const group = (name: CaseGroup) => playOrder(planned.filter((entry) => entry.info.group === name));
    const sequence = async (entries: ConformanceCase[]) => {
      for (const entry of entries) await play(entry);
    };
    const clientCases = async () => {
      const clientGroup = group('client');
      if (clientGroup.length === 0) return;
      const windowEnd = startedAt + plan.windowS * 1000;
      await deps.sleep(Math.max(0, windowEnd - deps.probe.clock.now()));
      await sequence(clientGroup);
    };
    await Promise.all([sequence(group('pull')), sequence(group('unit')), sequence(group('batch')), sequence(group('transport')), clientCases()]);
    const ordered = planned.map((entry) => results.get(entry.info.id)).filter((result): result is CaseResult => result !== undefined);
    return { results: ordered, error: unreachable(probe, plan) };
  } finally {
    for (const take of unpublish) take();
    probe.close();
  }
}

/** The run's verdict on the Connector itself: when no request it sent got an HTTP answer, there is nothing to judge. */
function unreachable(probe: ConnectorProbe, plan: RunPlan): string | null {
  if (probe.sent === 0 || probe.answered > 0) return null;
  return `the Connector at ${plan.target.baseUrl} answered none of the run's ${probe.sent} requests (first error: ${probe.firstError ?? 'none'})`;
}

async function playCase(entry: ConformanceCase, runContext: CaseContext, pool: ServedOrder[], plan: RunPlan): Promise<CaseResult> {
  const context = { ...runContext, probe: runContext.probe.fork() };
  const started = context.probe.now;
  const judgement = await judge(entry, context, pool, plan);
  const { info } = entry;
  return {
    id: info.id,
    group: info.group,
    clause: info.clause,
    verdict: judgement.verdict,
    expected: info.expected,
    seen: judgement.seen,
    reason: judgement.reason ?? null,
    startedAt: formatInstant(started),
    durationMs: context.probe.now - started,
    exchanges: context.probe.recorded,
  };
}

async function judge(entry: ConformanceCase, context: CaseContext, pool: ServedOrder[], plan: RunPlan): Promise<Judgement> {
  const reason = notApplicable(entry, plan);
  if (reason) return skipped(reason);
  if (entry.orders > pool.length) {
    return skipped(`needs ${entry.orders} order(s) of its own that the Connector served in the run's pulls and that no earlier case used; ${pool.length} left (the Connector served ${context.served.length}, orders the Bank already holds are never used)`);
  }
  const orders = pool.splice(0, entry.orders);
  try {
    return await entry.play(context, orders);
  } catch (error) {
    if (error instanceof ConnectorFault) return failed(error.message);
    // A fault of the Bank's own, not of the Connector: shown as such, and the run goes on.
    return failed(`the Bank could not play this case (an error of the Bank's, please report it): ${(error as Error).message}`);
  }
}
