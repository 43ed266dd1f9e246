// Fault profiles (conformance.md section 4), one per client, kept across restarts in client_faults (migration 8):
// the profile as JSON and when it was last set.
import { Db } from './db';

export interface StoredFaultProfile {
  clientId: string;
  /** JSON text of the profile. */
  profile: string;
  updatedAt: number;
}

export class ClientFaultRepository {
  private readonly allStmt;
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly deleteAllStmt;

  constructor(db: Db) {
    this.allStmt = db.prepare('SELECT client_id AS clientId, profile, updated_at AS updatedAt FROM client_faults');
    this.upsertStmt = db.prepare(
      `INSERT INTO client_faults (client_id, profile, updated_at) VALUES (@clientId, @profile, @updatedAt)
       ON CONFLICT (client_id) DO UPDATE SET profile = excluded.profile, updated_at = excluded.updated_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM client_faults WHERE client_id = ?');
    this.deleteAllStmt = db.prepare('DELETE FROM client_faults');
  }

  all(): StoredFaultProfile[] {
    return this.allStmt.all() as StoredFaultProfile[];
  }

  save(row: StoredFaultProfile): void {
    this.upsertStmt.run(row);
  }

  /** Removes one client's profile, or everyone's (null); answers how many were removed. */
  remove(clientId: string | null): number {
    return (clientId === null ? this.deleteAllStmt.run() : this.deleteStmt.run(clientId)).changes;
  }
}
