// The Bank gives memory back when it falls quiet after a busy spell (src/wire/idle-collection.ts): the policy step by
// step, the sampling loop on a fake event loop, and a real node process under --expose-gc.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { EventLoopUtilization } from 'node:perf_hooks';
import winston from 'winston';
import {
  IDLE_COLLECTION,
  IdleCollectionState,
  idleCollectionStep,
  QUIET_AND_COLLECTED,
  startIdleCollection,
} from '../../src/wire/idle-collection';

const ROOT = path.resolve(__dirname, '../..');
const { windowMs, busyMsWorthCollecting, followUpWindows, quietWindowsBeforeCollecting: quietRun } = IDLE_COLLECTION;
const busy = { active: windowMs, utilization: 1 };
const quiet = { active: 10, utilization: 0.01 };

/** Runs windows through the policy from a fresh state; answers at which windows (0-based) it collected. */
function collectionsOver(windows: Array<Pick<EventLoopUtilization, 'active' | 'utilization'>>): number[] {
  let state: IdleCollectionState = QUIET_AND_COLLECTED;
  const collected: number[] = [];
  windows.forEach((window, index) => {
    const step = idleCollectionStep(state, window);
    state = step.state;
    if (step.collect) collected.push(index);
  });
  return collected;
}

const repeat = <T>(value: T, times: number): T[] => Array.from({ length: times }, () => value);

function collecting(lines: Record<string, unknown>[]): winston.Logger {
  const stream = new Writable({ objectMode: true, write: (info, _encoding, done) => { lines.push(info); done(); } });
  return winston.createLogger({ level: 'debug', transports: [new winston.transports.Stream({ stream })] });
}

describe('idle collection: the policy', () => {
  const busySeconds = Math.ceil(busyMsWorthCollecting / windowMs);

  it('collects once the loop has been quiet for a run of windows after enough busy time, then once more after the follow-up windows', () => {
    const first = busySeconds + quietRun - 1;
    expect(collectionsOver([...repeat(busy, busySeconds), ...repeat(quiet, quietRun + followUpWindows + 5)])).toEqual([first, first + followUpWindows]);
  });

  it('does not collect after a short busy spell, nor while the loop stays busy', () => {
    expect(collectionsOver([...repeat(busy, busySeconds - 1), ...repeat(quiet, 10)])).toEqual([]);
    expect(collectionsOver(repeat(busy, 30))).toEqual([]);
  });

  it('does not collect in pauses shorter than the quiet run: a client that pauses between bursts keeps its warm code', () => {
    const pause = repeat(quiet, quietRun - 1);
    expect(collectionsOver([...repeat(busy, busySeconds), ...pause, busy, ...pause, busy, ...pause, busy])).toEqual([]);
  });

  it('drops the follow-up when work resumes, and collects again only after enough new busy time and a new quiet run', () => {
    const first = busySeconds + quietRun - 1;
    const windows = [...repeat(busy, busySeconds), ...repeat(quiet, quietRun), busy, ...repeat(quiet, 10), ...repeat(busy, busySeconds), ...repeat(quiet, quietRun)];
    // The busy window after the first collection counts toward the next one, not enough alone.
    expect(collectionsOver(windows)).toEqual([first, windows.length - 1]);
  });

  it('adds up the busy time of quiet windows too, so a trickle of work is collected after long enough', () => {
    const trickle = Math.ceil(busyMsWorthCollecting / quiet.active);
    expect(trickle).toBeGreaterThanOrEqual(quietRun);
    expect(collectionsOver(repeat(quiet, trickle + followUpWindows + 1))).toEqual([trickle - 1, trickle - 1 + followUpWindows]);
  });

  it('counts a window exactly at the quiet share as quiet', () => {
    const atThreshold = { active: 50, utilization: IDLE_COLLECTION.quietUtilization };
    expect(idleCollectionStep({ busyMs: busyMsWorthCollecting, quietWindows: quietRun - 1, followUpIn: null }, atThreshold).collect).toBe(true);
  });
});

describe('idle collection: the sampling loop', () => {
  afterEach(() => jest.useRealTimers());

  it('samples the loop every window, collects and logs what it did', () => {
    jest.useFakeTimers();
    const lines: Record<string, unknown>[] = [];
    const busyWindows = Math.ceil(busyMsWorthCollecting / windowMs);
    const started = Date.now();
    // A fake event loop: busy for the first windows, quiet after; totals as node reports them at the current time.
    const utilization = (newer?: EventLoopUtilization, older?: EventLoopUtilization): EventLoopUtilization => {
      if (newer && older) {
        const active = newer.active - older.active;
        const idle = newer.idle - older.idle;
        return { idle, active, utilization: active / (active + idle) };
      }
      const windows = Math.floor((Date.now() - started) / windowMs);
      let active = 0;
      for (let index = 0; index < windows; index++) active += index < busyWindows ? busy.active : quiet.active;
      return { idle: windows * windowMs - active, active, utilization: 0 };
    };
    const collect = jest.fn();
    const running = startIdleCollection({ collect, logger: collecting(lines), utilization });
    expect(running).not.toBeNull();
    jest.advanceTimersByTime(windowMs * (busyWindows + quietRun - 1));
    expect(collect).not.toHaveBeenCalled();
    jest.advanceTimersByTime(windowMs);
    expect(collect).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(windowMs * (followUpWindows - 1));
    expect(collect).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(windowMs);
    expect(collect).toHaveBeenCalledTimes(2);
    running?.stop();
    jest.advanceTimersByTime(windowMs * 10);
    expect(collect).toHaveBeenCalledTimes(2);
    expect(lines[0]).toMatchObject({ level: 'debug', message: 'idle collection on', window_ms: windowMs });
    const logged = lines.filter((line) => line.message === 'idle collection');
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 'debug', busy_ms: busyWindows * busy.active + quietRun * quiet.active });
    expect(logged[0]).toHaveProperty('pause_ms');
    expect(logged[0]).toHaveProperty('heap_total_mb');
  });

  it('starts nothing when node was started without --expose-gc, and says so', () => {
    const lines: Record<string, unknown>[] = [];
    expect(startIdleCollection({ collect: undefined, logger: collecting(lines) })).toBeNull();
    expect(lines).toEqual([expect.objectContaining({ level: 'info', message: 'idle collection off: node was started without --expose-gc (npm start passes it)' })]);
  });
});

describe('idle collection: a real process', () => {
  it('gives back the heap a busy spell grew, once the loop falls quiet', () => {
    // A short policy, the real event loop and node's own gc: a busy spell that keeps garbage alive across
    // scavenges (so it reaches the old generation), then quiet until both collections have run. It stops after
    // the second (or at a generous deadline), not at a fixed time: a loaded machine may take longer to get there.
    // A window is quiet up to half busy: the spell is one 600 ms block, so its window is near 1, while on a loaded
    // machine V8's own tasks after a full collection can pass 5 ms of a 100 ms window, and a window that is not
    // quiet drops the follow-up (as it should in a Bank, whose windows are 1 s).
    const script = `
      const { startIdleCollection } = require(${JSON.stringify(path.join(ROOT, 'dist/wire/idle-collection.js'))});
      const winston = require('winston');
      const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Console()] });
      const policy = { windowMs: 100, quietUtilization: 0.5, quietWindowsBeforeCollecting: 2, busyMsWorthCollecting: 300, followUpWindows: 3 };
      let collected = 0;
      const stop = () => { running.stop(); clearTimeout(deadline); };
      const collect = () => { globalThis.gc(); collected += 1; if (collected === 2) setImmediate(stop); };
      const running = startIdleCollection({ collect, logger, policy });
      setTimeout(() => {
        let kept = [];
        const until = performance.now() + 600;
        while (performance.now() < until) { kept.push({ payload: 'x'.repeat(200) + Math.random() }); if (kept.length > 100000) kept = []; }
      }, 0);
      // The collector's own timers do not keep node alive; this does, until the second collection or 20 s.
      const deadline = setTimeout(stop, 20_000);
    `;
    const output = execFileSync(process.execPath, ['--expose-gc', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
    const collections = output.trim().split('\n').map((line) => JSON.parse(line) as { message: string; heap_total_mb: [number, number] });
    expect({ output, messages: collections.map((line) => line.message) }).toEqual({ output, messages: ['idle collection on', 'idle collection', 'idle collection'] });
    const [before, after] = collections[1].heap_total_mb;
    expect(after).toBeLessThan(before);
  });
});
