// The order state machine (contract section 3, profile section 8): final statuses never change, PENDING is entered
// once, and every change carries the reason of a FAILED outcome from the nomenclature.
import {
  FinalStatusImmutableError,
  InvalidTransitionError,
  isFinal,
  OrderStatus,
  TargetStatus,
  transition,
} from '../../src/bank/domain/order-state';
import { REASON_CODES, ReasonCode } from '../../src/wire/reason-codes';

const AT = Date.parse('2026-11-22T10:15:30.123Z');

describe('isFinal', () => {
  it.each<[OrderStatus | null, boolean]>([
    ['SUCCESS', true],
    ['FAILED', true],
    ['PENDING', false],
    [null, false],
  ])('%s -> %s', (status, expected) => {
    expect(isFinal(status)).toBe(expected);
  });
});

describe('transition: allowed', () => {
  it('(new) -> PENDING: no reason', () => {
    expect(transition(null, { status: 'PENDING' }, AT)).toEqual({ from: null, to: 'PENDING', reasonCode: null, reasonMessage: null, at: AT });
  });

  it('(new) -> SUCCESS: no reason', () => {
    expect(transition(null, { status: 'SUCCESS' }, AT)).toEqual({ from: null, to: 'SUCCESS', reasonCode: null, reasonMessage: null, at: AT });
  });

  it('(new) -> FAILED: the reason code and its nomenclature message', () => {
    expect(transition(null, { status: 'FAILED', reasonCode: 'BUS_ACCOUNT_CLOSED' }, AT)).toEqual({
      from: null,
      to: 'FAILED',
      reasonCode: 'BUS_ACCOUNT_CLOSED',
      reasonMessage: 'Account closed',
      at: AT,
    });
  });

  it('PENDING -> SUCCESS', () => {
    expect(transition('PENDING', { status: 'SUCCESS' }, AT + 5000)).toEqual({ from: 'PENDING', to: 'SUCCESS', reasonCode: null, reasonMessage: null, at: AT + 5000 });
  });

  it('PENDING -> FAILED', () => {
    expect(transition('PENDING', { status: 'FAILED', reasonCode: 'BUS_REFUSED_BY_DEBTOR' }, AT)).toEqual({
      from: 'PENDING',
      to: 'FAILED',
      reasonCode: 'BUS_REFUSED_BY_DEBTOR',
      reasonMessage: 'Refused by the debtor',
      at: AT,
    });
  });

  it.each(Object.keys(REASON_CODES) as ReasonCode[])('FAILED with %s carries that code and its message', (code) => {
    const change = transition('PENDING', { status: 'FAILED', reasonCode: code }, AT);
    expect([change.reasonCode, change.reasonMessage]).toEqual([code, REASON_CODES[code].message]);
  });

  it('keeps `at` as given (no clock read)', () => {
    expect(transition(null, { status: 'SUCCESS' }, 0).at).toBe(0);
  });
});

describe('transition: refused', () => {
  it('PENDING -> PENDING is an InvalidTransitionError', () => {
    expect(() => transition('PENDING', { status: 'PENDING' }, AT)).toThrow(new InvalidTransitionError('order is already PENDING'));
    expect(() => transition('PENDING', { status: 'PENDING' }, AT)).toThrow(InvalidTransitionError);
  });

  const finals: OrderStatus[] = ['SUCCESS', 'FAILED'];
  const targets: TargetStatus[] = [{ status: 'PENDING' }, { status: 'SUCCESS' }, { status: 'FAILED', reasonCode: 'BUS_INSUFFICIENT_FUNDS' }];
  for (const current of finals) {
    for (const target of targets) {
      it(`${current} -> ${target.status} is a FinalStatusImmutableError naming both`, () => {
        let thrown: unknown;
        try {
          transition(current, target, AT);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(FinalStatusImmutableError);
        expect(thrown).not.toBeInstanceOf(InvalidTransitionError);
        const error = thrown as FinalStatusImmutableError;
        expect([error.current, error.attempted, error.message]).toEqual([
          current,
          target.status,
          `order is final (${current}); refusing to change it to ${target.status}`,
        ]);
      });
    }
  }
});

describe('transition: the whole table', () => {
  const currents: (OrderStatus | null)[] = [null, 'PENDING', 'SUCCESS', 'FAILED'];
  const targets: TargetStatus[] = [{ status: 'PENDING' }, { status: 'SUCCESS' }, { status: 'FAILED', reasonCode: 'BUS_NOT_SPECIFIED' }];
  const outcome = (current: OrderStatus | null, target: TargetStatus): string => {
    try {
      transition(current, target, AT);
      return 'allowed';
    } catch (error) {
      return (error as Error).constructor.name;
    }
  };

  it('allows exactly (new)->any and PENDING->final; refuses PENDING->PENDING and anything from a final', () => {
    const table = Object.fromEntries(currents.flatMap((current) => targets.map((target) => [`${current ?? 'new'}->${target.status}`, outcome(current, target)])));
    expect(table).toEqual({
      'new->PENDING': 'allowed',
      'new->SUCCESS': 'allowed',
      'new->FAILED': 'allowed',
      'PENDING->PENDING': 'InvalidTransitionError',
      'PENDING->SUCCESS': 'allowed',
      'PENDING->FAILED': 'allowed',
      'SUCCESS->PENDING': 'FinalStatusImmutableError',
      'SUCCESS->SUCCESS': 'FinalStatusImmutableError',
      'SUCCESS->FAILED': 'FinalStatusImmutableError',
      'FAILED->PENDING': 'FinalStatusImmutableError',
      'FAILED->SUCCESS': 'FinalStatusImmutableError',
      'FAILED->FAILED': 'FinalStatusImmutableError',
    });
  });
});
