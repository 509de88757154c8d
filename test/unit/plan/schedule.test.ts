// The planner's scheduler: plain data in, plan out. Every date is fixed (2035) with an injected `now`,
// so the tests hold on any day and at any time of day.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deadlineEnd, duration, freeWindows, schedule, type PlanInput, type PlanTask } from '../../../src-main/core/plan/schedule';
import { wallAt, wallToUtc, weekday } from '../../../src-main/core/calendar/zones';
import type { Weekday } from '../../../src-shared/calendar';

const ZONE = 'Europe/Berlin';
const MIN = 60_000;
const HOUR = 60 * MIN;
/** Monday 2035-01-08 00:00 in Berlin. */
const MONDAY = wallToUtc({ y: 2035, m: 1, d: 8, h: 0, mi: 0, s: 0 }, ZONE);
const at = (day: number, h: number, mi = 0): number => wallToUtc({ y: 2035, m: 1, d: 8 + day, h, mi, s: 0 }, ZONE);
const WORK: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri'];

const task = (id: string, over: Partial<PlanTask> = {}): PlanTask => ({ id, title: `Task ${id}`, priority: 4, deadline: null, durationMin: 60, createdAt: '2034-12-01T10:00:00.000Z', ...over });

const base = (over: Partial<PlanInput> = {}): PlanInput => ({
  tasks: [],
  busy: [],
  fromMs: MONDAY,
  toMs: at(5, 0),
  now: MONDAY - HOUR,
  zone: ZONE,
  workStart: '09:00',
  workEnd: '17:00',
  workDays: WORK,
  minBlockMin: 25,
  bufferMin: 5,
  defaultDurationMin: 30,
  split: true,
  ...over,
});

describe('schedule', () => {
  it('places a task in the first free working time, with a one-line reason', () => {
    const plan = schedule(base({ tasks: [task('t1', { priority: 1 })] }));
    expect(plan.blocks).toHaveLength(1);
    expect(plan.blocks[0]).toMatchObject({ taskId: 't1', startMs: at(0, 9), endMs: at(0, 10), pinned: false, late: false });
    expect(plan.blocks[0]!.reason).toBe('p1; first free 8 h after 09:00');
    expect(plan.unplaced).toEqual([]);
  });

  it('goes around busy time and never across it, keeping a buffer between blocks', () => {
    const plan = schedule(base({ tasks: [task('t1'), task('t2', { durationMin: 30 })], busy: [[at(0, 9, 30), at(0, 11)]] }));
    // 09:00–09:30 is too short for the 60-minute task; the 30-minute one fits there exactly.
    expect(plan.blocks.map((b) => [b.taskId, b.startMs, b.endMs])).toEqual([
      ['t2', at(0, 9), at(0, 9, 30)],
      ['t1', at(0, 11), at(0, 12)],
    ]);
    const second = schedule(base({ tasks: [task('t1'), task('t2')] }));
    expect(second.blocks[1]!.startMs - second.blocks[0]!.endMs).toBe(5 * MIN);
  });

  it('orders by deadline, then priority, then age', () => {
    const plan = schedule(
      base({
        tasks: [
          task('young', { priority: 1, createdAt: '2035-01-01T00:00:00Z' }),
          task('old', { priority: 1, createdAt: '2034-01-01T00:00:00Z' }),
          task('p4due', { priority: 4, deadline: '2035-01-12' }),
          task('p2', { priority: 2 }),
        ],
      }),
    );
    expect(plan.blocks.map((b) => b.taskId)).toEqual(['p4due', 'old', 'young', 'p2']);
  });

  it('never plans in the past: from now on, on a 5-minute grid', () => {
    const plan = schedule(base({ tasks: [task('t1')], now: at(0, 10, 2) }));
    expect(plan.blocks[0]!.startMs).toBe(at(0, 10, 5));
  });

  it('skips days off and keeps inside working hours', () => {
    const plan = schedule(base({ tasks: [task('t1', { durationMin: 120 })], fromMs: at(5, 0), toMs: at(8, 0), now: at(5, 0) }));
    // Saturday and Sunday are off: Monday 09:00.
    expect(plan.blocks[0]!.startMs).toBe(at(7, 9));
  });

  it('splits a long task into chunks of at least the minimum, or keeps it whole when splitting is off', () => {
    const busy: [number, number][] = [[at(0, 10), at(0, 11)]];
    const split = schedule(base({ tasks: [task('t1', { durationMin: 90 })], busy, toMs: at(0, 12), now: at(0, 9) }));
    expect(split.blocks.map((b) => (b.endMs - b.startMs) / MIN)).toEqual([60, 30]);
    expect(split.blocks[0]!.reason).toContain('part 1 of 2');
    const whole = schedule(base({ tasks: [task('t1', { durationMin: 90 })], busy, toMs: at(0, 12), now: at(0, 9), split: false }));
    expect(whole.blocks).toEqual([]);
    expect(whole.unplaced[0]!.reason).toBe('needs 1 h 30 in one piece; the longest free stretch is 1 h (splitting is off)');
  });

  it('never leaves a chunk shorter than the minimum block', () => {
    // 09:00–09:40 free, then busy, then 10:00–12:00: 70 minutes must not become 40 + 30 with a 20-minute tail…
    const plan = schedule(base({ tasks: [task('t1', { durationMin: 70 })], busy: [[at(0, 9, 40), at(0, 10)], [at(0, 10, 30), at(0, 17)]], toMs: at(0, 17), now: at(0, 9) }));
    for (const b of plan.blocks) expect(b.endMs - b.startMs).toBeGreaterThanOrEqual(25 * MIN);
    expect(plan.blocks.reduce((n, b) => n + b.endMs - b.startMs, 0)).toBe(70 * MIN);
  });

  it('reports a task that cannot meet its deadline, with how much is free before it', () => {
    const plan = schedule(base({ tasks: [task('t1', { durationMin: 180, deadline: '2035-01-08' })], busy: [[at(0, 9), at(0, 15, 40)]] }));
    expect(plan.blocks).toEqual([]);
    expect(plan.unplaced).toEqual([{ taskId: 't1', reason: 'needs 3 h, 1 h 20 free before its deadline 2035-01-08' }]);
    // The day is in machine form: the window and the CLI show it in the reader's locale (readable-dates.ts).
  });

  it('places a task whose deadline has passed as early as it can, marked late', () => {
    const plan = schedule(base({ tasks: [task('t1', { deadline: '2035-01-05' })] }));
    expect(plan.blocks[0]).toMatchObject({ late: true, startMs: at(0, 9) });
    expect(plan.blocks[0]!.reason).toContain('late: its deadline 2035-01-05 has passed');
  });

  it('uses the default duration for a task without one, and says so', () => {
    const plan = schedule(base({ tasks: [task('t1', { durationMin: null })] }));
    expect(plan.blocks[0]!.endMs - plan.blocks[0]!.startMs).toBe(30 * MIN);
    expect(plan.blocks[0]!.reason).toContain('no duration set, 30 min assumed');
  });

  it('keeps pinned blocks where they are and counts them toward their task', () => {
    const pinned = [{ taskId: 't1', startMs: at(0, 14), endMs: at(0, 14, 30) }];
    const plan = schedule(base({ tasks: [task('t1'), task('t2', { durationMin: 480 - 30 - 10 - 30 })], pinned, split: true }));
    const p = plan.blocks.find((b) => b.pinned)!;
    expect(p).toMatchObject({ taskId: 't1', startMs: at(0, 14), endMs: at(0, 14, 30) });
    const t1 = plan.blocks.filter((b) => b.taskId === 't1');
    expect(t1.reduce((n, b) => n + b.endMs - b.startMs, 0)).toBe(60 * MIN);
  });

  it('says honestly how overloaded the range is and what to move', () => {
    const tasks = Array.from({ length: 7 }, (_, i) => task(`t${i + 1}`, { durationMin: 60 }));
    const plan = schedule(base({ tasks, busy: [[at(0, 9), at(0, 12, 30)]], toMs: at(1, 0) }));
    expect(plan.summary.text.startsWith('7 h of tasks, 4 h 30 free; ')).toBe(true);
    expect(plan.summary.overloaded).toBe(true);
    expect(plan.summary.text).toContain('to a later day');
    expect(plan.blocks.length + plan.unplaced.length).toBe(7);
  });

  it('survives hostile input: duplicate ids, zero and huge durations, malformed deadlines, empty hours', () => {
    const plan = schedule(
      base({
        tasks: [task('t1'), task('t1'), task('t2', { durationMin: 0 }), task('t3', { durationMin: 7 * 24 * 60 }), task('t4', { deadline: 'not a date' })],
      }),
    );
    expect(new Set([...plan.blocks.map((b) => b.taskId), ...plan.unplaced.map((u) => u.taskId)])).toEqual(new Set(['t1', 't2', 't3', 't4']));
    expect(schedule(base({ tasks: [task('t1')], workStart: '17:00', workEnd: '09:00' })).unplaced).toHaveLength(1);
  });

  it('formats durations', () => {
    expect([duration(45), duration(180), duration(80), duration(0)]).toEqual(['45 min', '3 h', '1 h 20', '0 min']);
    expect(deadlineEnd('2035-01-08', ZONE)).toBe(at(1, 0));
    expect(deadlineEnd('junk', ZONE)).toBeNull();
  });
});

// --- properties --------------------------------------------------------------------------------------

const arbInput = fc
  .record({
    tasks: fc.array(
      fc.record({
        priority: fc.integer({ min: 1, max: 4 }),
        deadlineDay: fc.option(fc.integer({ min: -3, max: 16 }), { nil: null }),
        durationMin: fc.option(fc.integer({ min: 5, max: 600 }), { nil: null }),
        age: fc.integer({ min: 0, max: 1000 }),
      }),
      { maxLength: 25 },
    ),
    busy: fc.array(fc.record({ day: fc.integer({ min: -1, max: 15 }), startMin: fc.integer({ min: 0, max: 24 * 60 - 5 }), len: fc.integer({ min: 5, max: 600 }) }), { maxLength: 40 }),
    nowMin: fc.integer({ min: -24 * 60, max: 5 * 24 * 60 }),
    days: fc.integer({ min: 1, max: 14 }),
    workStart: fc.constantFrom('07:30', '09:00', '10:15'),
    workEnd: fc.constantFrom('12:00', '17:00', '23:55'),
    workDays: fc.subarray(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as Weekday[], { minLength: 1 }),
    minBlockMin: fc.integer({ min: 10, max: 60 }),
    bufferMin: fc.integer({ min: 0, max: 20 }),
    split: fc.boolean(),
    pinnedCount: fc.integer({ min: 0, max: 3 }),
  })
  .map((r): PlanInput => {
    const tasks = r.tasks.map((t, i): PlanTask => {
      const d = t.deadlineDay === null ? null : wallAt(MONDAY + t.deadlineDay * 86_400_000 + 12 * HOUR, ZONE);
      return {
        id: `t${i + 1}`,
        title: `Task ${i + 1}`,
        priority: t.priority,
        deadline: d ? `${d.y}-${String(d.m).padStart(2, '0')}-${String(d.d).padStart(2, '0')}` : null,
        durationMin: t.durationMin,
        createdAt: new Date(Date.UTC(2034, 0, 1) + t.age * HOUR).toISOString(),
      };
    });
    const busy = r.busy.map((b): [number, number] => {
      const s = MONDAY + b.day * 86_400_000 + b.startMin * MIN;
      return [s, s + b.len * MIN];
    });
    const now = MONDAY + r.nowMin * MIN;
    const toMs = MONDAY + r.days * 86_400_000;
    // Pinned blocks: hours on the first days, for the first tasks.
    const pinned = tasks.slice(0, r.pinnedCount).map((t, i) => ({ taskId: t.id, startMs: at(i, 8), endMs: at(i, 8, 30) }));
    return base({ tasks, busy, now, toMs, workStart: r.workStart, workEnd: r.workEnd, workDays: r.workDays, minBlockMin: r.minBlockMin, bufferMin: r.bufferMin, split: r.split, pinned });
  });

describe('schedule, split chunks', () => {
  it('keeps the buffer between two chunks of one task when a short busy event sits between them (a case fast-check found)', () => {
    const input: PlanInput = {
      ...base(),
      tasks: [{ id: 't1', title: 'Task 1', priority: 1, deadline: null, durationMin: 256, createdAt: '2034-01-01T00:00:00.000Z' }],
      busy: [[2052024000000, 2052024300000]],
      fromMs: 2051823600000,
      toMs: 2052082800000,
      now: 2051823600000,
      zone: 'Europe/Berlin',
      workStart: '07:30',
      workEnd: '12:00',
      workDays: ['wed', 'sat'],
      minBlockMin: 10,
      bufferMin: 6,
      defaultDurationMin: 30,
      split: true,
      pinned: [],
    };
    const plan = schedule(input);
    const blocks = [...plan.blocks].sort((a, b) => a.startMs - b.startMs);
    expect(blocks.reduce((n, b) => n + b.endMs - b.startMs, 0)).toBe(256 * MIN);
    expect(blocks.length).toBeGreaterThan(1);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.startMs - blocks[i - 1]!.endMs).toBeGreaterThanOrEqual(6 * MIN);
  });
});

describe('schedule, properties', () => {
  it('no block overlaps busy time or another block; blocks keep the buffer; inside working hours, never in the past', () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        const plan = schedule(input);
        const moving = plan.blocks.filter((b) => !b.pinned);
        const work = freeWindows(input, Math.max(input.now, input.fromMs), input.toMs, []);
        for (const b of moving) {
          expect(b.endMs).toBeGreaterThan(b.startMs);
          expect(b.startMs).toBeGreaterThanOrEqual(input.now);
          expect(b.endMs).toBeLessThanOrEqual(input.toMs);
          for (const [s, e] of input.busy) expect(b.endMs <= s || b.startMs >= e).toBe(true);
          // Inside one working window (so never across a day's end or a day off).
          expect(work.some(([s, e]) => b.startMs >= s && b.endMs <= e)).toBe(true);
          const w = wallAt(b.startMs, ZONE);
          expect(input.workDays).toContain((['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const)[weekday(w)]);
        }
        const all = [...plan.blocks].sort((a, b) => a.startMs - b.startMs);
        for (let i = 1; i < all.length; i++) {
          const gap = all[i]!.startMs - all[i - 1]!.endMs;
          if (all[i]!.pinned && all[i - 1]!.pinned) expect(gap).toBeGreaterThanOrEqual(0);
          else expect(gap).toBeGreaterThanOrEqual(input.bufferMin * MIN);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('every task is placed in full or reported; chunks respect the minimum; deadlines are met unless reported late', () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        const plan = schedule(input);
        for (const t of input.tasks) {
          const mine = plan.blocks.filter((b) => b.taskId === t.id);
          const reported = plan.unplaced.filter((u) => u.taskId === t.id);
          const placedMs = mine.reduce((n, b) => n + b.endMs - b.startMs, 0);
          const want = (t.durationMin ?? input.defaultDurationMin) * MIN;
          const pinnedMs = mine.filter((b) => b.pinned).reduce((n, b) => n + b.endMs - b.startMs, 0);
          if (reported.length) {
            expect(reported).toHaveLength(1);
            expect(reported[0]!.reason).toMatch(/^needs /);
            expect(mine.filter((b) => !b.pinned)).toEqual([]);
          } else expect(placedMs).toBe(Math.max(want, pinnedMs));
          const moving = mine.filter((b) => !b.pinned);
          if (moving.length > 1) for (const b of moving) expect(b.endMs - b.startMs).toBeGreaterThanOrEqual(input.minBlockMin * MIN);
          const end = deadlineEnd(t.deadline, ZONE);
          for (const b of moving) {
            expect(b.reason.length).toBeGreaterThan(0);
            expect(b.reason).not.toContain('\n');
            if (end !== null && b.endMs > end) expect(b.late).toBe(true);
            if (b.late) expect(b.reason).toContain('late');
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the same input gives the same plan, whatever the order of tasks and busy time', () => {
    fc.assert(
      fc.property(arbInput, (input) => {
        const a = schedule(input);
        const b = schedule({ ...input, tasks: [...input.tasks].reverse(), busy: [...input.busy].reverse() });
        expect(b).toEqual(a);
      }),
      { numRuns: 100 },
    );
  });
});
