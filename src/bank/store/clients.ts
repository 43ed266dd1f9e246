// The clients table: the clients file as last read at start, and every registration and change made through
// /sandbox/clients (control-plane.md section 1), so that both survive a restart.
//
// Precedence, per client id: a file client follows the file until it is changed at run time (PATCH or DELETE);
// from then on the stored definition wins, for as long as the file's entry for that id stays what it was. When
// the file's entry changes (or appears, disappears), the file wins again and the runtime change is dropped.
// A client registered at run time is kept until it is deleted (or until the file gets an entry of that id).
import { ClientDefinition, ClientSource } from '../security/client-registry';
import { Db } from './db';

export interface StoredClient {
  definition: ClientDefinition;
  source: ClientSource;
  changedAtRuntime: boolean;
  createdAt: number;
  updatedAt: number;
}

interface ClientRow {
  client_id: string;
  definition: string;
  source: ClientSource;
  file_definition: string | null;
  created_at: number;
  updated_at: number;
  runtime_changed_at: number | null;
  deleted_at: number | null;
}

/** What start-up did with the file against the store, for the log. */
export interface FileMerge {
  clients: StoredClient[];
  /** File clients whose runtime change was dropped because their file entry changed. */
  fileWon: string[];
  /** File clients whose runtime change (or deletion) still holds. */
  runtimeKept: string[];
}

function stored(row: ClientRow): StoredClient {
  return {
    definition: JSON.parse(row.definition) as ClientDefinition,
    source: row.source,
    changedAtRuntime: row.runtime_changed_at !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class ClientRepository {
  constructor(private readonly db: Db) {}

  /** Mirrors the file into the table without any precedence (kept for callers that only record the file). */
  sync(definitions: readonly { client_id: string }[], nowMs: number): void {
    const upsert = this.db.prepare(
      `INSERT INTO clients (client_id, definition, updated_at, file_definition, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (client_id) DO UPDATE SET definition = excluded.definition, file_definition = excluded.file_definition, updated_at = excluded.updated_at`,
    );
    this.db.transaction(() => {
      for (const definition of definitions) {
        const json = JSON.stringify(definition);
        upsert.run(definition.client_id, json, nowMs, json, nowMs);
      }
    })();
  }

  /**
   * Merges the clients file into the table (the precedence above) and answers every client in force, the
   * file's first, in file order, then the runtime ones, oldest first.
   */
  loadWithFile(definitions: readonly ClientDefinition[], nowMs: number): FileMerge {
    const rows = new Map((this.db.prepare('SELECT * FROM clients').all() as ClientRow[]).map((row) => [row.client_id, row]));
    const fileIds = new Set(definitions.map((definition) => definition.client_id));
    const insert = this.db.prepare(
      `INSERT INTO clients (client_id, definition, source, file_definition, created_at, updated_at) VALUES (?, ?, 'file', ?, ?, ?)`,
    );
    const followFile = this.db.prepare(
      `UPDATE clients SET definition = ?, source = 'file', file_definition = ?, updated_at = ?, runtime_changed_at = NULL, deleted_at = NULL
       WHERE client_id = ?`,
    );
    const leftTheFile = this.db.prepare(
      `UPDATE clients SET file_definition = NULL, runtime_changed_at = NULL, deleted_at = ?, updated_at = ? WHERE client_id = ?`,
    );
    const fileWon: string[] = [];
    const runtimeKept: string[] = [];
    this.db.transaction(() => {
      for (const definition of definitions) {
        const json = JSON.stringify(definition);
        const row = rows.get(definition.client_id);
        if (!row) {
          insert.run(definition.client_id, json, json, nowMs, nowMs);
        } else if (row.runtime_changed_at !== null && row.file_definition === json) {
          runtimeKept.push(definition.client_id);
        } else if (row.definition !== json || row.file_definition !== json || row.deleted_at !== null || row.source !== 'file') {
          if (row.runtime_changed_at !== null) fileWon.push(definition.client_id);
          followFile.run(json, json, nowMs, definition.client_id);
        }
      }
      // A client of a file entry that the file no longer has is gone with it, whatever was changed at run time.
      for (const row of rows.values()) {
        if (row.file_definition !== null && row.deleted_at === null && !fileIds.has(row.client_id)) leftTheFile.run(nowMs, nowMs, row.client_id);
      }
    })();
    const active = this.db.prepare('SELECT * FROM clients WHERE deleted_at IS NULL ORDER BY created_at, rowid').all() as ClientRow[];
    const byId = new Map(active.map((row) => [row.client_id, stored(row)]));
    const clients: StoredClient[] = [];
    for (const definition of definitions) {
      const client = byId.get(definition.client_id);
      if (client) clients.push(client);
      byId.delete(definition.client_id);
    }
    clients.push(...byId.values());
    return { clients, fileWon, runtimeKept };
  }

  /** Whether a client with this id is in force (not deleted). */
  exists(clientId: string): boolean {
    return this.db.prepare('SELECT 1 FROM clients WHERE client_id = ? AND deleted_at IS NULL').pluck().get(clientId) !== undefined;
  }

  /** Records a registration (POST /sandbox/clients); a deleted client's id may be registered again. */
  register(definition: ClientDefinition, nowMs: number): StoredClient {
    const json = JSON.stringify(definition);
    const changed = this.db
      .prepare(
        `INSERT INTO clients (client_id, definition, source, file_definition, created_at, updated_at, runtime_changed_at) VALUES (?, ?, 'runtime', NULL, ?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET definition = excluded.definition, source = 'runtime', created_at = excluded.created_at,
           updated_at = excluded.updated_at, runtime_changed_at = excluded.runtime_changed_at, deleted_at = NULL
         WHERE clients.deleted_at IS NOT NULL`,
      )
      .run(definition.client_id, json, nowMs, nowMs, nowMs).changes;
    if (changed === 0) throw new Error(`client ${definition.client_id} exists`);
    return { definition, source: 'runtime', changedAtRuntime: true, createdAt: nowMs, updatedAt: nowMs };
  }

  /** Records a runtime change (PATCH): from now on the stored definition wins over the file's unchanged entry. */
  update(definition: ClientDefinition, nowMs: number): StoredClient {
    const row = this.db
      .prepare(
        `UPDATE clients SET definition = ?, updated_at = ?, runtime_changed_at = ? WHERE client_id = ? AND deleted_at IS NULL RETURNING *`,
      )
      .get(JSON.stringify(definition), nowMs, nowMs, definition.client_id) as ClientRow | undefined;
    if (!row) throw new Error(`client ${definition.client_id} is not registered`);
    return stored(row);
  }

  /** Clients deleted through the control plane (not those that only left the clients file) and not registered since. */
  deletedAtRuntime(): string[] {
    return this.db.prepare('SELECT client_id FROM clients WHERE deleted_at IS NOT NULL AND runtime_changed_at IS NOT NULL').pluck().all() as string[];
  }

  /** Marks a client deleted (its orders, messages and records stay); false when there was none. */
  markDeleted(clientId: string, nowMs: number): boolean {
    return (
      this.db
        .prepare('UPDATE clients SET deleted_at = ?, updated_at = ?, runtime_changed_at = ? WHERE client_id = ? AND deleted_at IS NULL')
        .run(nowMs, nowMs, nowMs, clientId).changes > 0
    );
  }

  /** How many orders a client has (they stay readable after the client is deleted). */
  orderCount(clientId: string): number {
    return this.db.prepare('SELECT COUNT(*) FROM orders WHERE client_id = ?').pluck().get(clientId) as number;
  }
}
