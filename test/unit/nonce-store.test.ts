// The nonce store (profile section 2, replay): a nonce is spent once per client until its use expires; an expired
// one may be spent again and is then seen anew; the earlier use's time is what explanations show.
import { NonceRepository } from '../../src/bank/store/nonces';
import { freshStore } from '../helpers/store';

describe('nonce store', () => {
  const store = freshStore((db) => new NonceRepository(db));
  let nonces: NonceRepository;
  beforeEach(() => (nonces = store.repo()));

  it('spends a nonce once for a client, and separately for another', () => {
    expect(nonces.spend('demo', 'n-1', 1_000, 601_000)).toBe(true);
    expect(nonces.spend('demo', 'n-1', 2_000, 602_000)).toBe(false);
    expect(nonces.spend('other', 'n-1', 2_000, 602_000)).toBe(true);
    expect(nonces.firstSeenAt('demo', 'n-1')).toBe(1_000);
    expect(nonces.firstSeenAt('demo', 'n-2')).toBeNull();
  });

  it('refuses a nonce through the last millisecond of its use (the window is inclusive), then spends it anew', () => {
    nonces.spend('demo', 'n-1', 1_000, 601_000);
    expect(nonces.spend('demo', 'n-1', 601_000, 1_201_000)).toBe(false);
    expect(nonces.firstSeenAt('demo', 'n-1')).toBe(1_000);
    expect(nonces.spend('demo', 'n-1', 601_001, 1_201_001)).toBe(true);
    expect(nonces.firstSeenAt('demo', 'n-1')).toBe(601_001);
    expect(nonces.spend('demo', 'n-1', 601_002, 1_201_002)).toBe(false);
  });

  it('prunes the expired uses only', async () => {
    nonces.spend('demo', 'n-1', 1_000, 5_000);
    nonces.spend('demo', 'n-2', 1_000, 9_000);
    expect(await nonces.pruneInChunks(5_000)).toBe(0);
    expect(await nonces.pruneInChunks(5_001)).toBe(1);
    expect(nonces.firstSeenAt('demo', 'n-1')).toBeNull();
    expect(nonces.firstSeenAt('demo', 'n-2')).toBe(1_000);
  });
});
