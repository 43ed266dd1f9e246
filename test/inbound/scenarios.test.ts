// Profile section 8: how the sandbox decides an outcome (metadata scenario, rules file, default cents table,
// IBAN checksum first), checked on the create answer (200 or 202) and on reverse polling, with a ManualClock.
import fs from 'node:fs';
import path from 'node:path';
import { Bank } from '../../src/bank/bank';
import { OrderRepository } from '../../src/bank/store/orders';
import { ManualClock } from '../../src/wire/clock';
import { FinalStatusImmutableError, InvalidTransitionError, OrderStatus, transition } from '../../src/bank/domain/order-state';
import { REASON_CODES, ReasonCode } from '../../src/wire/reason-codes';
import { demo, DemoClient, IBANS, makeIban, sampleOrder, startBank, tempDir } from '../helpers/bank';
import { expectProblem, Problem } from '../helpers/wire';

type Order = Record<string, unknown>;
type CreateResponse = Awaited<ReturnType<DemoClient['create']>>;

interface Expected {
  status: OrderStatus;
  reason?: ReasonCode;
}

const CREATE_KEYS = ['bank_reference', 'reference', 'status', 'timestamp'];
const STATUS_KEYS = ['bank_reference', 'processed_at', 'reference', 'status'];

function withScenario(scenario: string, overrides: Order = {}, amount?: string): Order {
  return sampleOrder({ metadata: { initiator: 'test-suite', sandbox_scenario: scenario }, ...overrides }, amount);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Asserts the 200 create body of contract 2.4 (snake_case reason fields only when FAILED). */
function expectSyncAnswer(response: CreateResponse, order: Order, expected: Expected, at: number): void {
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(response.text) as Record<string, string>;
  const keys = expected.status === 'FAILED' ? [...CREATE_KEYS, 'reason_code', 'reason_message'].sort() : CREATE_KEYS;
  expect(Object.keys(body).sort()).toEqual(keys);
  expect(body).toMatchObject({ status: expected.status, reference: order.reference, timestamp: iso(at) });
  expect(body.bank_reference).toMatch(/^\S+$/);
  expect(body.timestamp.endsWith('Z')).toBe(true);
  if (expected.status === 'FAILED') {
    expect(body.reason_code).toBe(expected.reason);
    expect(body.reason_message).toBe(REASON_CODES[expected.reason as ReasonCode].message);
  }
}

/** Asserts the 202 create answer: no body, Content-Length 0. */
function expectAsyncAnswer(response: CreateResponse): void {
  expect(response.status).toBe(202);
  expect(response.headers['content-length']).toBe('0');
  expect(response.headers['content-type']).toBeUndefined();
  expect(response.text).toBe('');
}

describe('scenarios (ManualClock, reverse polling in relaxed mode)', () => {
  const clock = new ManualClock();
  let bank: Bank;

  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' }, { clock });
  });
  afterAll(() => bank.close());

  /** A fresh client per call, so that moving the clock never leaves a cached token expired. */
  const client = () => new DemoClient(bank);

  async function create(order: Order): Promise<CreateResponse> {
    return client().create(order);
  }

  /** Reverse polling answer (contract 2.3, camelCase reason fields, processed_at). */
  async function expectPolled(order: Order, expected: Expected, processedAt?: number): Promise<Record<string, string>> {
    const response = await client().status(order.reference as string);
    expect(response.status).toBe(200);
    const body = JSON.parse(response.text) as Record<string, string>;
    const keys = expected.status === 'FAILED' ? [...STATUS_KEYS, 'reasonCode', 'reasonMessage'].sort() : STATUS_KEYS;
    expect(Object.keys(body).sort()).toEqual(keys);
    expect(body).toMatchObject({ reference: order.reference, status: expected.status });
    if (expected.status === 'FAILED') {
      expect(body.reasonCode).toBe(expected.reason);
      expect(body.reasonMessage).toBe(REASON_CODES[expected.reason as ReasonCode].message);
    }
    if (processedAt !== undefined) expect(body.processed_at).toBe(iso(processedAt));
    return body;
  }

  function history(order: Order) {
    return bank.book.history(demo.client_id, order.reference as string).map((row) => ({ from: row.from, to: row.to, reasonCode: row.reasonCode }));
  }

  describe('metadata.sandbox_scenario', () => {
    it('SUCCESS: 200 SUCCESS, and SUCCESS on reverse polling', async () => {
      const order = withScenario('SUCCESS', {}, '7.01'); // the scenario wins over the cents table
      const at = clock.now();
      const created = await create(order);
      expectSyncAnswer(created, order, { status: 'SUCCESS' }, at);
      const polled = await expectPolled(order, { status: 'SUCCESS' }, at);
      expect(polled.bank_reference).toBe(created.body.bank_reference);
      expect(history(order)).toEqual([{ from: null, to: 'SUCCESS', reasonCode: null }]);
    });

    it.each(Object.keys(REASON_CODES) as ReasonCode[])('FAILED:%s: 200 FAILED with reason_code/reason_message, then reasonCode/reasonMessage on polling', async (code) => {
      const order = withScenario(`FAILED:${code}`);
      const at = clock.now();
      expectSyncAnswer(await create(order), order, { status: 'FAILED', reason: code }, at);
      await expectPolled(order, { status: 'FAILED', reason: code }, at);
    });

    it('PENDING:<s>:SUCCESS: 200 PENDING, PENDING until the delay has passed, then SUCCESS', async () => {
      const order = withScenario('PENDING:10:SUCCESS');
      const at = clock.now();
      expectSyncAnswer(await create(order), order, { status: 'PENDING' }, at);
      await expectPolled(order, { status: 'PENDING' }, at);
      clock.advance(9_999);
      await expectPolled(order, { status: 'PENDING' }, at);
      clock.advance(1);
      await expectPolled(order, { status: 'SUCCESS' }, at + 10_000);
      expect(history(order)).toEqual([
        { from: null, to: 'PENDING', reasonCode: null },
        { from: 'PENDING', to: 'SUCCESS', reasonCode: null },
      ]);
    });

    it('PENDING:<s>:FAILED:<code>: 200 PENDING, then FAILED with the reason', async () => {
      const order = withScenario('PENDING:10:FAILED:BUS_MANDATE_INVALID');
      const at = clock.now();
      expectSyncAnswer(await create(order), order, { status: 'PENDING' }, at);
      clock.advance(9_000);
      await expectPolled(order, { status: 'PENDING' }, at);
      clock.advance(1_000);
      await expectPolled(order, { status: 'FAILED', reason: 'BUS_MANDATE_INVALID' }, at + 10_000);
      expect(history(order)).toEqual([
        { from: null, to: 'PENDING', reasonCode: null },
        { from: 'PENDING', to: 'FAILED', reasonCode: 'BUS_MANDATE_INVALID' },
      ]);
    });

    it('PENDING:0:SUCCESS: 200 PENDING, final on the first poll', async () => {
      const order = withScenario('PENDING:0:SUCCESS');
      const at = clock.now();
      expectSyncAnswer(await create(order), order, { status: 'PENDING' }, at);
      await expectPolled(order, { status: 'SUCCESS' }, at);
    });

    it('ASYNC:<s>:SUCCESS: 202 with no body, PENDING, then SUCCESS after the delay', async () => {
      const order = withScenario('ASYNC:7:SUCCESS');
      const at = clock.now();
      expectAsyncAnswer(await create(order));
      await expectPolled(order, { status: 'PENDING' }, at);
      clock.advance(6_999);
      await expectPolled(order, { status: 'PENDING' }, at);
      clock.advance(1);
      await expectPolled(order, { status: 'SUCCESS' }, at + 7_000);
    });

    it('ASYNC:<s>:FAILED:<code>: 202 with no body, PENDING, then FAILED after the delay', async () => {
      const order = withScenario('ASYNC:7:FAILED:BUS_REGULATORY');
      const at = clock.now();
      expectAsyncAnswer(await create(order));
      await expectPolled(order, { status: 'PENDING' }, at);
      clock.advance(7_000);
      await expectPolled(order, { status: 'FAILED', reason: 'BUS_REGULATORY' }, at + 7_000);
      expect(history(order)).toEqual([
        { from: null, to: 'PENDING', reasonCode: null },
        { from: 'PENDING', to: 'FAILED', reasonCode: 'BUS_REGULATORY' },
      ]);
    });

    it('NO_CALLBACK: 202 with no body, and PENDING forever', async () => {
      const order = withScenario('NO_CALLBACK');
      const at = clock.now();
      expectAsyncAnswer(await create(order));
      await expectPolled(order, { status: 'PENDING' }, at);
      clock.advance(30 * 86_400_000);
      bank.book.settleAllDue();
      await expectPolled(order, { status: 'PENDING' }, at);
      expect(history(order)).toEqual([{ from: null, to: 'PENDING', reasonCode: null }]);
    });

    it('DUPLICATE_CALLBACK: 202 with no body, final SUCCESS with delay 0', async () => {
      const order = withScenario('DUPLICATE_CALLBACK');
      const at = clock.now();
      expectAsyncAnswer(await create(order));
      await expectPolled(order, { status: 'SUCCESS' }, at);
      expect(history(order)).toEqual([
        { from: null, to: 'PENDING', reasonCode: null },
        { from: 'PENDING', to: 'SUCCESS', reasonCode: null },
      ]);
    });
  });

  describe('default rules by the cents of total_amount', () => {
    const table: [string, 'sync' | 'async', Expected, Expected][] = [
      ['7.01', 'sync', { status: 'FAILED', reason: 'BUS_INSUFFICIENT_FUNDS' }, { status: 'FAILED', reason: 'BUS_INSUFFICIENT_FUNDS' }],
      ['7.02', 'sync', { status: 'FAILED', reason: 'BUS_ACCOUNT_CLOSED' }, { status: 'FAILED', reason: 'BUS_ACCOUNT_CLOSED' }],
      ['7.03', 'sync', { status: 'PENDING' }, { status: 'SUCCESS' }],
      ['7.04', 'sync', { status: 'PENDING' }, { status: 'FAILED', reason: 'BUS_REFUSED_BY_DEBTOR' }],
      ['7.05', 'async', { status: 'PENDING' }, { status: 'SUCCESS' }],
      ['7.06', 'async', { status: 'PENDING' }, { status: 'FAILED', reason: 'BUS_INSUFFICIENT_FUNDS' }],
      ['7.00', 'sync', { status: 'SUCCESS' }, { status: 'SUCCESS' }],
      ['7.07', 'sync', { status: 'SUCCESS' }, { status: 'SUCCESS' }],
      ['7.99', 'sync', { status: 'SUCCESS' }, { status: 'SUCCESS' }],
      ['7', 'sync', { status: 'SUCCESS' }, { status: 'SUCCESS' }],
      ['7.1', 'sync', { status: 'SUCCESS' }, { status: 'SUCCESS' }], // 10 cents, not .01
      ['0.01', 'sync', { status: 'FAILED', reason: 'BUS_INSUFFICIENT_FUNDS' }, { status: 'FAILED', reason: 'BUS_INSUFFICIENT_FUNDS' }],
      ['123456789012345.05', 'async', { status: 'PENDING' }, { status: 'SUCCESS' }],
    ];

    it.each(table)('%s -> %s %j, later %j', async (amount, mode, first, later) => {
      const order = sampleOrder({}, amount);
      const at = clock.now();
      const created = await create(order);
      if (mode === 'async') expectAsyncAnswer(created);
      else expectSyncAnswer(created, order, first, at);
      await expectPolled(order, first, at);
      const deferred = first.status === 'PENDING';
      if (deferred) {
        clock.advance(4_999);
        await expectPolled(order, first, at);
        clock.advance(1);
      }
      await expectPolled(order, later, deferred ? at + 5_000 : at);
    });
  });

  describe('before any rule: IBAN checksum and totals', () => {
    it.each([
      ['debtor', { debtor: { name: 'Alice Debtor', iban: IBANS.badChecksum } }],
      ['second creditor', {}],
    ])('a %s IBAN failing mod-97 gives 200 FAILED BUS_INVALID_ACCOUNT, over metadata and the cents table', async (which, overrides) => {
      const order = withScenario('PENDING:5:SUCCESS', overrides, '7.03');
      if (which === 'second creditor') {
        order.creditors = [
          { name: 'Bob', iban: IBANS.creditor, bank_code: 'BNPAFRPP', amount: '3.00', reason: 'part 1' },
          { name: 'Carol', iban: 'GB00WEST12345698765432', bank_code: 'WESTGB22', amount: '4.03', reason: 'part 2' },
        ];
      }
      const at = clock.now();
      expectSyncAnswer(await create(order), order, { status: 'FAILED', reason: 'BUS_INVALID_ACCOUNT' }, at);
      clock.advance(10_000);
      await expectPolled(order, { status: 'FAILED', reason: 'BUS_INVALID_ACCOUNT' }, at);
    });

    it('total_amount different from the sum of the creditors is 400 body_invalid, even with a bad IBAN, and stores nothing', async () => {
      const order = sampleOrder({ total_amount: '100.01', debtor: { name: 'Alice', iban: IBANS.badChecksum } }, '100.00');
      const response = await create(order);
      const problem = expectProblem(response, 400, 'body_invalid');
      expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/total_amount' })]));
      expect(bank.book.find(demo.client_id, order.reference as string)).toBeUndefined();
    });

    it.each([
      ['0.30', ['0.10', '0.20']],
      ['0.3', ['0.1', '0.2']],
      ['1', ['0.50', '0.5']],
      ['100.00', ['33.33', '33.33', '33.34']],
      ['123456789012345.67', ['123456789012345.66', '0.01']],
    ])('total %s equals the sum of %j exactly (no floating point)', async (total, amounts) => {
      const order = sampleOrder({
        total_amount: total,
        creditors: amounts.map((amount, index) => ({ name: `Creditor ${index}`, iban: IBANS.creditor, bank_code: 'BNPAFRPP', amount, reason: 'part' })),
      });
      expect((await create(order)).status).toBe(200);
    });

    it.each([
      ['123456789012345.68', ['123456789012345.66', '0.01']],
      ['0.31', ['0.1', '0.2']],
    ])('total %s against %j is off by one cent: 400 body_invalid', async (total, amounts) => {
      const order = sampleOrder({
        total_amount: total,
        creditors: amounts.map((amount, index) => ({ name: `Creditor ${index}`, iban: IBANS.creditor, bank_code: 'BNPAFRPP', amount, reason: 'part' })),
      });
      const problem: Problem = expectProblem(await create(order), 400, 'body_invalid');
      expect(problem.errors?.map((error) => error.path)).toContain('/total_amount');
    });
  });

  describe('a final status never changes', () => {
    it('the state machine refuses any change from SUCCESS or FAILED, and PENDING to PENDING', () => {
      const now = clock.now();
      expect(() => transition('SUCCESS', { status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS' }, now)).toThrow(FinalStatusImmutableError);
      expect(() => transition('SUCCESS', { status: 'SUCCESS' }, now)).toThrow(FinalStatusImmutableError);
      expect(() => transition('SUCCESS', { status: 'PENDING' }, now)).toThrow(FinalStatusImmutableError);
      expect(() => transition('FAILED', { status: 'SUCCESS' }, now)).toThrow(FinalStatusImmutableError);
      expect(() => transition('FAILED', { status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED' }, now)).toThrow(FinalStatusImmutableError);
      expect(() => transition('PENDING', { status: 'PENDING' }, now)).toThrow(InvalidTransitionError);
      expect(transition('PENDING', { status: 'SUCCESS' }, now)).toMatchObject({ from: 'PENDING', to: 'SUCCESS' });
    });

    it('a settled order keeps its final status and its two history rows, however often it is polled or settled again', async () => {
      const order = withScenario('PENDING:1:FAILED:BUS_ACCOUNT_BLOCKED');
      const at = clock.now();
      expect((await create(order)).status).toBe(200);
      clock.advance(1_000);
      const first = await expectPolled(order, { status: 'FAILED', reason: 'BUS_ACCOUNT_BLOCKED' }, at + 1_000);
      clock.advance(60_000);
      const record = bank.book.find(demo.client_id, order.reference as string);
      if (!record) throw new Error('order not stored');
      expect(bank.book.settleIfDue(record)).toEqual(record);
      bank.book.settleAllDue();
      const again = await expectPolled(order, { status: 'FAILED', reason: 'BUS_ACCOUNT_BLOCKED' });
      expect(again).toEqual(first);
      expect(history(order)).toEqual([
        { from: null, to: 'PENDING', reasonCode: null },
        { from: 'PENDING', to: 'FAILED', reasonCode: 'BUS_ACCOUNT_BLOCKED' },
      ]);
    });

    it('the store refuses a stale write on a final order (status = from guard)', async () => {
      const order = withScenario('SUCCESS');
      expect((await create(order)).status).toBe(200);
      const change = { from: 'PENDING' as const, to: 'FAILED' as const, reasonCode: 'BUS_NOT_SPECIFIED' as const, reasonMessage: 'x', at: clock.now() };
      expect(() => new OrderRepository(bank.db).applyChange(demo.client_id, order.reference as string, change, 'test')).toThrow();
      await expectPolled(order, { status: 'SUCCESS' });
      expect(history(order)).toEqual([{ from: null, to: 'SUCCESS', reasonCode: null }]);
    });
  });
});

describe('rules file (RULES_FILE, schemas/rules.schema.json)', () => {
  const clock = new ManualClock();
  let bank: Bank;
  const blockedDebtor = makeIban('DE', '370400440532013999');
  const regulatedCreditor = makeIban('FR', '20041010050500013M02999');
  const rules = [
    { name: 'exact-amount', match: { amount: '42.42' }, outcome: 'FAILED:BUS_AMOUNT_LIMIT_EXCEEDED' },
    { name: 'amount-range', match: { amount: { min: '1000.00', max: '1999.99' } }, outcome: 'PENDING:3:SUCCESS' },
    { name: 'above', match: { amount: { min: '50000.00' } }, outcome: 'FAILED:BUS_AMOUNT_LIMIT_EXCEEDED' },
    { name: 'currency', match: { currency: 'USD' }, outcome: 'FAILED:BUS_INVALID_CURRENCY' },
    { name: 'debtor', match: { debtor_iban: blockedDebtor }, outcome: 'FAILED:BUS_ACCOUNT_BLOCKED' },
    { name: 'creditor', match: { creditor_iban: regulatedCreditor }, outcome: 'ASYNC:2:FAILED:BUS_REGULATORY' },
    { name: 'reference', match: { reference_pattern: '^MANDATE-' }, outcome: 'FAILED:BUS_MANDATE_INVALID' },
    { name: 'type', match: { type: 'CREDIT_TRANSFER' }, outcome: 'NO_CALLBACK' },
    { name: 'combined', match: { currency: 'GBP', amount: { min: '5.00' } }, outcome: 'DUPLICATE_CALLBACK' },
  ];

  function writeRules(content: unknown): string {
    const file = path.join(tempDir('sandbox-bank-rules-'), 'rules.json');
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  }

  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed', rulesFile: writeRules({ rules }) }, { clock });
  });
  afterAll(() => bank.close());

  const client = () => new DemoClient(bank);

  async function outcome(order: Order): Promise<{ code: number; status?: string; reason?: string }> {
    const response = await client().create(order);
    if (response.status === 202) {
      expectAsyncAnswer(response);
      return { code: 202 };
    }
    expect(response.status).toBe(200);
    return { code: 200, status: response.body.status, reason: response.body.reason_code };
  }

  async function polled(order: Order) {
    const response = await client().status(order.reference as string);
    expect(response.status).toBe(200);
    return { status: response.body.status as string, reasonCode: response.body.reasonCode as string | undefined };
  }

  it('amount, exact: 42.42 matches, 42.43 falls through to the cents table', async () => {
    const matched = sampleOrder({}, '42.42');
    expect(await outcome(matched)).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_AMOUNT_LIMIT_EXCEEDED' });
    expect(await polled(matched)).toEqual({ status: 'FAILED', reasonCode: 'BUS_AMOUNT_LIMIT_EXCEEDED' });
    expect(await outcome(sampleOrder({}, '42.43'))).toEqual({ code: 200, status: 'SUCCESS' });
    expect(await outcome(sampleOrder({}, '42.4'))).toEqual({ code: 200, status: 'SUCCESS' });
  });

  it('amount, range: both bounds are inclusive; the rule wins over the cents table', async () => {
    for (const amount of ['1000.00', '1000.01', '1999.99', '1500']) {
      const order = sampleOrder({}, amount);
      expect([amount, await outcome(order)]).toEqual([amount, { code: 200, status: 'PENDING' }]);
    }
    expect(await outcome(sampleOrder({}, '999.99'))).toEqual({ code: 200, status: 'SUCCESS' });
    expect(await outcome(sampleOrder({}, '2000.01'))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_INSUFFICIENT_FUNDS' });
    const order = sampleOrder({}, '1000.01');
    expect(await outcome(order)).toEqual({ code: 200, status: 'PENDING' });
    clock.advance(2_999);
    expect(await polled(order)).toEqual({ status: 'PENDING' });
    clock.advance(1);
    expect(await polled(order)).toEqual({ status: 'SUCCESS' });
  });

  it('amount, open range (min only)', async () => {
    expect(await outcome(sampleOrder({}, '50000.00'))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_AMOUNT_LIMIT_EXCEEDED' });
    expect(await outcome(sampleOrder({}, '49999.99'))).toEqual({ code: 200, status: 'SUCCESS' });
  });

  it('currency', async () => {
    expect(await outcome(sampleOrder({ currency: 'USD' }))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_INVALID_CURRENCY' });
    expect(await outcome(sampleOrder({ currency: 'CHF' }))).toEqual({ code: 200, status: 'SUCCESS' });
  });

  it('debtor_iban matches the debtor only', async () => {
    expect(await outcome(sampleOrder({ debtor: { name: 'Blocked', iban: blockedDebtor } }))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_ACCOUNT_BLOCKED' });
    const asCreditor = sampleOrder({ creditors: [{ name: 'C', iban: blockedDebtor, bank_code: 'COBADEFF', amount: '100.00', reason: 'r' }] });
    expect(await outcome(asCreditor)).toEqual({ code: 200, status: 'SUCCESS' });
  });

  it('creditor_iban matches any creditor; its ASYNC outcome settles after the delay', async () => {
    const order = sampleOrder({
      total_amount: '10.00',
      creditors: [
        { name: 'First', iban: IBANS.creditor, bank_code: 'BNPAFRPP', amount: '4.00', reason: 'r' },
        { name: 'Second', iban: regulatedCreditor, bank_code: 'BNPAFRPP', amount: '6.00', reason: 'r' },
      ],
    });
    expect(await outcome(order)).toEqual({ code: 202 });
    expect(await polled(order)).toEqual({ status: 'PENDING' });
    clock.advance(2_000);
    expect(await polled(order)).toEqual({ status: 'FAILED', reasonCode: 'BUS_REGULATORY' });
  });

  it('reference_pattern', async () => {
    expect(await outcome(sampleOrder({ reference: `MANDATE-${Date.now()}` }))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_MANDATE_INVALID' });
    expect(await outcome(sampleOrder({ reference: `X-MANDATE-${Date.now()}` }))).toEqual({ code: 200, status: 'SUCCESS' });
  });

  it('type: CREDIT_TRANSFER -> NO_CALLBACK (202, stays PENDING)', async () => {
    const order = sampleOrder({ type: 'CREDIT_TRANSFER' });
    expect(await outcome(order)).toEqual({ code: 202 });
    clock.advance(3_600_000);
    expect(await polled(order)).toEqual({ status: 'PENDING' });
  });

  it('every match field of a rule must hold (currency and amount)', async () => {
    const order = sampleOrder({ currency: 'GBP' }, '10.00');
    expect(await outcome(order)).toEqual({ code: 202 });
    expect(await polled(order)).toEqual({ status: 'SUCCESS' });
    expect(await outcome(sampleOrder({ currency: 'GBP' }, '1.00'))).toEqual({ code: 200, status: 'SUCCESS' });
  });

  it('first match wins', async () => {
    const reference = `MANDATE-${Date.now()}-first`;
    expect(await outcome(sampleOrder({ reference, currency: 'USD' }, '42.42'))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_AMOUNT_LIMIT_EXCEEDED' });
    expect(await outcome(sampleOrder({ reference: `${reference}-2`, currency: 'USD' }))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_INVALID_CURRENCY' });
    expect(await outcome(sampleOrder({ reference: `${reference}-3`, type: 'CREDIT_TRANSFER' }))).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_MANDATE_INVALID' });
  });

  it('metadata.sandbox_scenario wins over the rules; the IBAN checksum wins over both', async () => {
    expect(await outcome(withScenario('SUCCESS', {}, '42.42'))).toEqual({ code: 200, status: 'SUCCESS' });
    expect(await outcome(withScenario('SUCCESS', { debtor: { name: 'Bad', iban: IBANS.badChecksum } }, '42.42'))).toEqual({
      code: 200,
      status: 'FAILED',
      reason: 'BUS_INVALID_ACCOUNT',
    });
  });

  it('an order no rule matches falls back to the default cents table', async () => {
    const order = sampleOrder({}, '7.02');
    expect(await outcome(order)).toEqual({ code: 200, status: 'FAILED', reason: 'BUS_ACCOUNT_CLOSED' });
    expect(await polled(order)).toEqual({ status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED' });
  });

  describe('an invalid rules file makes createBank throw, naming the file', () => {
    it.each([
      ['not JSON', '{"rules": ['],
      ['an unknown match field', { rules: [{ match: { iban: 'DE89370400440532013000' }, outcome: 'SUCCESS' }] }],
      ['an empty match', { rules: [{ match: {}, outcome: 'SUCCESS' }] }],
      ['a bad amount', { rules: [{ match: { amount: '1.001' }, outcome: 'SUCCESS' }] }],
      ['a missing outcome', { rules: [{ match: { currency: 'EUR' } }] }],
      ['an unknown top-level member', { rules: [], extra: true }],
      ['an unknown outcome', { rules: [{ name: 'boom', match: { currency: 'EUR' }, outcome: 'EXPLODE' }] }],
      ['an unknown reason code', { rules: [{ name: 'boom', match: { currency: 'EUR' }, outcome: 'FAILED:BUS_NOPE' }] }],
      ['a bad regular expression', { rules: [{ name: 'boom', match: { reference_pattern: '(' }, outcome: 'SUCCESS' }] }],
    ])('%s', async (_label, content) => {
      const file = writeRules(content);
      await expect(startBank({ rulesFile: file })).rejects.toThrow(file);
    });

    it('a missing file', async () => {
      const file = path.join(tempDir('sandbox-bank-rules-'), 'absent.json');
      await expect(startBank({ rulesFile: file })).rejects.toThrow(file);
    });

    it('a bad outcome names the rule', async () => {
      const file = writeRules({ rules: [{ name: 'my-broken-rule', match: { currency: 'EUR' }, outcome: 'PENDING:x:SUCCESS' }] });
      await expect(startBank({ rulesFile: file })).rejects.toThrow('my-broken-rule');
    });
  });
});
