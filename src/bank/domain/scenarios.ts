// Deterministic outcome decision (profile section 8): metadata scenario, then rules, then the cents table.
import { centsPart, toCents } from '../../wire/money';
import { allIbans, PaymentOrder } from '../../wire/payment-order';
import { FinalOutcome } from './order-state';
import { isReasonCode } from '../../wire/reason-codes';
import { hasValidIbanChecksum } from './iban';

export type Scenario =
  | { kind: 'FINAL'; final: FinalOutcome }
  | { kind: 'PENDING'; delayS: number; final: FinalOutcome }
  | { kind: 'ASYNC'; delayS: number; final: FinalOutcome }
  | { kind: 'NO_CALLBACK' }
  | { kind: 'DUPLICATE_CALLBACK' }
  // v1.1, to test a Connector's retries and polling:
  | { kind: 'FAIL_ONCE'; then: Scenario }
  | { kind: 'POLL_429'; polls: number; then: Scenario }
  | { kind: 'POLL_404' };

export const MAX_SCENARIO_DELAY_S = 86_400;
export const SCENARIO_METADATA_KEY = 'sandbox_scenario';

export class ScenarioSyntaxError extends Error {}

function parseFinal(parts: string[], text: string): FinalOutcome {
  if (parts.length === 1 && parts[0] === 'SUCCESS') return { status: 'SUCCESS' };
  if (parts.length === 2 && parts[0] === 'FAILED') {
    if (!isReasonCode(parts[1])) throw new ScenarioSyntaxError(`unknown reason code "${parts[1]}" in "${text}"`);
    return { status: 'FAILED', reasonCode: parts[1] };
  }
  throw new ScenarioSyntaxError(`expected SUCCESS or FAILED:<reasonCode> in "${text}"`);
}

function parseDelay(value: string | undefined, text: string): number {
  if (value === undefined || !/^(0|[1-9][0-9]{0,5})$/.test(value) || Number(value) > MAX_SCENARIO_DELAY_S) {
    throw new ScenarioSyntaxError(`delay must be whole seconds from 0 to ${MAX_SCENARIO_DELAY_S} in "${text}"`);
  }
  return Number(value);
}

const MAX_THROTTLED_POLLS = 100;

function parseThrottle(rest: string[], text: string): Scenario {
  const [count, ...then] = rest;
  if (count === undefined || !/^[1-9][0-9]{0,2}$/.test(count) || Number(count) > MAX_THROTTLED_POLLS) {
    throw new ScenarioSyntaxError(`the number of throttled polls must be 1 to ${MAX_THROTTLED_POLLS} in "${text}"`);
  }
  return { kind: 'POLL_429', polls: Number(count), then: parseScenario(then.join(':')) };
}

export function parseScenario(text: string): Scenario {
  const [head, ...rest] = text.split(':');
  if (text === 'NO_CALLBACK') return { kind: 'NO_CALLBACK' };
  if (text === 'DUPLICATE_CALLBACK') return { kind: 'DUPLICATE_CALLBACK' };
  if (text === 'POLL_404') return { kind: 'POLL_404' };
  if (head === 'FAIL_ONCE') return { kind: 'FAIL_ONCE', then: parseScenario(rest.join(':')) };
  if (head === 'POLL_429') return parseThrottle(rest, text);
  if (head === 'SUCCESS' || head === 'FAILED') return { kind: 'FINAL', final: parseFinal([head, ...rest], text) };
  if (head === 'PENDING' || head === 'ASYNC') {
    const delayS = parseDelay(rest[0], text);
    return { kind: head, delayS, final: parseFinal(rest.slice(1), text) };
  }
  throw new ScenarioSyntaxError(`unknown scenario "${text}"`);
}

function formatFinal(final: FinalOutcome): string {
  return final.status === 'SUCCESS' ? 'SUCCESS' : `FAILED:${final.reasonCode}`;
}

export function formatScenario(scenario: Scenario): string {
  switch (scenario.kind) {
    case 'FINAL':
      return formatFinal(scenario.final);
    case 'PENDING':
    case 'ASYNC':
      return `${scenario.kind}:${scenario.delayS}:${formatFinal(scenario.final)}`;
    case 'FAIL_ONCE':
      return `FAIL_ONCE:${formatScenario(scenario.then)}`;
    case 'POLL_429':
      return `POLL_429:${scenario.polls}:${formatScenario(scenario.then)}`;
    default:
      return scenario.kind;
  }
}

export interface RuleMatch {
  amount?: string | { min?: string; max?: string };
  currency?: string;
  debtor_iban?: string;
  creditor_iban?: string;
  reference_pattern?: string;
  type?: string;
}

export interface Rule {
  name?: string;
  match: RuleMatch;
  outcome: string;
}

export interface CompiledRule {
  name: string;
  matches(order: PaymentOrder): boolean;
  scenario: Scenario;
}

function amountMatcher(spec: RuleMatch['amount']): (cents: bigint) => boolean {
  if (spec === undefined) return () => true;
  if (typeof spec === 'string') {
    const exact = toCents(spec);
    return (cents) => cents === exact;
  }
  const min = spec.min === undefined ? null : toCents(spec.min);
  const max = spec.max === undefined ? null : toCents(spec.max);
  return (cents) => (min === null || cents >= min) && (max === null || cents <= max);
}

/** Turns validated rules into matchers; throws on a bad outcome or pattern, naming the rule. */
export function compileRules(rules: readonly Rule[]): CompiledRule[] {
  return rules.map((rule, index) => {
    const name = rule.name ?? `rule #${index + 1}`;
    const fail = (why: string) => new ScenarioSyntaxError(`${name}: ${why}`);
    let scenario: Scenario;
    let pattern: RegExp | null;
    let amountOk: (cents: bigint) => boolean;
    try {
      scenario = parseScenario(rule.outcome);
      pattern = rule.match.reference_pattern === undefined ? null : new RegExp(rule.match.reference_pattern);
      amountOk = amountMatcher(rule.match.amount);
    } catch (error) {
      throw fail((error as Error).message);
    }
    const { currency, debtor_iban: debtorIban, creditor_iban: creditorIban, type } = rule.match;
    const matches = (order: PaymentOrder): boolean =>
      amountOk(toCents(order.total_amount)) &&
      (currency === undefined || order.currency === currency) &&
      (type === undefined || order.type === type) &&
      (debtorIban === undefined || order.debtor.iban === debtorIban) &&
      (creditorIban === undefined || order.creditors.some((creditor) => creditor.iban === creditorIban)) &&
      (pattern === null || pattern.test(order.reference));
    return { name, matches, scenario };
  });
}

const DEFAULT_CENTS_TABLE: Record<string, Scenario> = {
  '01': { kind: 'FINAL', final: { status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS' } },
  '02': { kind: 'FINAL', final: { status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED' } },
  '03': { kind: 'PENDING', delayS: 5, final: { status: 'SUCCESS' } },
  '04': { kind: 'PENDING', delayS: 5, final: { status: 'FAILED', reasonCode: 'BUS_REFUSED_BY_DEBTOR' } },
  '05': { kind: 'ASYNC', delayS: 5, final: { status: 'SUCCESS' } },
  '06': { kind: 'ASYNC', delayS: 5, final: { status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS' } },
};

export const DEFAULT_SCENARIO: Scenario = { kind: 'FINAL', final: { status: 'SUCCESS' } };

export interface Decision {
  scenario: Scenario;
  /** Why this scenario: `iban_checksum`, `metadata`, `rule:<name>` or `default`. */
  source: string;
}

export function decideScenario(order: PaymentOrder, rules: readonly CompiledRule[]): Decision {
  if (!allIbans(order).every(hasValidIbanChecksum)) {
    return { scenario: { kind: 'FINAL', final: { status: 'FAILED', reasonCode: 'BUS_INVALID_ACCOUNT' } }, source: 'iban_checksum' };
  }
  const requested = order.metadata?.[SCENARIO_METADATA_KEY];
  if (requested !== undefined) return { scenario: parseScenario(requested), source: 'metadata' };
  const rule = rules.find((candidate) => candidate.matches(order));
  if (rule) return { scenario: rule.scenario, source: `rule:${rule.name}` };
  return { scenario: DEFAULT_CENTS_TABLE[centsPart(order.total_amount)] ?? DEFAULT_SCENARIO, source: 'default' };
}

export interface SettlementPlan {
  /** 200 with a body, or 202 with none. */
  response: 'sync' | 'async';
  /** The status the order takes on acceptance. */
  initial: 'PENDING' | FinalOutcome;
  /** The final status reached later, if any, and when. */
  deferred: { final: FinalOutcome; delayS: number } | null;
  /** `none` for NO_CALLBACK and POLL_404, `duplicate` for DUPLICATE_CALLBACK. */
  callbacks: 'normal' | 'none' | 'duplicate';
  /** FAIL_ONCE: the first create attempt is answered 500 and stores nothing. */
  failFirstCreate: boolean;
  /** POLL_429: how many status polls are answered 429 before the status is shown. */
  pollsToThrottle: number;
  /** POLL_404: every status poll is answered 404 order_not_found. */
  pollAnswer: 'status' | 'not_found';
}

const PLAIN = { failFirstCreate: false, pollsToThrottle: 0, pollAnswer: 'status' } as const;

/** Plans already made, by scenario: the decided scenarios are mostly the same few objects (the cents table). */
const PLANS = new WeakMap<Scenario, SettlementPlan>();

/** The plan of a scenario; shared between the orders that follow it, so never changed by a caller. */
export function planFor(scenario: Scenario): SettlementPlan {
  let plan = PLANS.get(scenario);
  if (!plan) PLANS.set(scenario, (plan = makePlan(scenario)));
  return plan;
}

function makePlan(scenario: Scenario): SettlementPlan {
  switch (scenario.kind) {
    case 'FINAL':
      return { ...PLAIN, response: 'sync', initial: scenario.final, deferred: null, callbacks: 'normal' };
    case 'PENDING':
      return { ...PLAIN, response: 'sync', initial: 'PENDING', deferred: { final: scenario.final, delayS: scenario.delayS }, callbacks: 'normal' };
    case 'ASYNC':
      return { ...PLAIN, response: 'async', initial: 'PENDING', deferred: { final: scenario.final, delayS: scenario.delayS }, callbacks: 'normal' };
    case 'NO_CALLBACK':
      return { ...PLAIN, response: 'async', initial: 'PENDING', deferred: null, callbacks: 'none' };
    case 'DUPLICATE_CALLBACK':
      return { ...PLAIN, response: 'async', initial: 'PENDING', deferred: { final: { status: 'SUCCESS' }, delayS: 0 }, callbacks: 'duplicate' };
    case 'FAIL_ONCE':
      return { ...planFor(scenario.then), failFirstCreate: true };
    case 'POLL_429':
      return { ...planFor(scenario.then), pollsToThrottle: scenario.polls };
    case 'POLL_404':
      return { ...PLAIN, response: 'async', initial: 'PENDING', deferred: null, callbacks: 'none', pollAnswer: 'not_found' };
  }
}
