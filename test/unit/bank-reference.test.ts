// Bank references: SBK, the order's day, then 16 hex digits that sort in the order the Bank made them (wall-clock
// millisecond of the day, a counter within it, 6 random), so new orders land at the bank_reference index's edge.
import { BankReferences } from '../../src/bank/domain/bank-reference';
import { randomHex } from '../../src/wire/random-ids';

const FORMAT = /^SBK\d{8}[0-9A-F]{16}$/;

/** A wall clock the test moves by hand. */
function handClock(startMs: number): { now: () => number; set: (ms: number) => void } {
  let current = startMs;
  return { now: () => current, set: (ms) => (current = ms) };
}

describe('bank references', () => {
  it('are SBK, the order day on its own clock, the wall-clock ms of the day, a counter and 6 random digits', () => {
    const wall = handClock(Date.parse('2026-11-27T12:34:56.789Z'));
    const references = new BankReferences(() => 'ABCDEF', wall.now);
    // An order on a test clock set in 2027: its day is its own, the ordering part is the Bank's wall clock.
    const reference = references.next(Date.parse('2027-01-02T03:04:05Z'));
    const msOfDay = (12 * 3600 + 34 * 60 + 56) * 1000 + 789;
    expect(reference).toBe(`SBK20270102${msOfDay.toString(16).toUpperCase().padStart(7, '0')}000ABCDEF`);
    expect(reference).toMatch(FORMAT);
  });

  it('sort in the order they were made, within one millisecond too', () => {
    const wall = handClock(Date.parse('2026-11-27T00:00:00.000Z'));
    const references = new BankReferences(randomHex, wall.now);
    const made: string[] = [];
    for (let ms = 0; ms < 50; ms += 1) {
      wall.set(Date.parse('2026-11-27T00:00:00.000Z') + ms * 37);
      for (let within = 0; within < 20; within += 1) made.push(references.next(wall.now()));
    }
    expect(made.every((reference) => FORMAT.test(reference))).toBe(true);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it('stay unique when thousands share a frozen wall clock and the random part', () => {
    const references = new BankReferences(() => '000000', () => Date.parse('2026-11-27T08:00:00Z'));
    const made = Array.from({ length: 4096 }, () => references.next(Date.parse('2026-11-27T08:00:00Z')));
    expect(new Set(made).size).toBe(4096);
    expect(made[4095]).toMatch(/FFF000000$/);
  });

  it('start the counter again on each new millisecond', () => {
    const wall = handClock(Date.parse('2026-11-27T00:00:00.005Z'));
    const references = new BankReferences(() => '000000', wall.now);
    references.next(0);
    expect(references.next(0)).toMatch(/^SBK197001010000005001000000$/);
    wall.set(Date.parse('2026-11-27T00:00:00.006Z'));
    expect(references.next(0)).toMatch(/^SBK197001010000006000000000$/);
  });
});
