// POST /sandbox/reset as a use case: one transaction over the reset tables, then the in-memory clocks follow.
import { Db } from '../store/db';
import { ResetRepository } from '../store/reset';
import { ClientClocks } from './clocks';
import { FaultProfiles } from './fault-profiles';

export class ResetStore {
  constructor(
    private readonly db: Db,
    private readonly tables: ResetRepository,
    private readonly clocks: ClientClocks,
    /** A reset also removes the fault profile (conformance.md section 4). */
    private readonly faults?: FaultProfiles,
  ) {}

  /** Forgets one client's state (or everyone's); answers the rows deleted per table. */
  reset(clientId: string | null): Record<string, number> {
    const deleted = this.db.transaction(() => {
      const rows = this.tables.reset(clientId);
      if (this.faults) rows.client_faults = this.faults.deleteStored(clientId);
      return rows;
    })();
    this.clocks.reload();
    this.faults?.forgotten(clientId);
    return deleted;
  }
}
