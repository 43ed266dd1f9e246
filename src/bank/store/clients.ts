// Mirrors the client registry file into the clients table, so the store shows who it served.
import { Db } from './db';

export class ClientRepository {
  constructor(private readonly db: Db) {}

  sync(definitions: readonly { client_id: string }[], nowMs: number): void {
    const upsert = this.db.prepare(
      `INSERT INTO clients (client_id, definition, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (client_id) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`,
    );
    this.db.transaction(() => {
      for (const definition of definitions) upsert.run(definition.client_id, JSON.stringify(definition), nowMs);
    })();
  }
}
