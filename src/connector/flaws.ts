// Deliberate flaws: switches that break ONE behaviour of this Connector each, so that the Bank's conformance
// suite (docs of /sandbox/conformance-runs) can be shown to catch them. Never set one in a real deployment.
// What it shows a Connector team: nothing to copy. Every use site is a one-line deviation marked `FLAW <name>`
// right after the correct code, so the correct path reads first; delete this file and those lines when copying.

/** Each flaw: what it breaks, and the conformance cases that must FAIL because of it (conformance.md section 3). */
export const FLAWS = {
  accepts_bad_signature: {
    breaks: 'a signature that does not verify over the base (its key found, its alg valid) is accepted; a missing signature, alg none and an unknown kid are still refused',
    cases: ['pull.bad_signature_rejected', 'unit.bad_signature_rejected', 'batch.bad_signature_rejected'],
  },
  checks_only_digest: {
    breaks: "a callback is checked against its Content-Digest but its signature is not verified over the base (its key found, its alg valid); a body that does not match its Content-Digest, a missing signature, alg none, an unknown kid and any bad pull signature are still refused",
    cases: ['unit.bad_signature_rejected', 'batch.bad_signature_rejected'],
  },
  accepts_alg_none: {
    breaks: 'a JWS whose header says alg "none" is accepted without a signature',
    cases: ['unit.alg_none_rejected'],
  },
  ignores_limit: {
    breaks: 'the pull answers every matching order, ignoring limit',
    cases: ['pull.page_respects_limit'],
  },
  exclusive_offset: {
    breaks: "the pull treats offset as exclusive (initiated_at > offset): orders at exactly the offset's instant never come back, so paging loses those that share the cursor's instant",
    cases: ['pull.cursor_is_a_minimum'],
  },
  accepts_stale_timestamp: {
    breaks: 'an X-Timestamp outside the window is accepted',
    cases: ['pull.stale_timestamp_rejected', 'unit.stale_timestamp_rejected'],
  },
  accepts_replayed_nonce: {
    breaks: 'a nonce already seen is accepted again',
    cases: ['pull.replayed_nonce_rejected', 'unit.replayed_nonce_rejected'],
  },
  applies_partial_batch: {
    breaks: 'a batch callback with invalid items applies its valid items and answers 200',
    cases: ['batch.invalid_item_rejects_whole_batch'],
  },
  no_jwks_refetch: {
    breaks: 'an unknown kid never triggers a JWKS refetch',
    cases: ['unit.rotated_key_accepted'],
  },
  accepts_failed_without_reason: {
    // The batch case's invalid item is a FAILED without reasonCode: accepting it lets that batch through whole.
    breaks: 'a FAILED status without reasonCode or reasonMessage is accepted in a unit or batch callback',
    cases: ['unit.failed_without_reason_rejected', 'batch.invalid_item_rejects_whole_batch'],
  },
  ignores_retry_after: {
    breaks: "reverse polling ignores a 429's Retry-After and polls again on its own schedule",
    cases: ['client.honours_retry_after'],
  },
  polls_after_404: {
    breaks: 'reverse polling keeps polling an order after the Bank answered 404',
    cases: ['client.stops_after_404'],
  },
} as const satisfies Record<string, { breaks: string; cases: readonly string[] }>;

export type Flaw = keyof typeof FLAWS;

export const FLAW_NAMES = Object.keys(FLAWS) as Flaw[];

export function isFlaw(name: string): name is Flaw {
  return Object.prototype.hasOwnProperty.call(FLAWS, name);
}

/** CONNECTOR_FLAWS: comma-separated flaw names (blank: none); an unknown name throws, naming the valid ones. */
export function parseFlaws(raw: string): Flaw[] {
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !isFlaw(name));
  if (unknown.length > 0) throw new Error(`unknown flaw ${unknown.map((name) => `"${name}"`).join(', ')}; valid: ${FLAW_NAMES.join(', ')}`);
  return [...new Set(names as Flaw[])];
}

/** The flaws a Connector runs with; `has()` is asked at each deviation. */
export class Flaws {
  static readonly NONE = new Flaws([]);
  private readonly enabled: ReadonlySet<Flaw>;

  /** Throws on a name that is not a flaw (a config object built by hand is checked like the environment). */
  constructor(list: readonly string[]) {
    this.enabled = new Set(parseFlaws(list.join(',')));
  }

  has(flaw: Flaw): boolean {
    return this.enabled.has(flaw);
  }

  get list(): Flaw[] {
    return FLAW_NAMES.filter((flaw) => this.enabled.has(flaw));
  }
}
