// Housekeeping deletes expired rows a chunk at a time and lets the event loop run between chunks (store/chunked-delete.ts):
// one DELETE of ~140,000 expired nonces held every request, /readyz included, for over a second.
import { deleteInChunks, PRUNE_CHUNK_ROWS } from '../../src/bank/store/chunked-delete';
import { NonceRepository } from '../../src/bank/store/nonces';
import { Bank } from '../../src/bank/bank';
import { startBank } from '../helpers/bank';
import { freshStore } from '../helpers/store';

describe('deleteInChunks', () => {
  it('runs chunks until one deletes fewer than the limit, yielding between them', async () => {
    let left = 25;
    const chunks: number[] = [];
    let turns = 0;
    const tick = () => setImmediate(() => ((turns += 1), turns < 100 && tick()));
    tick();
    const seenTurns: number[] = [];
    const total = await deleteInChunks((limit) => {
      seenTurns.push(turns);
      const deleted = Math.min(limit, left);
      left -= deleted;
      chunks.push(deleted);
      return deleted;
    }, { limit: 10 });
    expect(total).toBe(25);
    expect(chunks).toEqual([10, 10, 5]);
    // Each chunk after the first ran in a later turn of the event loop than the one before it.
    expect(seenTurns[1]).toBeGreaterThan(seenTurns[0]);
    expect(seenTurns[2]).toBeGreaterThan(seenTurns[1]);
  });

  it('stops when the store has closed in between', async () => {
    let calls = 0;
    const total = await deleteInChunks(() => ((calls += 1), 10), { limit: 10, stillOpen: () => calls < 2 });
    expect(calls).toBe(2);
    expect(total).toBe(20);
  });
});

describe('nonce store: pruneInChunks', () => {
  const store = freshStore((db) => new NonceRepository(db));

  it('deletes every expired use (expires_at < now) in several chunks and keeps the rest', async () => {
    const nonces = store.repo();
    for (let index = 0; index < 25; index += 1) nonces.spend('demo', `old-${index}`, 1_000, 2_000 + index);
    nonces.spend('demo', 'boundary', 1_000, 5_000);
    nonces.spend('demo', 'fresh', 1_000, 9_000);
    expect(await nonces.pruneInChunks(5_000, 10)).toBe(25);
    const left = store.db().prepare('SELECT nonce FROM nonces ORDER BY nonce').pluck().all();
    expect(left).toEqual(['boundary', 'fresh']);
  });
});

describe('housekeeping', () => {
  let bank: Bank;
  beforeAll(async () => {
    bank = await startBank({ sandboxMode: 'relaxed' });
  });
  afterAll(() => bank.close());

  const expired = PRUNE_CHUNK_ROWS * 2 + 500;
  it.each([
    [
      'nonces',
      `INSERT INTO nonces (client_id, nonce, expires_at, first_seen_at) SELECT 'demo', 'hk-' || i, 1000 + i, 1000 FROM n`,
      "SELECT COUNT(*) FROM nonces WHERE nonce LIKE 'hk-%'",
    ],
    [
      'idempotency records',
      `INSERT INTO idempotency_records (client_id, idem_key, fingerprint, state, status_code, body, created_at, expires_at)
       SELECT 'demo-connector', 'hk-' || i, 'f', 'done', 200, x'7b7d', 1000, 1000 + i FROM n`,
      "SELECT COUNT(*) FROM idempotency_records WHERE idem_key LIKE 'hk-%'",
    ],
  ])('serves the event loop between chunks of expired %s', async (_rows, insertFromN, countSql) => {
    bank.db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) ${insertFromN}`).run(expired);
    const count = () => bank.db.prepare(countSql).pluck().get() as number;
    // Scheduled before housekeeping starts: it runs at the first turn the prune gives back, before its last chunk.
    const leftWhenServed = new Promise<number>((resolve) => setImmediate(() => resolve(count())));
    await bank.housekeeping();
    expect(await leftWhenServed).toBeGreaterThan(0);
    expect(count()).toBe(0);
  });
});
