// At start: the test clocks and pauses that earlier builds left behind when a client was deleted.
import type { Logger } from 'winston';
import type { ClientRegistry } from '../security/client-registry';
import { ClientPauseRepository, TestClockRepository } from '../store/client-controls';
import { Db } from '../store/db';

/**
 * A deleted client's test clock and pause go with it (application/client-registrations.ts); builds before that
 * left them in the store, where a clock held the client's orders forever and a pause waited for the id to come
 * back. Nobody can reach them (the routes need a registered client), so a start drops them.
 */
export function dropControlsOfDeletedClients(db: Db, registry: ClientRegistry, pauses: ClientPauseRepository, clocks: TestClockRepository, logger: Logger): void {
  const deleted = (clientId: string) => registry.find(clientId) === undefined;
  const droppedPauses = pauses.paused().filter(deleted);
  const droppedClocks = clocks.all().map((row) => row.clientId).filter(deleted);
  if (droppedPauses.length + droppedClocks.length === 0) return;
  db.transaction(() => {
    for (const clientId of droppedPauses) pauses.resume(clientId);
    for (const clientId of droppedClocks) clocks.remove(clientId);
  })();
  logger.info('dropped the test clocks and pauses of deleted clients', { clocks: droppedClocks.length, pauses: droppedPauses.length });
}

