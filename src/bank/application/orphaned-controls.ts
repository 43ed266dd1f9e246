// At start: the test clocks and pauses that earlier builds left behind when a client was deleted.
import type { Logger } from 'winston';
import { ClientPauseRepository, TestClockRepository } from '../store/client-controls';
import { Db } from '../store/db';

/**
 * A client deleted through the control plane takes its test clock and pause with it (client-registrations.ts);
 * builds before that left them in the store, where a clock held the client's orders forever and a pause waited for
 * the id to come back. A start drops those. A client that only left the clients file keeps them: a start with a
 * wrong file must not cost the clients in it their clocks.
 */
export function dropControlsOfDeletedClients(db: Db, deletedAtRuntime: readonly string[], pauses: ClientPauseRepository, clocks: TestClockRepository, logger: Logger): void {
  const ids = new Set(deletedAtRuntime);
  const deleted = (clientId: string) => ids.has(clientId);
  const droppedPauses = pauses.paused().filter(deleted);
  const droppedClocks = clocks.all().map((row) => row.clientId).filter(deleted);
  if (droppedPauses.length + droppedClocks.length === 0) return;
  db.transaction(() => {
    for (const clientId of droppedPauses) pauses.resume(clientId);
    for (const clientId of droppedClocks) clocks.remove(clientId);
  })();
  logger.info('dropped the test clocks and pauses of deleted clients', { clocks: droppedClocks.length, pauses: droppedPauses.length });
}
