// A run never changes the client's real state in the Bank (conformance.md section 1): the client's orders, their
// history, cursor, idempotency records, status events, callbacks and nonces are the same before and after a whole
// run, apart from the rows of the run's own orders (references CONF-<run>-) and the nonces of the Connector's
// requests about them; DELETE of the run takes those orders and their idempotency records away and leaves the
// real ones. While the run goes on, the Bank's normal pull leaves that client alone.
import request from 'supertest';
import { ConformanceRun } from '../../src/bank/conformance/model';
import { sampleOrder } from '../helpers/bank';
import { drain, waitFor } from '../helpers/outbound';
import { notPassed, runConformance, RunPair, startRunPair } from './helpers';

jest.setTimeout(90_000);

const CLIENT = 'demo-connector';
/**
 * The Bank's own pull starts at the fixture's last five orders (08:13 onward): they become real orders of the
 * client, and the 25 before them stay for the run's callback cases (which never use an order the Bank holds).
 */
const POLL_START = '2026-11-20T08:13:00Z';

let pair: RunPair;
beforeAll(async () => {
  pair = await startRunPair({}, { pollStartOffset: POLL_START });
});
afterAll(() => pair.close());

type Rows = Record<string, unknown>[];
type Snapshot = Record<string, Rows>;

/** The client's rows of every table a run must not change, without those of orders whose reference starts with `prefix`. */
function snapshot(prefix: string): Snapshot {
  const { db } = pair.bank;
  const params = { client: CLIENT, prefix, length: prefix.length };
  const notRun = 'substr(reference, 1, @length) <> @prefix';
  const rows = (sql: string): Rows => db.prepare(sql).all(params) as Rows;
  return {
    orders: rows(`SELECT * FROM orders WHERE client_id = @client AND ${notRun} ORDER BY reference`),
    order_status_history: rows(`SELECT * FROM order_status_history WHERE client_id = @client AND ${notRun} ORDER BY id`),
    poll_cursors: rows('SELECT * FROM poll_cursors WHERE client_id = @client'),
    idempotency_records: rows(`SELECT * FROM idempotency_records WHERE client_id = @client AND (reference IS NULL OR ${notRun}) ORDER BY idem_key`),
    status_events: rows(`SELECT * FROM status_events WHERE client_id = @client AND ${notRun} ORDER BY id`),
    callbacks: rows(
      `SELECT * FROM callbacks WHERE client_id = @client
       AND id NOT IN (SELECT callback_id FROM status_events WHERE client_id = @client AND callback_id IS NOT NULL AND substr(reference, 1, @length) = @prefix)
       ORDER BY id`,
    ),
    pulled_order_rejections: rows('SELECT * FROM pulled_order_rejections WHERE client_id = @client ORDER BY id'),
    create_failures: rows(`SELECT * FROM create_failures WHERE client_id = @client AND ${notRun} ORDER BY reference`),
    nonces: rows('SELECT * FROM nonces WHERE client_id = @client ORDER BY nonce'),
  };
}

/** The X-Nonce of every request the Connector made to the Bank about one of the run's orders (from the journal). */
function runNonces(run: ConformanceRun, prefix: string): Set<string> {
  const { journal } = pair.bank;
  const rows = journal.list({ clientId: CLIENT, direction: 'in', since: Date.parse(run.startedAt) }, 100_000);
  const nonces = rows
    .filter((row) => row.references.some((reference) => reference.startsWith(prefix)))
    .map((row) => journal.entry(row.id)?.request.headers['x-nonce'])
    .filter((nonce): nonce is string => typeof nonce === 'string');
  return new Set(nonces);
}

function withoutNonces(state: Snapshot, nonces: Set<string>): Snapshot {
  return { ...state, nonces: state.nonces.filter((row) => !nonces.has(String(row.nonce))) };
}

/** Rows of the run's own orders, per table. */
function runRows(prefix: string): Record<string, number> {
  const count = (sql: string) => pair.bank.db.prepare(sql).pluck().get({ client: CLIENT, prefix, length: prefix.length }) as number;
  const ofRun = 'client_id = @client AND substr(reference, 1, @length) = @prefix';
  return {
    orders: count(`SELECT COUNT(*) FROM orders WHERE ${ofRun}`),
    order_status_history: count(`SELECT COUNT(*) FROM order_status_history WHERE ${ofRun}`),
    idempotency_records: count(`SELECT COUNT(*) FROM idempotency_records WHERE ${ofRun}`),
    status_events: count(`SELECT COUNT(*) FROM status_events WHERE ${ofRun}`),
    create_failures: count(`SELECT COUNT(*) FROM create_failures WHERE ${ofRun}`),
  };
}

it('a whole run leaves the client\'s real state as it was, and its deletion takes only its own orders', async () => {
  // Real state first: orders created through the normal API (a success, a refusal by the debtor's bank), and a
  // normal pull cycle, with their callbacks delivered.
  for (const amount of ['100.00', '100.01']) {
    const created = await pair.connector.bankClient.createOrder(sampleOrder({}, amount) as never);
    expect(created.httpStatus).toBe(200);
  }
  const [pulled] = await pair.bank.outbound.poller.runCycle();
  expect(pulled).toMatchObject({ clientId: CLIENT, accepted: 5, outcome: 'ok' });
  await drain(pair.bank);
  const before = snapshot('CONF-');
  expect(before.orders).toHaveLength(7);
  expect(before.poll_cursors).toHaveLength(1);
  expect(before.idempotency_records).toHaveLength(2);
  expect(before.nonces.length).toBeGreaterThanOrEqual(2);

  // The run, watched while it goes on: the normal pull skips this client and moves nothing.
  // (Observed first, judged once the run is over: a failed expectation never leaves the run playing on.)
  const playing = runConformance(pair);
  await waitFor(() => pair.bank.conformance.list(CLIENT, null, 1)[0]?.run.state === 'running', 20_000, 'the run to start');
  const pullableDuring = pair.bank.outbound.connectors.pullable().map((connector) => connector.settings.clientId);
  const pulledDuring = (await pair.bank.outbound.poller.runCycle()).map((report) => report.clientId);
  const run = await playing;
  expect(pullableDuring).not.toContain(CLIENT);
  expect(pulledDuring).not.toContain(CLIENT);
  expect(run.state).toBe('finished');
  expect(notPassed(run).filter((line) => !line.startsWith('SKIPPED transport.'))).toEqual([]);
  expect(pair.bank.outbound.connectors.pullable().map((connector) => connector.settings.clientId)).toContain(CLIENT);

  // The Connector stops asking about the run's orders, the Bank delivers what it owes: the state is still.
  await pair.connector.reversePoller.stop();
  await drain(pair.bank);
  const prefix = `CONF-${run.id}-`;
  const owned = runRows(prefix);
  // The run did leave orders of its own (client.* cases), with their idempotency records: the comparison below
  // leaves out something real.
  expect(owned.orders).toBe(run.clientOrders.length);
  expect(owned.idempotency_records).toBe(run.clientOrders.length);
  const nonces = runNonces(run, prefix);
  expect(nonces.size).toBeGreaterThan(0);
  expect(withoutNonces(snapshot(prefix), nonces)).toEqual(before);

  // Deleting the run removes its orders and what hangs off them; the real rows stay, untouched.
  const deleted = await request(pair.bank.app).delete(`/sandbox/conformance-runs/${run.id}`);
  expect(deleted.status).toBe(200);
  expect(deleted.body.rows).toMatchObject({ orders: owned.orders, idempotency_records: owned.idempotency_records });
  expect(runRows(prefix)).toEqual({ orders: 0, order_status_history: 0, idempotency_records: 0, status_events: 0, create_failures: 0 });
  // Compared whole: the run's callbacks went with its status events, so every callback left is one of before.
  expect(withoutNonces(snapshot(prefix), nonces)).toEqual(before);
});
