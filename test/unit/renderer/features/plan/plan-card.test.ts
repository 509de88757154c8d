import { describe, expect, it, onTestFinished } from 'vitest';
import { toLocalInput } from '../../../../../src-renderer/features/calendar/layout';
import { daySpan, missedLine, planEdits, replanSpan, rowsFromPlan, timelineOf, type PlanRow } from '../../../../../src-renderer/features/plan/model';
import { setDisplayLocale } from '../../../../../src-renderer/lib/when';

import type { ShownPlan } from '../../../../../src-shared/plan';

const PLAN: ShownPlan = {
  from: '2035-03-05T00:00:00Z',
  to: '2035-03-06T00:00:00Z',
  blocks: [
    { task_id: 't1', task: 'Write report', start: '2035-03-05T09:00:00Z', end: '2035-03-05T10:00:00Z', reason: 'p1; first free hour after 09:00' },
    { task_id: 't2', task: 'Call the bank', start: '2035-03-05T10:10:00Z', end: '2035-03-05T10:40:00Z', reason: 'p3', pinned: true, event_id: 'e7' },
  ],
  unplaced: [{ task_id: 't3', task: 'Taxes', reason: 'needs 3 h, 1 h 20 free' }],
  summary: { neededMin: 270, freeMin: 100, unplacedMin: 180, overloaded: true, text: '4 h 30 of tasks, 1 h 40 free' },
};

describe('the plan card as data', () => {
  it('shows the blocks as rows in local time and sends nothing when untouched', () => {
    const rows = rowsFromPlan(PLAN);
    expect(rows.map((r) => [r.task, r.start, r.end, r.pinned, r.dropped])).toEqual([
      ['Write report', toLocalInput(Date.parse('2035-03-05T09:00:00Z')), toLocalInput(Date.parse('2035-03-05T10:00:00Z')), false, false],
      ['Call the bank', toLocalInput(Date.parse('2035-03-05T10:10:00Z')), toLocalInput(Date.parse('2035-03-05T10:40:00Z')), true, false],
    ]);
    const e = planEdits(rows);
    expect(e.changed).toBe(false);
    expect(e.problem).toBeNull();
    // The core's exact times, the pin and the existing event kept.
    expect(e.blocks).toEqual([
      { task_id: 't1', start: '2035-03-05T09:00:00Z', end: '2035-03-05T10:00:00Z' },
      { task_id: 't2', start: '2035-03-05T10:10:00Z', end: '2035-03-05T10:40:00Z', pinned: true, event_id: 'e7' },
    ]);
  });

  it('sends a moved time, a pin and a drop', () => {
    const rows = rowsFromPlan(PLAN);
    const moved = toLocalInput(Date.parse('2035-03-05T13:00:00Z'));
    const movedEnd = toLocalInput(Date.parse('2035-03-05T14:00:00Z'));
    const e = planEdits([{ ...rows[0]!, start: moved, end: movedEnd, pinned: true }, { ...rows[1]!, dropped: true }]);
    expect(e.changed).toBe(true);
    expect(e.problem).toBeNull();
    expect(e.blocks).toHaveLength(1);
    expect(Date.parse(e.blocks![0]!.start)).toBe(Date.parse('2035-03-05T13:00:00Z'));
    expect(Date.parse(e.blocks![0]!.end)).toBe(Date.parse('2035-03-05T14:00:00Z'));
    expect(e.blocks![0]!.pinned).toBe(true);
    expect(planEdits(rows.map((r) => ({ ...r, pinned: !r.pinned }))).changed).toBe(true);
  });

  it('holds back an empty, malformed or backwards time, naming the task', () => {
    const rows = rowsFromPlan(PLAN);
    expect(planEdits([{ ...rows[0]!, start: '' }])).toMatchObject({ blocks: null, problem: 'Write report: enter the start’s date and time'.replace('’', "'") });
    expect(planEdits([{ ...rows[0]!, end: '2035-13-45T99:99' }]).problem).toBe("Write report: enter the end's date and time");
    expect(planEdits([{ ...rows[0]!, start: '<script>alert(1)</script>'.repeat(1000) }]).blocks).toBeNull();
    expect(planEdits([{ ...rows[0]!, end: rows[0]!.start }]).problem).toBe('Write report: the end must be after the start');
  });

  it('handles a huge plan and one whose times the renderer cannot read', () => {
    const many: ShownPlan = { ...PLAN, blocks: Array.from({ length: 2000 }, (_, i) => ({ ...PLAN.blocks[0]!, task_id: `t${i}` })) };
    expect(planEdits(rowsFromPlan(many)).blocks).toHaveLength(2000);
    const odd: ShownPlan = { ...PLAN, blocks: [{ ...PLAN.blocks[0]!, start: 'garbage' }] };
    const rows = rowsFromPlan(odd);
    expect(rows[0]!.start).toBe('');
    expect(planEdits(rows).blocks).toBeNull();
  });

  it('plans the rest of today from now, or the whole of tomorrow, in local time', () => {
    const now = new Date(2035, 2, 5, 23, 50).getTime();
    const today = daySpan('today', now);
    expect(Date.parse(today.from)).toBe(new Date(2035, 2, 5, 23, 50).getTime());
    expect(Date.parse(today.to)).toBe(new Date(2035, 2, 6).getTime());
    const tomorrow = daySpan('tomorrow', now);
    expect(Date.parse(tomorrow.from)).toBe(new Date(2035, 2, 6).getTime());
    expect(Date.parse(tomorrow.to)).toBe(new Date(2035, 2, 7).getTime());
  });

  it('draws the rows on one axis of hours per day, as edited, without the dropped ones', () => {
    setDisplayLocale('en-GB');
    onTestFinished(() => setDisplayLocale(undefined));
    const row = (task: string, start: string, end: string, over: Partial<PlanRow> = {}): PlanRow => ({
      task_id: task, task, reason: '', late: false, origStart: start, origEnd: end, origPinned: false, start, end, pinned: false, dropped: false, ...over,
    });
    const t = timelineOf(
      [
        row('Write report', '2035-03-05T09:00', '2035-03-05T10:30'),
        row('Call the bank', '2035-03-05T14:15', '2035-03-05T14:45', { pinned: true }),
        row('Dropped', '2035-03-05T06:00', '2035-03-05T07:00', { dropped: true }),
        row('Taxes', '2035-03-06T23:00', '2035-03-07T01:00', { late: true }),
        row('Unreadable', '', '2035-03-05T10:00'),
        row('Backwards', '2035-03-05T12:00', '2035-03-05T11:00'),
      ],
      (day) => `day ${day}`,
    );
    expect(t.days.map((d) => [d.day, d.fromH, d.toH])).toEqual([
      ['2035-03-05', 9, 15],
      ['2035-03-06', 20, 24],
    ]);
    const [first, second] = t.days;
    expect(first!.ticks).toEqual([9, 10, 11, 12, 13, 14, 15]);
    expect(first!.marks).toEqual(['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00']);
    expect(second!.marks).toEqual(['20:00', '21:00', '22:00', '23:00', '24:00']);
    expect(first!.blocks.map((b) => [b.task, b.time, b.left, b.width, b.pinned])).toEqual([
      ['Write report', '09:00–10:30', 0, 25, false],
      ['Call the bank', '14:15–14:45', 87.5, (0.5 / 6) * 100, true],
    ]);
    // Past midnight: drawn to the end of its first day.
    expect(second!.blocks.map((b) => [b.time, b.late])).toEqual([['23:00–24:00', true]]);
    expect(t.label).toBe('Timeline of the plan: day 2035-03-05, Write report 09:00–10:30, Call the bank 14:15–14:45 (pinned); day 2035-03-06, Taxes 23:00–24:00 (late)');
    expect(timelineOf([]).days).toEqual([]);
    // A whole day: ticks every three hours, 2,000 rows drawn.
    const many = Array.from({ length: 2000 }, (_, i) => row(`t${i}`, '2035-03-05T00:00', '2035-03-05T23:59'));
    const day = timelineOf(many).days[0]!;
    expect(day.ticks).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24]);
    expect(day.blocks).toHaveLength(2000);
  });

  it("marks the axis and the blocks' times in the locale's clock, the day's end included", () => {
    onTestFinished(() => setDisplayLocale(undefined));
    const row = (task: string, start: string, end: string): PlanRow => ({
      task_id: task, task, reason: '', late: false, origStart: start, origEnd: end, origPinned: false, start, end, pinned: false, dropped: false,
    });
    const rows = [row('Write report', '2035-03-05T08:00', '2035-03-05T10:30'), row('Taxes', '2035-03-05T22:45', '2035-03-06T01:00')];
    setDisplayLocale('en-US');
    const us = timelineOf(rows, (day) => `day ${day}`).days[0]!;
    expect(us.marks).toEqual(['8 AM', '10 AM', '12 PM', '2 PM', '4 PM', '6 PM', '8 PM', '10 PM', '12 AM']);
    expect(us.blocks.map((b) => b.time)).toEqual(['8:00 AM–10:30 AM', '10:45 PM–12:00 AM']);
    setDisplayLocale('en-GB');
    const gb = timelineOf(rows, (day) => `day ${day}`).days[0]!;
    expect(gb.marks).toEqual(['08:00', '10:00', '12:00', '14:00', '16:00', '18:00', '20:00', '22:00', '24:00']);
    expect(gb.blocks.map((b) => b.time)).toEqual(['08:00–10:30', '22:45–24:00']);
    // the day's own label follows the display locale too
    expect(timelineOf(rows).days[0]!.label).toBe('Mon 5 Mar');
  });

  it('says how many blocks were missed and of which tasks, and re-plans them from now to the end of tomorrow', () => {
    const m = (task_id: string, task: string) => ({ task_id, task });
    expect(missedLine([m('t1', 'Call the plumber')])).toEqual({ text: '1 planned block was missed: Call the plumber', taskIds: ['t1'] });
    expect(missedLine([m('t1', 'A'), m('t2', 'B'), m('t1', 'A'), m('t3', 'C'), m('t4', '<b>D</b>')])).toEqual({
      text: '5 planned blocks were missed: A, B, C and 1 more',
      taskIds: ['t1', 't2', 't3', 't4'],
    });
    const now = new Date(2035, 2, 5, 23, 50).getTime();
    const span = replanSpan(now);
    expect(Date.parse(span.from)).toBe(now);
    expect(Date.parse(span.to)).toBe(new Date(2035, 2, 7).getTime());
  });
});
