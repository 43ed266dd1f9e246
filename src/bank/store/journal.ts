// The journal's tables (control-plane.md section 4): one row per exchange (summary columns plus the masked detail
// as JSON) and the order references each one involved: in the entry's own row when it names one order of its own
// client (nearly all do), else in journal_refs. Entries are written in batches, one transaction each.
import type { Statement } from 'better-sqlite3';
import { Db } from './db';

export interface JournalRow {
  id: number;
  at: number;
  direction: 'in' | 'out';
  clientId: string | null;
  method: string;
  url: string;
  path: string;
  status: number | null;
  code: string | null;
  latencyMs: number;
  requestId: string | null;
  /** JSON text: request and response, masked. */
  detail: string;
}

export interface JournalInsert extends JournalRow {
  references: { clientId: string | null; reference: string }[];
}

/** `fault`: the faults a fault profile injected into the exchange (kept in the detail), or null. */
export type JournalSummaryRow = Omit<JournalRow, 'detail'> & { references: string[]; fault: string | null };

export interface JournalFilter {
  clientId: string | null;
  direction: 'in' | 'out' | null;
  code: string | null;
  reference: string | null;
  /** A path prefix. */
  path: string | null;
  since: number | null;
  /** Cursor: only entries with a smaller id (lists are newest first). */
  beforeId: number | null;
}

/** What an order's detail shows of each entry that touched it. */
export interface JournalMention {
  id: number;
  at: number;
  direction: 'in' | 'out';
  method: string;
  path: string;
  status: number | null;
  code: string | null;
}

const SUMMARY = `j.id AS id, j.at AS at, j.direction AS direction, j.client_id AS clientId, j.method AS method, j.url AS url,
  j.path AS path, j.status AS status, j.code AS code, j.latency_ms AS latencyMs, j.request_id AS requestId,
  json_extract(j.detail, '$.fault') AS fault,
  CASE WHEN j.reference IS NULL THEN (SELECT json_group_array(reference) FROM journal_refs WHERE entry_id = j.id)
    ELSE json_array(j.reference) END AS refs`;

type ListCondition = readonly [keyof JournalFilter, string];

/** list()'s filters, each with its condition (named parameters: a filter's value is bound under its own name). */
const LIST_CONDITIONS: readonly ListCondition[] = [
  ['beforeId', 'j.id < @beforeId'],
  ['clientId', 'j.client_id = @clientId'],
  ['direction', 'j.direction = @direction'],
  ['code', 'j.code = @code'],
  ['path', 'substr(j.path, 1, length(@path)) = @path'],
  ['since', 'j.at >= @since'],
  ['reference', `j.id IN (SELECT id FROM journal WHERE reference = @reference
                          UNION ALL SELECT entry_id FROM journal_refs WHERE reference = @reference)`],
];

/** The entry's reference when it names exactly one order, of its own client: that one is kept in the entry's row. */
function soleReference(entry: JournalInsert): string | null {
  const { references } = entry;
  return references.length === 1 && references[0].clientId === entry.clientId ? references[0].reference : null;
}

type Stored<T> = T & { refs: string };

function withReferences<T extends { refs: string }>(row: T): Omit<T, 'refs'> & { references: string[] } {
  const { refs, ...rest } = row;
  return { ...rest, references: JSON.parse(refs) as string[] };
}

export class JournalRepository {
  private readonly insertStmt;
  private readonly insertRefStmt;
  private readonly insertClientRefsStmt;
  private readonly deleteUpToStmt;
  private readonly deleteRefsUpToStmt;
  private readonly lastAgedStmt;
  private readonly findStmt;
  /** The list statement of each combination of filters given (listStatement). */
  private readonly listStmts = new Map<string, Statement>();
  private readonly mentionsStmt;
  private readonly clearStmt;
  private readonly clearRefsStmt;
  private readonly sequenceStmt;
  private readonly writeBatch;

  constructor(private readonly db: Db) {
    // Positional parameters: named ones cost better-sqlite3 ~1 µs more a statement of this width (issue 15).
    this.insertStmt = db.prepare(
      `INSERT INTO journal (id, at, direction, client_id, method, url, path, status, code, latency_ms, request_id, reference, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertRefStmt = db.prepare('INSERT OR IGNORE INTO journal_refs (entry_id, client_id, reference) VALUES (?, ?, ?)');
    // A pull page's or a batch's entry names up to 1,000 orders of one client: one statement over a JSON array.
    this.insertClientRefsStmt = db.prepare(
      'INSERT OR IGNORE INTO journal_refs (entry_id, client_id, reference) SELECT ?, ?, value FROM json_each(?)',
    );
    this.deleteUpToStmt = db.prepare('DELETE FROM journal WHERE id <= ?');
    this.deleteRefsUpToStmt = db.prepare('DELETE FROM journal_refs WHERE entry_id <= ?');
    // INDEXED BY: left to itself SQLite answers MAX(id) by walking the ids down from the newest until one is old
    // enough, which reads the whole journal (~5 ms at 60,000 entries) on every age prune when none is.
    this.lastAgedStmt = db.prepare('SELECT MAX(id) FROM journal INDEXED BY journal_at WHERE at < ?').pluck();
    this.findStmt = db.prepare(`SELECT ${SUMMARY}, j.detail AS detail FROM journal j WHERE j.id = ?`);
    this.mentionsStmt = db.prepare(
      `SELECT j.id AS id, j.at AS at, j.direction AS direction, j.method AS method, j.path AS path, j.status AS status, j.code AS code
       FROM journal j
       WHERE j.id IN (SELECT id FROM journal WHERE reference = @reference AND client_id = @clientId
                      UNION ALL SELECT entry_id FROM journal_refs WHERE reference = @reference AND client_id = @clientId)
       ORDER BY j.id LIMIT @limit`,
    );
    this.clearStmt = db.prepare('DELETE FROM journal');
    this.clearRefsStmt = db.prepare('DELETE FROM journal_refs');
    this.sequenceStmt = db.prepare(
      "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'journal'), 0), COALESCE((SELECT MAX(id) FROM journal), 0))",
    ).pluck();
    this.writeBatch = db.transaction((entries: readonly JournalInsert[], pruneUpTo: number | null) => {
      for (const entry of entries) {
        const reference = soleReference(entry);
        this.insertStmt.run(entry.id, entry.at, entry.direction, entry.clientId, entry.method, entry.url, entry.path, entry.status,
          entry.code, entry.latencyMs, entry.requestId, reference, entry.detail);
        if (reference === null) this.insertReferences(entry.id, entry.references);
      }
      if (pruneUpTo !== null) {
        this.deleteRefsUpToStmt.run(pruneUpTo);
        this.deleteUpToStmt.run(pruneUpTo);
      }
    });
  }

  private insertReferences(entryId: number, references: JournalInsert['references']): void {
    const clientId = references[0]?.clientId ?? null;
    if (references.length > 1 && references.every((ref) => ref.clientId === clientId)) {
      this.insertClientRefsStmt.run(entryId, clientId, JSON.stringify(references.map((ref) => ref.reference)));
      return;
    }
    for (const ref of references) this.insertRefStmt.run(entryId, ref.clientId, ref.reference);
  }

  /** The largest id ever given out (AUTOINCREMENT's memory), so ids keep increasing across restarts and clears. */
  lastId(): number {
    return this.sequenceStmt.get() as number;
  }

  /** Writes a batch of entries, and drops those with an id up to `pruneUpTo` (unless null), in one transaction. */
  insertMany(entries: readonly JournalInsert[], pruneUpTo: number | null = null): void {
    if (entries.length > 0 || pruneUpTo !== null) this.writeBatch(entries, pruneUpTo);
  }

  /** Deletes entries (and their references) with an id up to `id`; returns how many entries. */
  deleteUpTo(id: number): number {
    return this.db.transaction(() => {
      this.deleteRefsUpToStmt.run(id);
      return this.deleteUpToStmt.run(id).changes;
    })();
  }

  /** The newest id among entries older than `atMs` (null when none is): everything up to it is past the age limit. */
  lastOlderThan(atMs: number): number | null {
    return (this.lastAgedStmt.get(atMs) as number | null) ?? null;
  }

  find(id: number): (JournalRow & { references: string[]; fault: string | null }) | undefined {
    const row = this.findStmt.get(id) as Stored<JournalRow & { fault: string | null }> | undefined;
    return row ? withReferences(row) : undefined;
  }

  /** Summary rows newest first; fetch `limit + 1` to know whether there is a next page. */
  list(filter: JournalFilter, limit: number): JournalSummaryRow[] {
    const used = LIST_CONDITIONS.filter(([name]) => filter[name] !== null);
    const params: Record<string, unknown> = { limit };
    for (const [name] of used) params[name] = filter[name];
    return (this.listStatement(used).all(params) as Stored<Omit<JournalSummaryRow, 'references'>>[]).map(withReferences);
  }

  /**
   * The WHERE clause names only the filters given, so the planner can use an index for them (journal_by_client for a
   * client, journal_by_reference and journal_refs_by_order for a reference); written `(@x IS NULL OR col = @x)` every
   * filter was a full scan (~300-400 ms at 200,000 entries). One prepared statement per combination, kept.
   */
  private listStatement(used: readonly ListCondition[]): Statement {
    const key = used.map(([name]) => name).join(',');
    let statement = this.listStmts.get(key);
    if (!statement) {
      const where = used.length > 0 ? `WHERE ${used.map(([, condition]) => condition).join(' AND ')}` : '';
      statement = this.db.prepare(`SELECT ${SUMMARY} FROM journal j ${where} ORDER BY j.id DESC LIMIT @limit`);
      this.listStmts.set(key, statement);
    }
    return statement;
  }

  /** The entries that involved one order, oldest first. */
  mentions(clientId: string, reference: string, limit: number): JournalMention[] {
    return this.mentionsStmt.all({ reference, clientId, limit }) as JournalMention[];
  }

  clear(): number {
    return this.db.transaction(() => {
      this.clearRefsStmt.run();
      return this.clearStmt.run().changes;
    })();
  }
}
