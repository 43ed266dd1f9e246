// A mutation breaks a draft in one way; each one alone makes the request invalid, whatever else is applied.
import { Draft } from './requests';
import { FuzzTarget } from './types';

export type Mutation = { name: string; apply: (draft: Draft, t: FuzzTarget) => void };

export function expectOnly(draft: Draft, ...codes: string[]) {
  draft.expect = codes;
}
