// POST /sandbox/reset as a use case: one transaction over the reset tables, then the in-memory clocks follow.
import { Db } from '../store/db';
import { ResetRepository } from '../store/reset';
import { ClientClocks } from './clocks';

export class ResetStore {
  constructor(private readonly db: Db, private readonly tables: ResetRepository, private readonly clocks: ClientClocks) {}

  /** Forgets one client's state (or everyone's); answers the rows deleted per table. */
  reset(clientId: string | null): Record<string, number> {
    const deleted = this.db.transaction(() => this.tables.reset(clientId))();
    this.clocks.reload();
    return deleted;
  }
}
