// How the sandbox decides an outcome (profile section 8): the IBAN checksum first, then metadata.sandbox_scenario,
// then the rules file (first match wins), then the default rules by the cents of total_amount.
import {
  compileRules,
  decideScenario,
  DEFAULT_SCENARIO,
  formatScenario,
  MAX_SCENARIO_DELAY_S,
  parseScenario,
  planFor,
  Rule,
  Scenario,
  SCENARIO_METADATA_KEY,
  ScenarioSyntaxError,
} from '../../src/bank/domain/scenarios';
import { PaymentOrder } from '../../src/wire/payment-order';
import { REASON_CODES, ReasonCode } from '../../src/wire/reason-codes';

const IBAN = { debtor: 'DE89370400440532013000', creditor: 'FR1420041010050500013M02606', creditor2: 'GB82WEST12345698765432', bad: 'DE00370400440532013000' };

function order(overrides: Partial<PaymentOrder> = {}, amount = '100.00'): PaymentOrder {
  return {
    reference: 'ORD-2026-0001',
    initiated_at: '2026-11-22T09:00:00Z',
    reason: 'Invoice 2026-11',
    type: 'DIRECT_DEBIT',
    debtor: { name: 'Alice Debtor', iban: IBAN.debtor },
    creditors: [{ name: 'Bob Creditor', iban: IBAN.creditor, bank_code: 'BNPAFRPP', amount, reason: 'Invoice 2026-11' }],
    total_amount: amount,
    currency: 'EUR',
    metadata: { initiator: 'unit' },
    ...overrides,
  };
}

const withScenario = (scenario: string, amount = '100.00') => order({ metadata: { initiator: 'unit', [SCENARIO_METADATA_KEY]: scenario } }, amount);
const success = { status: 'SUCCESS' } as const;
const failedWith = (reasonCode: ReasonCode) => ({ status: 'FAILED' as const, reasonCode });

describe('constants', () => {
  it('the metadata key and the longest delay', () => {
    expect(SCENARIO_METADATA_KEY).toBe('sandbox_scenario');
    expect(MAX_SCENARIO_DELAY_S).toBe(86_400);
    expect(DEFAULT_SCENARIO).toEqual({ kind: 'FINAL', final: success });
  });
});

describe('parseScenario: every form', () => {
  it.each<[string, Scenario]>([
    ['SUCCESS', { kind: 'FINAL', final: success }],
    ['FAILED:BUS_INSUFFICIENT_FUNDS', { kind: 'FINAL', final: failedWith('BUS_INSUFFICIENT_FUNDS') }],
    ['FAILED:TECH_TIMEOUT', { kind: 'FINAL', final: failedWith('TECH_TIMEOUT') }],
    ['PENDING:5:SUCCESS', { kind: 'PENDING', delayS: 5, final: success }],
    ['PENDING:0:SUCCESS', { kind: 'PENDING', delayS: 0, final: success }],
    ['PENDING:86400:SUCCESS', { kind: 'PENDING', delayS: 86_400, final: success }],
    ['PENDING:5:FAILED:BUS_REFUSED_BY_DEBTOR', { kind: 'PENDING', delayS: 5, final: failedWith('BUS_REFUSED_BY_DEBTOR') }],
    ['ASYNC:5:SUCCESS', { kind: 'ASYNC', delayS: 5, final: success }],
    ['ASYNC:0:SUCCESS', { kind: 'ASYNC', delayS: 0, final: success }],
    ['ASYNC:120:FAILED:BUS_ACCOUNT_BLOCKED', { kind: 'ASYNC', delayS: 120, final: failedWith('BUS_ACCOUNT_BLOCKED') }],
    ['NO_CALLBACK', { kind: 'NO_CALLBACK' }],
    ['DUPLICATE_CALLBACK', { kind: 'DUPLICATE_CALLBACK' }],
  ])('%s', (text, scenario) => {
    expect(parseScenario(text)).toEqual(scenario);
    expect(formatScenario(parseScenario(text))).toBe(text);
  });

  it.each(Object.keys(REASON_CODES) as ReasonCode[])('FAILED:%s and PENDING:1:FAILED:<it>', (code) => {
    expect(parseScenario(`FAILED:${code}`)).toEqual({ kind: 'FINAL', final: failedWith(code) });
    expect(parseScenario(`PENDING:1:FAILED:${code}`)).toEqual({ kind: 'PENDING', delayS: 1, final: failedWith(code) });
    expect(parseScenario(`ASYNC:1:FAILED:${code}`)).toEqual({ kind: 'ASYNC', delayS: 1, final: failedWith(code) });
  });
});

describe('parseScenario: malformed', () => {
  it.each([
    '',
    'success',
    'Success',
    ' SUCCESS',
    'SUCCESS ',
    'SUCCESS:',
    'SUCCESS:extra',
    'FAILED',
    'FAILED:',
    'FAILED:NOT_A_CODE',
    'FAILED:bus_insufficient_funds',
    'FAILED:toString',
    'FAILED:__proto__',
    'FAILED:BUS_ACCOUNT_CLOSED:extra',
    'PENDING',
    'PENDING:',
    'PENDING:5',
    'PENDING:5:',
    'PENDING::SUCCESS',
    'PENDING:x:SUCCESS',
    'PENDING:-1:SUCCESS',
    'PENDING:+5:SUCCESS',
    'PENDING:05:SUCCESS',
    'PENDING:1.5:SUCCESS',
    'PENDING:1e3:SUCCESS',
    'PENDING: 5:SUCCESS',
    'PENDING:86401:SUCCESS',
    'PENDING:999999:SUCCESS',
    'PENDING:1000000:SUCCESS',
    'PENDING:5:PENDING',
    'PENDING:5:NO_CALLBACK',
    'PENDING:5:SUCCESS:extra',
    'pending:5:SUCCESS',
    'ASYNC:-1:SUCCESS',
    'ASYNC:5',
    'ASYNC:5:ASYNC:5:SUCCESS',
    'NO_CALLBACK:',
    'NO_CALLBACK:5',
    'no_callback',
    'DUPLICATE_CALLBACK:SUCCESS',
    'DUPLICATE_CALLBACK:2',
    'SUCCESS;FAILED',
    'UNKNOWN',
  ])('%j is a ScenarioSyntaxError', (text) => {
    expect(() => parseScenario(text)).toThrow(ScenarioSyntaxError);
  });

  it('says why, quoting the text', () => {
    expect(() => parseScenario('FAILED:NOPE')).toThrow('unknown reason code "NOPE" in "FAILED:NOPE"');
    expect(() => parseScenario('PENDING:86401:SUCCESS')).toThrow('delay must be whole seconds from 0 to 86400 in "PENDING:86401:SUCCESS"');
    expect(() => parseScenario('PENDING:5:PENDING')).toThrow('expected SUCCESS or FAILED:<reasonCode> in "PENDING:5:PENDING"');
    expect(() => parseScenario('MAYBE')).toThrow('unknown scenario "MAYBE"');
  });

  // Profile v1.1, section 8.1 (conformance client.* cases).
  it.each(['FAIL_ONCE:SUCCESS', 'FAIL_ONCE:PENDING:5:SUCCESS', 'POLL_429:2:ASYNC:5:SUCCESS', 'POLL_404', 'FAIL_ONCE:POLL_429:1:NO_CALLBACK'])('v1.1 scenario %j parses and formats back to itself', (text) => {
    expect(formatScenario(parseScenario(text))).toBe(text);
  });

  it.each([
    ['POLL_429:0:SUCCESS', 'the number of throttled polls must be 1 to 100 in "POLL_429:0:SUCCESS"'],
    ['POLL_429:101:SUCCESS', 'the number of throttled polls must be 1 to 100 in "POLL_429:101:SUCCESS"'],
    ['POLL_429:x:SUCCESS', 'the number of throttled polls must be 1 to 100 in "POLL_429:x:SUCCESS"'],
    ['FAIL_ONCE', 'unknown scenario ""'],
    ['FAIL_ONCE:MAYBE', 'unknown scenario "MAYBE"'],
    ['POLL_429:2', 'unknown scenario ""'],
  ])('refuses the malformed v1.1 scenario %j', (text, message) => {
    expect(() => parseScenario(text)).toThrow(message);
  });
});

describe('formatScenario', () => {
  it('writes what parseScenario reads', () => {
    expect(formatScenario({ kind: 'FINAL', final: failedWith('BUS_REGULATORY') })).toBe('FAILED:BUS_REGULATORY');
    expect(formatScenario({ kind: 'ASYNC', delayS: 7, final: failedWith('BUS_MANDATE_INVALID') })).toBe('ASYNC:7:FAILED:BUS_MANDATE_INVALID');
    expect(formatScenario({ kind: 'PENDING', delayS: 0, final: success })).toBe('PENDING:0:SUCCESS');
    expect(formatScenario({ kind: 'NO_CALLBACK' })).toBe('NO_CALLBACK');
    expect(formatScenario({ kind: 'DUPLICATE_CALLBACK' })).toBe('DUPLICATE_CALLBACK');
  });
});

describe('planFor', () => {
  const plain = { failFirstCreate: false, pollsToThrottle: 0, pollAnswer: 'status' };

  it('FINAL: 200 with the final status, nothing deferred', () => {
    expect(planFor(parseScenario('FAILED:BUS_ACCOUNT_CLOSED'))).toEqual({ response: 'sync', initial: failedWith('BUS_ACCOUNT_CLOSED'), deferred: null, callbacks: 'normal', ...plain });
    expect(planFor(parseScenario('SUCCESS'))).toEqual({ response: 'sync', initial: success, deferred: null, callbacks: 'normal', ...plain });
  });

  it('PENDING: 200 PENDING, the final after the delay', () => {
    expect(planFor(parseScenario('PENDING:5:SUCCESS'))).toEqual({ response: 'sync', initial: 'PENDING', deferred: { final: success, delayS: 5 }, callbacks: 'normal', ...plain });
  });

  it('ASYNC: 202, PENDING, the final after the delay', () => {
    expect(planFor(parseScenario('ASYNC:9:FAILED:BUS_INSUFFICIENT_FUNDS'))).toEqual({
      response: 'async',
      initial: 'PENDING',
      deferred: { final: failedWith('BUS_INSUFFICIENT_FUNDS'), delayS: 9 },
      callbacks: 'normal',
      ...plain,
    });
  });

  it('NO_CALLBACK: 202, stays PENDING, no callback ever', () => {
    expect(planFor(parseScenario('NO_CALLBACK'))).toEqual({ response: 'async', initial: 'PENDING', deferred: null, callbacks: 'none', ...plain });
  });

  it('FAIL_ONCE: the plan of its scenario, with the first create failing', () => {
    expect(planFor(parseScenario('FAIL_ONCE:PENDING:5:SUCCESS'))).toEqual({ ...planFor(parseScenario('PENDING:5:SUCCESS')), failFirstCreate: true });
  });

  it('POLL_429: the plan of its scenario, with the first n polls throttled', () => {
    expect(planFor(parseScenario('POLL_429:3:ASYNC:5:SUCCESS'))).toEqual({ ...planFor(parseScenario('ASYNC:5:SUCCESS')), pollsToThrottle: 3 });
    expect(planFor(parseScenario('FAIL_ONCE:POLL_429:2:SUCCESS'))).toMatchObject({ failFirstCreate: true, pollsToThrottle: 2, response: 'sync' });
  });

  it('POLL_404: 202, PENDING, no callback, every poll answered 404', () => {
    expect(planFor(parseScenario('POLL_404'))).toEqual({ response: 'async', initial: 'PENDING', deferred: null, callbacks: 'none', failFirstCreate: false, pollsToThrottle: 0, pollAnswer: 'not_found' });
  });

  it('DUPLICATE_CALLBACK: 202, SUCCESS at once, reported twice', () => {
    expect(planFor(parseScenario('DUPLICATE_CALLBACK'))).toEqual({ response: 'async', initial: 'PENDING', deferred: { final: success, delayS: 0 }, callbacks: 'duplicate', ...plain });
  });
});

describe('decideScenario: the default rules by cents', () => {
  it.each<[string, Scenario]>([
    ['10.01', { kind: 'FINAL', final: failedWith('BUS_INSUFFICIENT_FUNDS') }],
    ['10.02', { kind: 'FINAL', final: failedWith('BUS_ACCOUNT_CLOSED') }],
    ['10.03', { kind: 'PENDING', delayS: 5, final: success }],
    ['10.04', { kind: 'PENDING', delayS: 5, final: failedWith('BUS_REFUSED_BY_DEBTOR') }],
    ['10.05', { kind: 'ASYNC', delayS: 5, final: success }],
    ['10.06', { kind: 'ASYNC', delayS: 5, final: failedWith('BUS_INSUFFICIENT_FUNDS') }],
    ['0.01', { kind: 'FINAL', final: failedWith('BUS_INSUFFICIENT_FUNDS') }],
    ['999999999999999.06', { kind: 'ASYNC', delayS: 5, final: failedWith('BUS_INSUFFICIENT_FUNDS') }],
  ])('%s', (amount, scenario) => {
    expect(decideScenario(order({}, amount), [])).toEqual({ scenario, source: 'default' });
  });

  it.each(['100', '100.00', '10.07', '10.10', '10.99', '10.1', '10.6', '1.60', '0.00', '7'])('%s is SUCCESS (cents .00, .07-.99, and .10 is not .01)', (amount) => {
    expect(decideScenario(order({}, amount), [])).toEqual({ scenario: { kind: 'FINAL', final: success }, source: 'default' });
  });
});

describe('decideScenario: the order of precedence', () => {
  const everything: Rule = { name: 'everything', match: { currency: 'EUR' }, outcome: 'FAILED:BUS_REGULATORY' };

  it('an IBAN failing mod-97 (debtor) gives FAILED BUS_INVALID_ACCOUNT before metadata, rules and cents', () => {
    const decision = decideScenario({ ...withScenario('SUCCESS', '10.05'), debtor: { name: 'x', iban: IBAN.bad } }, compileRules([everything]));
    expect(decision).toEqual({ scenario: { kind: 'FINAL', final: failedWith('BUS_INVALID_ACCOUNT') }, source: 'iban_checksum' });
  });

  it('an IBAN failing mod-97 on any creditor counts too', () => {
    const base = order();
    const creditors = [...base.creditors, { ...base.creditors[0], iban: IBAN.bad }];
    expect(decideScenario({ ...base, creditors }, []).source).toBe('iban_checksum');
  });

  it('the IBAN check normalises (spaces, case) before the checksum', () => {
    expect(decideScenario(order({ debtor: { name: 'x', iban: 'de89 3704 0044 0532 0130 00' } }), []).source).toBe('default');
  });

  it('metadata.sandbox_scenario wins over the rules and the cents', () => {
    expect(decideScenario(withScenario('ASYNC:3:SUCCESS', '10.01'), compileRules([everything]))).toEqual({
      scenario: { kind: 'ASYNC', delayS: 3, final: success },
      source: 'metadata',
    });
  });

  it('a malformed metadata scenario throws (validation refuses it before a decision)', () => {
    expect(() => decideScenario(withScenario('SOMETIMES'), [])).toThrow(ScenarioSyntaxError);
  });

  it('other metadata keys do not count', () => {
    expect(decideScenario(order({ metadata: { scenario: 'FAILED:BUS_REGULATORY', initiator: 'x' } }), []).source).toBe('default');
    expect(decideScenario(order({ metadata: undefined }), []).source).toBe('default');
  });

  it('a matching rule wins over the cents', () => {
    expect(decideScenario(order({}, '10.05'), compileRules([everything]))).toEqual({ scenario: { kind: 'FINAL', final: failedWith('BUS_REGULATORY') }, source: 'rule:everything' });
  });

  it('no matching rule: the cents decide', () => {
    expect(decideScenario(order({}, '10.02'), compileRules([{ match: { currency: 'USD' }, outcome: 'SUCCESS' }])).source).toBe('default');
  });
});

describe('rules: first match wins, every field must hold', () => {
  const decide = (rules: Rule[], o: PaymentOrder = order()) => decideScenario(o, compileRules(rules)).source;

  it('the first of several matching rules decides, whatever the later ones say', () => {
    const rules: Rule[] = [
      { name: 'usd', match: { currency: 'USD' }, outcome: 'FAILED:BUS_INVALID_CURRENCY' },
      { name: 'first-eur', match: { currency: 'EUR' }, outcome: 'PENDING:2:SUCCESS' },
      { name: 'second-eur', match: { currency: 'EUR', type: 'DIRECT_DEBIT' }, outcome: 'FAILED:BUS_REGULATORY' },
    ];
    expect(decideScenario(order(), compileRules(rules))).toEqual({ scenario: { kind: 'PENDING', delayS: 2, final: success }, source: 'rule:first-eur' });
    expect(decide([...rules].reverse())).toBe('rule:second-eur');
  });

  it('an unnamed rule is named by its position', () => {
    expect(decide([{ match: { currency: 'USD' }, outcome: 'SUCCESS' }, { match: { currency: 'EUR' }, outcome: 'SUCCESS' }])).toBe('rule:rule #2');
  });

  it('amount: exact, compared in cents (100 matches 100.00)', () => {
    expect(decide([{ name: 'r', match: { amount: '100' }, outcome: 'SUCCESS' }], order({}, '100.00'))).toBe('rule:r');
    expect(decide([{ name: 'r', match: { amount: '100.00' }, outcome: 'SUCCESS' }], order({}, '100.01'))).toBe('default');
  });

  it('amount: a range with inclusive bounds; min or max alone', () => {
    const range: Rule = { name: 'r', match: { amount: { min: '10.00', max: '20.00' } }, outcome: 'SUCCESS' };
    expect(decide([range], order({}, '10.00'))).toBe('rule:r');
    expect(decide([range], order({}, '20'))).toBe('rule:r');
    expect(decide([range], order({}, '9.99'))).toBe('default');
    expect(decide([range], order({}, '20.01'))).toBe('default');
    expect(decide([{ name: 'r', match: { amount: { min: '1000' } }, outcome: 'SUCCESS' }], order({}, '999999.00'))).toBe('rule:r');
    expect(decide([{ name: 'r', match: { amount: { min: '1000' } }, outcome: 'SUCCESS' }], order({}, '999.99'))).toBe('default');
    expect(decide([{ name: 'r', match: { amount: { max: '0.50' } }, outcome: 'SUCCESS' }], order({}, '0.5'))).toBe('rule:r');
    expect(decide([{ name: 'r', match: { amount: { max: '0.50' } }, outcome: 'SUCCESS' }], order({}, '0.51'))).toBe('default');
  });

  it('currency and type: exact', () => {
    expect(decide([{ name: 'r', match: { currency: 'eur' }, outcome: 'SUCCESS' }])).toBe('default');
    expect(decide([{ name: 'r', match: { type: 'CREDIT_TRANSFER' }, outcome: 'SUCCESS' }])).toBe('default');
    expect(decide([{ name: 'r', match: { type: 'DIRECT_DEBIT' }, outcome: 'SUCCESS' }])).toBe('rule:r');
  });

  it('debtor_iban: the debtor only; creditor_iban: any creditor', () => {
    expect(decide([{ name: 'r', match: { debtor_iban: IBAN.debtor }, outcome: 'SUCCESS' }])).toBe('rule:r');
    expect(decide([{ name: 'r', match: { debtor_iban: IBAN.creditor }, outcome: 'SUCCESS' }])).toBe('default');
    const two = order({ creditors: [...order().creditors, { ...order().creditors[0], iban: IBAN.creditor2 }] });
    expect(decide([{ name: 'r', match: { creditor_iban: IBAN.creditor2 }, outcome: 'SUCCESS' }], two)).toBe('rule:r');
    expect(decide([{ name: 'r', match: { creditor_iban: IBAN.debtor }, outcome: 'SUCCESS' }], two)).toBe('default');
  });

  it('reference_pattern: a JavaScript regular expression, unanchored unless it says so', () => {
    expect(decide([{ name: 'r', match: { reference_pattern: '2026' }, outcome: 'SUCCESS' }])).toBe('rule:r');
    expect(decide([{ name: 'r', match: { reference_pattern: '^2026' }, outcome: 'SUCCESS' }])).toBe('default');
    expect(decide([{ name: 'r', match: { reference_pattern: '^ORD-\\d{4}-\\d+$' }, outcome: 'SUCCESS' }])).toBe('rule:r');
    expect(decide([{ name: 'r', match: { reference_pattern: '^ord' }, outcome: 'SUCCESS' }])).toBe('default');
  });

  it('all fields of a rule must hold at once', () => {
    const rule: Rule = { name: 'r', match: { currency: 'EUR', type: 'DIRECT_DEBIT', amount: '100.00', reference_pattern: 'XYZ' }, outcome: 'SUCCESS' };
    expect(decide([rule])).toBe('default');
    expect(decide([rule], order({ reference: 'ORD-XYZ' }))).toBe('rule:r');
  });

  it('a rule with an empty match matches every order', () => {
    expect(decide([{ name: 'any', match: {}, outcome: 'NO_CALLBACK' }])).toBe('rule:any');
  });
});

describe('compileRules: errors name the rule', () => {
  it('a bad outcome', () => {
    expect(() => compileRules([{ name: 'broken', match: {}, outcome: 'FAILED:NOPE' }])).toThrow(new ScenarioSyntaxError('broken: unknown reason code "NOPE" in "FAILED:NOPE"'));
  });

  it('an unnamed rule by its position', () => {
    expect(() => compileRules([{ match: {}, outcome: 'SUCCESS' }, { match: {}, outcome: 'LATER' }])).toThrow('rule #2: unknown scenario "LATER"');
  });

  it('a bad reference_pattern', () => {
    expect(() => compileRules([{ name: 'regex', match: { reference_pattern: '(' }, outcome: 'SUCCESS' }])).toThrow(ScenarioSyntaxError);
    expect(() => compileRules([{ name: 'regex', match: { reference_pattern: '(' }, outcome: 'SUCCESS' }])).toThrow(/^regex: /);
  });

  it('a bad amount', () => {
    expect(() => compileRules([{ name: 'amt', match: { amount: '1.234' }, outcome: 'SUCCESS' }])).toThrow('amt: not a decimal amount with at most two decimals: 1.234');
    expect(() => compileRules([{ name: 'amt', match: { amount: { min: '-1' } }, outcome: 'SUCCESS' }])).toThrow(/^amt: /);
  });

  it('keeps the rule names and parsed scenarios in order', () => {
    const compiled = compileRules([{ name: 'a', match: {}, outcome: 'SUCCESS' }, { match: {}, outcome: 'ASYNC:1:SUCCESS' }]);
    expect(compiled.map((rule) => [rule.name, rule.scenario])).toEqual([
      ['a', { kind: 'FINAL', final: success }],
      ['rule #2', { kind: 'ASYNC', delayS: 1, final: success }],
    ]);
  });
});
