// Group commit on the wire (store/group-commit.ts): requests that arrive together share one commit, and none is
// answered before it. Checked through a second, read-only connection, which sees only what is committed.
import Database from 'better-sqlite3';
import { Bank } from '../../src/bank/bank';
import { databasePath } from '../../src/wire/sqlite';
import { demo, DemoClient, newNonce, sampleOrder, startBank, uniqueReference } from '../helpers/bank';
import { postCreate, signedCreateHeaders } from '../helpers/wire';

let bank: Bank;
let token: string;
let committed: Database.Database;

beforeAll(async () => {
  bank = await startBank({ sandboxMode: 'relaxed' });
  token = await new DemoClient(bank).token();
  committed = new Database(databasePath(bank.config.dataDir), { readonly: true });
});
afterAll(() => {
  committed.close();
  bank.close();
});

const orderCommitted = (reference: string): boolean =>
  committed.prepare('SELECT 1 FROM orders WHERE client_id = ? AND reference = ?').pluck().get(demo.client_id, reference) !== undefined;
const nonceCommitted = (nonce: string): boolean =>
  committed.prepare('SELECT 1 FROM nonces WHERE client_id = ? AND nonce = ?').pluck().get(demo.client_id, nonce) !== undefined;

interface Sent {
  kind: 'valid' | 'invalid-body' | 'duplicate';
  reference: string;
  nonce: string;
}

describe('group commit', () => {
  it('answers each of many concurrent creates, accepted or refused, only once its writes are committed', async () => {
    const duplicated = uniqueReference('GC-DUP');
    const first = signedCreateHeaders(bank, token, JSON.stringify(sampleOrder({ reference: duplicated })));
    expect((await postCreate(bank, first, JSON.stringify(sampleOrder({ reference: duplicated })))).status).toBe(200);

    const sends: Sent[] = [];
    for (let index = 0; index < 24; index += 1) {
      const kind: Sent['kind'] = index % 6 === 1 ? 'invalid-body' : index % 6 === 2 ? 'duplicate' : 'valid';
      const reference = kind === 'duplicate' ? duplicated : uniqueReference('GC');
      sends.push({ kind, reference, nonce: newNonce() });
    }
    const seen: string[] = [];
    await Promise.all(sends.map(async (send) => {
      const order = sampleOrder({ reference: send.reference });
      if (send.kind === 'invalid-body') delete order.currency;
      const body = JSON.stringify(order);
      const answer = await postCreate(bank, signedCreateHeaders(bank, token, body, { nonce: send.nonce }), body);
      // Checked the moment the answer arrives, before any other request can be answered.
      expect(nonceCommitted(send.nonce)).toBe(true);
      if (send.kind === 'valid') {
        expect(answer.status).toBe(200);
        expect(orderCommitted(send.reference)).toBe(true);
      } else if (send.kind === 'invalid-body') {
        expect(answer.status).toBe(400);
        expect(orderCommitted(send.reference)).toBe(false);
      } else {
        expect(answer.status).toBe(409);
      }
      seen.push(send.kind);
    }));
    expect(seen).toHaveLength(24);
  });

  it('a nonce sent twice at once is spent once: the second request is refused', async () => {
    const nonce = newNonce();
    const bodies = [0, 1].map(() => JSON.stringify(sampleOrder({ reference: uniqueReference('GC-NONCE') })));
    const answers = await Promise.all(bodies.map((body) => postCreate(bank, signedCreateHeaders(bank, token, body, { nonce }), body)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    expect(nonceCommitted(nonce)).toBe(true);
  });
});
