// The pull's schedule follows the wall clock as it is now (outbound/pull-schedule.ts): a jump forward (a suspend,
// a VM resumed) pulls once, not once per missed slot, and a step back (NTP) does not stop the pull for the length
// of the step. Found with libfaketime against node-cron's own runner. Fake timers: nothing here waits.
import type { Logger } from 'winston';
import { cronSlots, MAX_WAIT_MS, scheduleOnWallClock } from '../../src/bank/outbound/pull-schedule';

const EVERY_10_S = (nowMs: number) => (Math.floor(nowMs / 10_000) + 1) * 10_000;
const DAY = 86_400_000;

function harness() {
  const wall = { offset: 0 };
  const lines: string[] = [];
  const logger = { info: (message: string) => lines.push(message), warn: (message: string) => lines.push(message) } as unknown as Logger;
  let runs = 0;
  const schedule = scheduleOnWallClock({
    slots: { next: EVERY_10_S },
    run: async () => {
      runs += 1;
    },
    logger,
    now: () => Date.now() + wall.offset,
  });
  return { wall, lines, schedule, runs: () => runs };
}

describe('the pull schedule on the wall clock', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: Date.parse('2026-11-29T20:00:00.000Z') });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('pulls at each slot', () => {
    const { schedule, runs } = harness();
    jest.advanceTimersByTime(60_000);
    expect(runs()).toBe(6);
    schedule.stop();
    jest.advanceTimersByTime(60_000);
    expect(runs()).toBe(6);
  });

  it('pulls once after the wall clock jumps a day forward, says so once, then keeps the cadence', () => {
    const { wall, lines, schedule, runs } = harness();
    jest.advanceTimersByTime(10_000);
    expect(runs()).toBe(1);
    wall.offset += DAY;
    jest.advanceTimersByTime(MAX_WAIT_MS);
    expect(runs()).toBe(2);
    expect(lines).toEqual(['the wall clock jumped forward (a suspend?): pulling once now, not once for each slot missed']);
    jest.advanceTimersByTime(10_000);
    expect(runs()).toBe(3);
    schedule.stop();
  });

  it('keeps pulling after the wall clock steps back ten minutes', () => {
    const { wall, lines, schedule, runs } = harness();
    jest.advanceTimersByTime(10_000);
    expect(runs()).toBe(1);
    wall.offset -= 600_000;
    jest.advanceTimersByTime(20_000);
    expect(runs()).toBeGreaterThanOrEqual(2);
    expect(lines).toEqual(['the wall clock stepped back: the pull follows it']);
    schedule.stop();
  });
});

describe('the pull schedule when a run throws at once', () => {
  beforeEach(() => jest.useFakeTimers({ now: Date.parse('2026-11-29T20:00:00.000Z') }));
  afterEach(() => jest.useRealTimers());

  it('logs it and pulls again at the next slot', () => {
    const lines: string[] = [];
    const logger = { info: (message: string) => lines.push(message), warn: (message: string) => lines.push(message) } as unknown as Logger;
    let runs = 0;
    const schedule = scheduleOnWallClock({
      slots: { next: EVERY_10_S },
      run: () => {
        runs += 1;
        throw new Error('no Connector table');
      },
      logger,
    });
    jest.advanceTimersByTime(30_000);
    expect(runs).toBe(3);
    expect(lines).toEqual(['pull cycle failed', 'pull cycle failed', 'pull cycle failed']);
    schedule.stop();
  });
});

describe('cronSlots', () => {
  it("names node-cron's next slot after now, and leaves node-cron's registry when disposed", () => {
    const before = Date.now();
    const slots = cronSlots('*/10 * * * * *');
    const cron = require('node-cron') as typeof import('node-cron');
    const registered = cron.getTasks().size;
    const slot = slots.next(before);
    expect(slot % 10_000).toBe(0);
    expect(slot).toBeGreaterThan(before);
    expect(slot - before).toBeLessThanOrEqual(10_000);
    slots.dispose!();
    expect(cron.getTasks().size).toBe(registered - 1);
  });
});
