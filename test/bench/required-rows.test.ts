// The bench's required-rows server (bench/limit-server.js with LIMIT_STORE=required) writes, through the Bank's
// own store, the rows the specs make a create and a status poll write, and answers after they are committed. The
// bench divides the Bank by it, so it must keep working when the store's repositories change. LIMIT_STORE=lean
// writes the same rows in the leanest schema (bench/lib/lean-rows.js), and LEAN_ADD puts parts of the Bank's back.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { waitFor } from '../helpers/outbound';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { freePort, waitForAnswer } = require('../../bench/lib/processes');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { signedCreate, signedStatus } = require('../../bench/lib/signing');

interface SignedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  reference?: string;
}

const ROOT = path.resolve(__dirname, '../..');

/** SIGTERM (the server exits through process.exit), then the exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const ALL_PARTS = 'journal-batch,journal-reference-index,journal-indexes,autoincrement,orders-rowid,idempotency-rowid,nonce-expiry,history-row';
const IN_ROW = 'SELECT COUNT(*) FROM journal WHERE reference = ?';
const SEPARATE_REFS = 'SELECT COUNT(*) FROM journal_refs WHERE reference = ?';

describe.each([
  ['required', {}, IN_ROW, []],
  ['lean', {}, IN_ROW, ['journal_refs', 'journal_by_reference', 'nonces_expiry', 'history_by_order', 'sqlite_sequence']],
  ['lean', { LEAN_ADD: ALL_PARTS }, IN_ROW, ['journal_refs']],
  ['lean', { LEAN_ADD: 'journal-refs' }, SEPARATE_REFS, ['journal_by_reference']],
])('the %s-rows server of the bench %j', (store, env, journalReferences, absentTables) => {
  let child: ChildProcess;
  let base: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'required-rows-'));
    const port = await freePort();
    child = spawn(process.execPath, [path.join(ROOT, 'bench/limit-server.js')], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LIMIT_STORE: store, ...env },
      stdio: 'ignore',
    });
    base = `http://127.0.0.1:${port}`;
    await waitForAnswer(`${base}/readyz`, performance.now(), { wantStatus: 200 });
  });

  afterAll(async () => {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const send = async (request: SignedRequest) => {
    const response = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('stores a create and its poll, and refuses a spent nonce', async () => {
    const create: SignedRequest = signedCreate('token');
    const created = await send(create);
    expect(created).toMatchObject({ status: 200, body: { status: 'SUCCESS', reference: create.reference } });
    expect(await send(create)).toEqual({ status: 401, body: { code: 'nonce_replayed' } });
    const polled = await send(signedStatus('token', create.reference));
    expect(polled).toMatchObject({ status: 200, body: { reference: create.reference, status: 'SUCCESS', bank_reference: created.body.bank_reference } });
    expect((await send(signedStatus('token', 'NO-SUCH-ORDER'))).status).toBe(404);
    // The limit server writes its journal in batches (within 5 ms) and does not flush them on SIGTERM: wait for them.
    const journal = new Database(path.join(dataDir, 'sandbox-bank.sqlite'), { readonly: true });
    try {
      await waitFor(() => journal.prepare('SELECT COUNT(*) FROM journal').pluck().get() === 3, 15_000, "the limit server's journal batch");
    } finally {
      journal.close();
    }
    await stop(child);

    const db = new Database(path.join(dataDir, 'sandbox-bank.sqlite'), { readonly: true });
    const count = (sql: string, ...args: unknown[]) => (db.prepare(sql).pluck().get(...args) as number);
    try {
      expect(count('SELECT COUNT(*) FROM orders WHERE reference = ?', create.reference)).toBe(1);
      // Its acceptance, stored once: in the order's own row as the Bank keeps it, or as a history row with lean's
      // history-row part (the Bank's design before migration 12).
      const asHistoryRow = ((env as { LEAN_ADD?: string }).LEAN_ADD ?? '').split(',').includes('history-row');
      expect(count("SELECT COUNT(*) FROM orders WHERE reference = ? AND accepted_status = 'SUCCESS'", create.reference)).toBe(asHistoryRow ? 0 : 1);
      expect(count("SELECT COUNT(*) FROM order_status_history WHERE reference = ? AND to_status = 'SUCCESS'", create.reference)).toBe(asHistoryRow ? 1 : 0);
      expect(count('SELECT COUNT(*) FROM idempotency_records WHERE reference = ?', create.reference)).toBe(1);
      expect(count("SELECT COUNT(*) FROM events WHERE type = 'order.created'")).toBe(1);
      expect(count('SELECT COUNT(*) FROM nonces')).toBe(3);
      expect(count('SELECT COUNT(*) FROM journal')).toBe(3);
      expect(count(journalReferences, create.reference)).toBe(2);
      for (const name of absentTables) expect(count('SELECT COUNT(*) FROM sqlite_master WHERE name = ?', name)).toBe(0);
    } finally {
      db.close();
    }
  });
});

it('refuses a LEAN_ADD part it does not know, instead of measuring the lean rows without it', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'required-rows-'));
  try {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'bench/limit-server.js')], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LIMIT_STORE: 'lean', LEAN_ADD: 'nonce-expiry,history-index' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('LEAN_ADD: unknown part(s) history-index; the parts are');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
