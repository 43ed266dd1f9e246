// The order state machine: every status change goes through here. Final statuses never change.
import { ReasonCode, reasonMessage } from '../../wire/reason-codes';

export type OrderStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

export type FinalOutcome = { status: 'SUCCESS' } | { status: 'FAILED'; reasonCode: ReasonCode };

export type TargetStatus = { status: 'PENDING' } | FinalOutcome;

export interface StatusChange {
  from: OrderStatus | null;
  to: OrderStatus;
  reasonCode: ReasonCode | null;
  reasonMessage: string | null;
  at: number;
}

export function isFinal(status: OrderStatus | null): boolean {
  return status === 'SUCCESS' || status === 'FAILED';
}

export class FinalStatusImmutableError extends Error {
  constructor(readonly current: OrderStatus, readonly attempted: OrderStatus) {
    super(`order is final (${current}); refusing to change it to ${attempted}`);
  }
}

export class InvalidTransitionError extends Error {}

/** Computes the change from `current` to `target`, or throws when the machine forbids it. */
export function transition(current: OrderStatus | null, target: TargetStatus, at: number): StatusChange {
  if (current !== null && isFinal(current)) throw new FinalStatusImmutableError(current, target.status);
  if (current === 'PENDING' && target.status === 'PENDING') {
    throw new InvalidTransitionError('order is already PENDING');
  }
  const reasonCode = target.status === 'FAILED' ? target.reasonCode : null;
  return {
    from: current,
    to: target.status,
    reasonCode,
    reasonMessage: reasonCode ? reasonMessage(reasonCode) : null,
    at,
  };
}
