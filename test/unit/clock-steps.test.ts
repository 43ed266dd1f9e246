// The wall clock stepped back (an NTP step, a VM resumed): budgets and waits counted from a time that now lies in
// the future end, rather than lasting the length of the step too (wire/clock.ts withinLast). Found with
// libfaketime; the rate limiter's case is test/unit/rate-limiter.test.ts.
import { RemoteJwks } from '../../src/bank/security/remote-jwks';
import { BankJwks } from '../../src/connector/bank-jwks';
import { connectorLogger } from '../../src/connector/connector';
import { withinLast } from '../../src/wire/clock';
import { generateSigningJwk, publicOnly } from '../../src/wire/keys';
import { createLogger } from '../../src/wire/logger';

const T = Date.parse('2026-11-29T20:00:00Z');
const TEN_MINUTES = 600_000;

describe('withinLast', () => {
  it('is the window before now, and a time after now is outside it', () => {
    expect(withinLast(60_000, T - 59_999, T)).toBe(true);
    expect(withinLast(60_000, T, T)).toBe(true);
    expect(withinLast(60_000, T - 60_000, T)).toBe(false);
    expect(withinLast(60_000, T + 1, T)).toBe(false);
  });
});

describe('an unknown kid after the wall clock stepped back 10 minutes', () => {
  it("the Bank refetches a jwks_uri client's keys for a rotated kid instead of waiting out the step", async () => {
    const [first, rotated] = [publicOnly(await generateSigningJwk()), publicOnly(await generateSigningJwk())];
    const state = { keys: [first], fetches: 0, now: T };
    const jwks = new RemoteJwks('https://acme.example/jwks', async () => {
      state.fetches += 1;
      return { jwks: { keys: state.keys }, maxAgeS: null };
    }, () => state.now, 3600, createLogger('error', true), 'acme');
    await jwks.lookup(first.kid!, 'ES256');
    expect(await jwks.lookup('made-up-kid', 'ES256')).toBeNull();
    expect(state.fetches).toBe(2);
    state.now = T - TEN_MINUTES;
    state.keys = [first, rotated];
    await jwks.lookup('made-up-kid', 'ES256');
    expect(state.fetches).toBe(3);
    expect(await jwks.lookup(rotated.kid!, 'ES256')).not.toBeNull();
  });

  it("the reference Connector refetches the Bank's keys, and refreshes keys it fetched 'in the future'", async () => {
    const [first, rotated] = [publicOnly(await generateSigningJwk()), publicOnly(await generateSigningJwk())];
    const state = { keys: [first], fetches: 0, now: T };
    const jwks = new BankJwks(async () => {
      state.fetches += 1;
      return { keys: state.keys };
    }, () => state.now, connectorLogger('error', true));
    await jwks.keyFor(first.kid!, 'ES256');
    expect(await jwks.keyFor('made-up-kid', 'ES256')).toBeNull();
    expect(state.fetches).toBe(2);
    state.now = T - TEN_MINUTES;
    state.keys = [first, rotated];
    // Keys fetched at a time now in the future are refreshed once, then the rotated kid is found.
    expect(await jwks.keyFor(rotated.kid!, 'ES256')).not.toBeNull();
    expect(await jwks.keyFor(first.kid!, 'ES256')).not.toBeNull();
    expect(state.fetches).toBe(3);
  });
});
