// Versioned schema migrations, applied in order at startup inside one transaction each.

import { checksAsComparisons, Migration, rewriteTableDefinitions } from '../../wire/sqlite';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'inbound core',
    sql: `
      CREATE TABLE clients (
        client_id TEXT PRIMARY KEY,
        definition TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE orders (
        client_id TEXT NOT NULL,
        reference TEXT NOT NULL,
        bank_reference TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL CHECK (source IN ('push', 'pull')),
        status TEXT NOT NULL CHECK (status IN ('PENDING', 'SUCCESS', 'FAILED')),
        reason_code TEXT,
        reason_message TEXT,
        scenario TEXT NOT NULL,
        scenario_source TEXT NOT NULL,
        response_mode TEXT NOT NULL CHECK (response_mode IN ('sync', 'async')),
        callbacks TEXT NOT NULL CHECK (callbacks IN ('normal', 'none', 'duplicate')),
        settle_at INTEGER,
        final_status TEXT,
        final_reason_code TEXT,
        initiated_at TEXT NOT NULL,
        initiated_at_ms INTEGER NOT NULL,
        total_amount TEXT NOT NULL,
        currency TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        processed_at INTEGER NOT NULL,
        PRIMARY KEY (client_id, reference)
      );
      CREATE INDEX orders_due ON orders (settle_at) WHERE status = 'PENDING' AND settle_at IS NOT NULL;
      CREATE TABLE order_status_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        client_id TEXT NOT NULL,
        reference TEXT NOT NULL,
        from_status TEXT,
        to_status TEXT NOT NULL,
        reason_code TEXT,
        cause TEXT NOT NULL,
        at INTEGER NOT NULL,
        FOREIGN KEY (client_id, reference) REFERENCES orders (client_id, reference)
      );
      CREATE INDEX history_by_order ON order_status_history (client_id, reference, id);
      CREATE TABLE idempotency_records (
        client_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
        status_code INTEGER,
        body BLOB,
        locked_until INTEGER,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (client_id, idem_key)
      );
      CREATE INDEX idempotency_expiry ON idempotency_records (expires_at);
      CREATE TABLE nonces (
        client_id TEXT NOT NULL,
        nonce TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (client_id, nonce)
      ) WITHOUT ROWID;
      CREATE INDEX nonces_expiry ON nonces (expires_at);
      CREATE TABLE bank_keys (
        kid TEXT PRIMARY KEY,
        private_jwk TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'outbound: pull cursors, rejected pulled orders, status events, callbacks and attempts',
    sql: `
      CREATE TABLE poll_cursors (
        client_id TEXT PRIMARY KEY,
        cursor TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE pulled_order_rejections (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        client_id TEXT NOT NULL,
        reference TEXT,
        fingerprint TEXT NOT NULL,
        reason TEXT NOT NULL,
        payload TEXT NOT NULL,
        at INTEGER NOT NULL,
        UNIQUE (client_id, fingerprint)
      );
      -- The outbox: one row per status change to report, written in the transaction of the change.
      CREATE TABLE status_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        client_id TEXT NOT NULL,
        reference TEXT NOT NULL,
        bank_reference TEXT NOT NULL,
        status TEXT NOT NULL,
        reason_code TEXT,
        reason_message TEXT,
        processed_at INTEGER NOT NULL,
        copies INTEGER NOT NULL DEFAULT 1,
        state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'superseded')),
        callback_id INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX status_events_queued ON status_events (client_id, id) WHERE state = 'queued';
      CREATE INDEX status_events_by_order ON status_events (client_id, reference, id);
      -- A callback message: frozen URL, key and body bytes; delivered by attempts on a schedule.
      CREATE TABLE callbacks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        client_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('unit', 'batch')),
        idempotency_key TEXT NOT NULL,
        url TEXT NOT NULL,
        body BLOB NOT NULL,
        copies_left INTEGER NOT NULL DEFAULT 1,
        state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        delivered_at INTEGER,
        last_error TEXT
      );
      CREATE INDEX callbacks_due ON callbacks (next_attempt_at) WHERE state = 'pending';
      CREATE TABLE callback_attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        callback_id INTEGER NOT NULL REFERENCES callbacks (id),
        attempt INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        url TEXT NOT NULL,
        status_code INTEGER,
        latency_ms INTEGER NOT NULL,
        error TEXT,
        response_body TEXT
      );
      CREATE INDEX callback_attempts_by_callback ON callback_attempts (callback_id, id);
    `,
  },
  {
    version: 3,
    name: 'v1.1 scenarios: FAIL_ONCE memory, POLL_429 and POLL_404 answers',
    sql: `
      ALTER TABLE orders ADD COLUMN polls_to_throttle INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE orders ADD COLUMN poll_answer TEXT NOT NULL DEFAULT 'status' CHECK (poll_answer IN ('status', 'not_found'));
      CREATE TABLE create_failures (
        client_id TEXT NOT NULL,
        reference TEXT NOT NULL,
        failed_at INTEGER NOT NULL,
        PRIMARY KEY (client_id, reference)
      );
      ALTER TABLE nonces ADD COLUMN first_seen_at INTEGER;
    `,
  },
  {
    version: 4,
    name: 'control plane: clients registered and changed at run time',
    sql: `
      -- definition: the definition in force. source: where the client came from (the clients file, or
      -- POST /sandbox/clients). file_definition: the file's entry as last read at start (null for a client that is
      -- not in the file). runtime_changed_at: the last change through /sandbox (null while the row follows the
      -- file). A runtime change of a file client wins until the file's entry itself changes. deleted_at: a
      -- tombstone; the client's orders stay.
      ALTER TABLE clients ADD COLUMN source TEXT NOT NULL DEFAULT 'file' CHECK (source IN ('file', 'runtime'));
      ALTER TABLE clients ADD COLUMN file_definition TEXT;
      ALTER TABLE clients ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE clients ADD COLUMN runtime_changed_at INTEGER;
      ALTER TABLE clients ADD COLUMN deleted_at INTEGER;
      UPDATE clients SET file_definition = definition, created_at = updated_at;
    `,
  },
  {
    version: 5,
    name: 'control plane: live events and the request journal',
    sql: `
      -- Live events (control-plane.md section 6): bounded to the newest EVENTS_RETENTION rows.
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        client_id TEXT,
        data TEXT NOT NULL
      );
      -- The journal (section 4): every exchange, secrets masked; bounded by count and age.
      CREATE TABLE journal (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
        client_id TEXT,
        method TEXT NOT NULL,
        url TEXT NOT NULL,
        path TEXT NOT NULL,
        status INTEGER,
        code TEXT,
        latency_ms REAL NOT NULL,
        request_id TEXT,
        detail TEXT NOT NULL
      );
      CREATE INDEX journal_at ON journal (at);
      CREATE INDEX journal_by_client ON journal (client_id, id);
      -- The order references an entry involved, for ?reference= and an order's own journal.
      CREATE TABLE journal_refs (
        entry_id INTEGER NOT NULL,
        client_id TEXT,
        reference TEXT NOT NULL,
        PRIMARY KEY (entry_id, reference)
      ) WITHOUT ROWID;
      CREATE INDEX journal_refs_by_order ON journal_refs (reference, client_id, entry_id);
    `,
  },
  {
    version: 6,
    name: 'control plane: test clocks and paused clients',
    sql: `
      CREATE TABLE test_clocks (
        client_id TEXT PRIMARY KEY,
        now_ms INTEGER NOT NULL,
        attached_at INTEGER NOT NULL
      );
      CREATE TABLE client_pauses (
        client_id TEXT PRIMARY KEY,
        paused_at INTEGER NOT NULL
      );
      -- A clock advance asks, step after step, for one client's next and due settlements.
      CREATE INDEX orders_due_by_client ON orders (client_id, settle_at) WHERE status = 'PENDING' AND settle_at IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: 'conformance runs',
    sql: `
      -- One run of the conformance suite against a client's Connector (conformance.md): its request, the orders
      -- it asked the Connector to push (client.* cases) and its case results as they finish. Bounded in count.
      CREATE TABLE conformance_runs (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('running', 'finished', 'aborted')),
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        request TEXT NOT NULL,
        client_orders TEXT NOT NULL,
        results TEXT NOT NULL,
        error TEXT
      );
      CREATE INDEX conformance_runs_by_client ON conformance_runs (client_id, started_at);
      -- The reference an idempotency record answered for, so that a run's own orders can be deleted with it.
      ALTER TABLE idempotency_records ADD COLUMN reference TEXT;
    `,
  },
  {
    version: 8,
    name: 'fault profiles',
    sql: `
      -- A client's fault profile (conformance.md section 4): rates and seed, applied to what the Bank sends it.
      CREATE TABLE client_faults (
        client_id TEXT PRIMARY KEY,
        profile TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 9,
    name: 'first reports',
    sql: `
      -- 1 for an order's first report (of its acceptance): nothing of that order can be ahead of it, so delivery
      -- skips the in-order check. Rows from before are 0: checked, as they always were.
      ALTER TABLE status_events ADD COLUMN first_report INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 10,
    name: 'CHECKs as comparisons',
    // Every CHECK (column IN (...)) above becomes the same CHECK written with = and OR, in the stored schema only:
    // an IN list cost each insert and update of orders, the outbox, callbacks, idempotency records and the journal
    // ~0.5 µs a CHECK (issue 15: 6 % of a batched order's CPU). Rows are untouched; they meet both forms.
    apply: (db) => {
      rewriteTableDefinitions(db, checksAsComparisons);
    },
  },
  {
    version: 11,
    name: "the journal: an entry's one order reference in its own row",
    sql: `
      -- Nearly every entry (a create, a poll, a callback) names one order of its own client. Kept in the entry's
      -- row, it costs one index instead of journal_refs' table and index (issue 15: -1.5 % CPU a poll and a
      -- create). Entries naming several orders or another client's keep journal_refs, as rows from before do.
      ALTER TABLE journal ADD COLUMN reference TEXT;
      CREATE INDEX journal_by_reference ON journal (reference, client_id) WHERE reference IS NOT NULL;
    `,
  },
  {
    version: 12,
    name: "an order's acceptance in its own row",
    sql: `
      -- An order's first history entry (its acceptance: from nothing to its first status, at created_at) kept in
      -- the order's row instead of a row of order_status_history: one row, one random index entry and one foreign
      -- key lookup fewer a create (issue 15: -2.5 % CPU a create). Later changes stay in order_status_history.
      -- Orders from before keep their acceptance there (accepted_status NULL).
      ALTER TABLE orders ADD COLUMN accepted_status TEXT CHECK (accepted_status = 'PENDING' OR accepted_status = 'SUCCESS' OR accepted_status = 'FAILED');
      ALTER TABLE orders ADD COLUMN accepted_reason_code TEXT;
      ALTER TABLE orders ADD COLUMN accepted_cause TEXT;
    `,
  },
  {
    version: 13,
    name: "a test clock advance's target, kept until it is reached",
    sql: `
      -- The time an advance in progress is moving the clock to (control-plane.md section 3), stored before it fires
      -- anything and cleared in the statement that sets now_ms to it: a crash mid-advance leaves it, and the next
      -- start finishes that advance. NULL when no advance is under way.
      ALTER TABLE test_clocks ADD COLUMN advancing_to INTEGER;
    `,
  },
  {
    version: 14,
    name: 'the settings a store was last run with',
    sql: `
      -- What the next start compares its configuration with: timestamp_window_s, since each spent nonce's expiry was
      -- fixed by the window in force when it was spent (store/nonces.ts, followWindow).
      CREATE TABLE bank_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 15,
    name: 'the schema of a fresh store, for stores migrated by builds that had older versions of migrations 6 and 14',
    sql: `
      -- Migration 6 gained this index after it had shipped (67fb116), so a store migrated by a build in between
      -- reported the latest version without it, and a clock advance read all of a client's orders at each step.
      CREATE INDEX IF NOT EXISTS orders_due_by_client ON orders (client_id, settle_at) WHERE status = 'PENDING' AND settle_at IS NOT NULL;
    `,
    // Migration 14 first made bank_settings WITHOUT ROWID (ce593bc, changed in a228a5d): rebuilt as a fresh store has it.
    apply: (db) => {
      const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'bank_settings'").pluck().get() as string | undefined;
      if (!sql || !/WITHOUT\s+ROWID/i.test(sql)) return;
      db.exec(`
        CREATE TABLE bank_settings_rebuilt (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO bank_settings_rebuilt (name, value) SELECT name, value FROM bank_settings;
        DROP TABLE bank_settings;
        ALTER TABLE bank_settings_rebuilt RENAME TO bank_settings;
      `);
    },
  },
];
