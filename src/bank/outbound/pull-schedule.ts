// The pull on POLL_CRON, on the wall clock as it is now. node-cron's own runner arms one timer for the next slot
// and, when it fires, walks every slot since: after a laptop's suspend or a VM resumed a day later that was 8,640
// warnings on the console (not JSON) and ~0.7 s of blocked event loop, and after an NTP step back it waited until
// the wall clock was back where it had been (no pull for the length of the step). Here node-cron only names the
// next slot; a timer looks at least every MAX_WAIT_MS, pulls once however many slots have passed, and takes the
// next slot from the time it is now.
import type { Logger } from 'winston';

/** The longest a wall-clock step goes unnoticed. */
export const MAX_WAIT_MS = 5_000;
/** A slot this late is a wall clock that jumped (or a process that slept), worth a log line. */
const JUMP_MS = 60_000;

/** The slots of a schedule: the first after `nowMs` (ms since the epoch); `dispose` when the schedule stops. */
export interface Slots {
  next(nowMs: number): number;
  dispose?(): void;
}

export interface WallClockScheduleOptions {
  slots: Slots;
  /** One run; a run still going when the next slot comes is the caller's to join (Poller.runCycle does). */
  run(): Promise<unknown>;
  logger: Logger;
  now?: () => number;
  maxWaitMs?: number;
}

export interface WallClockSchedule {
  stop(): void;
}

export function scheduleOnWallClock(options: WallClockScheduleOptions): WallClockSchedule {
  const now = options.now ?? Date.now;
  const maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
  let due = options.slots.next(now());
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const arm = () => {
    if (stopped) return;
    timer = setTimeout(look, Math.max(0, Math.min(due - now(), maxWaitMs)));
    timer.unref();
  };
  const look = () => {
    try {
      const at = now();
      const next = options.slots.next(at);
      const pullNow = at >= due;
      if (pullNow && at - due > JUMP_MS) {
        options.logger.info('the wall clock jumped forward (a suspend?): pulling once now, not once for each slot missed', { late_ms: at - due, next_pull: new Date(next).toISOString() });
      } else if (!pullNow && due - next > JUMP_MS) {
        options.logger.info('the wall clock stepped back: the pull follows it', { was_due: new Date(due).toISOString(), next_pull: new Date(next).toISOString() });
      }
      due = pullNow ? next : Math.min(due, next);
      if (pullNow) options.run().catch((error: unknown) => options.logger.warn('pull cycle failed', { error: (error as Error).message }));
    } catch (error) {
      // A run that throws at once must not end the schedule: the next slot pulls again.
      options.logger.warn('pull cycle failed', { error: (error as Error).message });
    } finally {
      arm();
    }
  };

  arm();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      options.slots.dispose?.();
    },
  };
}

/**
 * The slots of a node-cron expression, from a task that is never started (node-cron keeps it in its registry until
 * `dispose`). node-cron names the next slot from its own clock (`new Date()`), which is the wall clock this schedule
 * reads in the Bank; the argument is there for slots on another clock.
 */
export function cronSlots(expression: string): Slots {
  const cron = require('node-cron') as typeof import('node-cron');
  const task = cron.createTask(expression, () => undefined, { name: 'pull-slots' });
  return { next: () => task.getNextRuns(1)[0].getTime(), dispose: () => void task.destroy() };
}
