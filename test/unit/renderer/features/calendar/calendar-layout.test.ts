import { describe, expect, it } from 'vitest';
import {
  addLocalDays,
  assignColumns,
  daysOf,
  DEFAULT_WORKING_HOURS,
  freeBands,
  layoutAllDay,
  layoutDay,
  localInputToIso,
  nowMinute,
  parseClock,
  parseEventTime,
  parseWorkDays,
  startOfWeek,
  step,
  toLocalInput,
  type Span,
} from '../../../../../src-renderer/features/calendar/layout';

/** Local time on 2026-11-<day> (a Monday is the 23rd). */
const at = (day: number, h: number, m = 0) => new Date(2026, 10, day, h, m).getTime();
const ev = (id: string, start: number, end: number, allDay = false): Span => ({ id, start, end, allDay });
const MON = at(23, 0);

describe('calendar days', () => {
  it('starts the week on Monday and steps by weeks or days', () => {
    expect(startOfWeek(at(26, 15))).toBe(MON);
    expect(startOfWeek(at(29, 23, 59))).toBe(MON); // Sunday belongs to the week before it
    expect(startOfWeek(MON)).toBe(MON);
    const week = daysOf(at(25, 12), 'week');
    expect(week).toHaveLength(7);
    expect(week[0]).toBe(MON);
    expect(week[6]).toBe(at(29, 0));
    expect(daysOf(at(25, 12), 'day')).toEqual([at(25, 0)]);
    expect(step(MON, 'week', -1)).toBe(at(16, 0));
    expect(step(MON, 'day', 3)).toBe(at(26, 0));
    // Across a month and a year.
    expect(addLocalDays(new Date(2026, 11, 30).getTime(), 3)).toBe(new Date(2027, 0, 2).getTime());
  });
});

describe('overlapping events in columns', () => {
  it('gives events that do not overlap the whole width', () => {
    const cols = assignColumns([ev('a', at(23, 9), at(23, 10)), ev('b', at(23, 10), at(23, 11))]);
    expect(cols.get('a')).toEqual({ col: 0, cols: 1 });
    expect(cols.get('b')).toEqual({ col: 0, cols: 1 });
  });

  it('puts overlapping events side by side and reuses a column freed inside the cluster', () => {
    // a 9–12 overlaps b 9:30–10 and c 10:30–11; b and c do not overlap each other: two columns.
    const cols = assignColumns([ev('c', at(23, 10, 30), at(23, 11)), ev('b', at(23, 9, 30), at(23, 10)), ev('a', at(23, 9), at(23, 12))]);
    expect(cols.get('a')).toEqual({ col: 0, cols: 2 });
    expect(cols.get('b')).toEqual({ col: 1, cols: 2 });
    expect(cols.get('c')).toEqual({ col: 1, cols: 2 });
  });

  it('counts columns per cluster: a later, separate event is not narrowed by an earlier crowd', () => {
    const cols = assignColumns([ev('a', at(23, 9), at(23, 10)), ev('b', at(23, 9), at(23, 10)), ev('c', at(23, 9), at(23, 10)), ev('d', at(23, 14), at(23, 15))]);
    expect([...['a', 'b', 'c'].map((id) => cols.get(id)!.col)].sort()).toEqual([0, 1, 2]);
    expect(cols.get('a')!.cols).toBe(3);
    expect(cols.get('d')).toEqual({ col: 0, cols: 1 });
  });

  it('gives a zero-length event room of its own beside one starting at the same time', () => {
    const cols = assignColumns([ev('zero', at(23, 9), at(23, 9)), ev('b', at(23, 9), at(23, 10))]);
    expect(cols.get('zero')!.cols).toBe(2);
    expect(cols.get('zero')!.col).not.toBe(cols.get('b')!.col);
  });

  it('lays out 500 events of one day, never two overlapping ones in one column', () => {
    const events = Array.from({ length: 500 }, (_, i) => ev(`e${i}`, at(23, 8) + ((i * 37) % 600) * 60_000, at(23, 8) + ((i * 37) % 600) * 60_000 + (15 + (i % 4) * 30) * 60_000));
    const cols = assignColumns(events);
    const clashes: string[] = [];
    for (const a of events)
      for (const b of events) {
        if (a.id >= b.id) continue;
        const overlap = a.start < b.end && b.start < a.end;
        if (overlap && cols.get(a.id)!.col === cols.get(b.id)!.col) clashes.push(`${a.id}/${b.id}`);
      }
    expect(clashes).toEqual([]);
    for (const e of events) expect(cols.get(e.id)!.col).toBeLessThan(cols.get(e.id)!.cols);
  });
});

describe('one day of timed events', () => {
  it('places events in wall-clock minutes, clips those crossing midnight and leaves all-day ones out', () => {
    const placed = layoutDay(
      [
        ev('morning', at(24, 9, 15), at(24, 10)),
        ev('late', at(23, 23), at(24, 1, 30)),
        ev('holiday', at(24, 0), at(25, 0), true),
        ev('conference', at(24, 8), at(26, 17)),
        ev('tomorrow', at(25, 9), at(25, 10)),
      ],
      at(24, 0),
    );
    const byId = Object.fromEntries(placed.map((p) => [p.event.id, p]));
    expect(Object.keys(byId).sort()).toEqual(['late', 'morning']);
    expect(byId['morning']).toMatchObject({ startMin: 9 * 60 + 15, endMin: 600, continuesBefore: false, continuesAfter: false });
    expect(byId['late']).toMatchObject({ startMin: 0, endMin: 90, continuesBefore: true });
    // The late one crossing into the day is clipped to the day's first 90 minutes, before the morning one: no overlap.
    expect(byId['late']!.cols).toBe(1);
  });

  it('ends an event that runs past midnight at the bottom of the day', () => {
    const [p] = layoutDay([ev('night', at(24, 22), at(25, 2))], at(24, 0));
    expect(p).toMatchObject({ startMin: 22 * 60, endMin: 24 * 60, continuesAfter: true });
  });
});

describe('the all-day row', () => {
  const week = daysOf(MON, 'week');

  it('spans each all-day or multi-day event over its days, exclusive end, in the fewest lanes', () => {
    const { placed, lanes } = layoutAllDay(
      [
        ev('tue', at(24, 0), at(25, 0), true),
        ev('tue-thu', at(24, 0), at(27, 0), true),
        ev('fri', at(27, 0), at(28, 0), true),
        ev('trip', at(20, 12), at(24, 18)), // began the week before, timed, over a day long
        ev('next-week', at(30, 0), at(31, 0), true),
        ev('short', at(24, 9), at(24, 10)),
      ],
      week,
    );
    const byId = Object.fromEntries(placed.map((p) => [p.event.id, p]));
    expect(Object.keys(byId).sort()).toEqual(['fri', 'trip', 'tue', 'tue-thu']);
    expect(byId['tue']).toMatchObject({ first: 1, last: 1 });
    expect(byId['tue-thu']).toMatchObject({ first: 1, last: 3 });
    expect(byId['fri']).toMatchObject({ first: 4, last: 4 });
    expect(byId['trip']).toMatchObject({ first: 0, last: 1 });
    // trip (Mon–Tue), tue-thu and tue all meet on Tuesday: three lanes; Friday reuses the first free one.
    expect(lanes).toBe(3);
    expect(new Set([byId['trip']!.lane, byId['tue-thu']!.lane, byId['tue']!.lane]).size).toBe(3);
    expect(byId['fri']!.lane).toBe(0);
  });

  it('cuts an event running past the shown days at the last day, and shows a one-day view', () => {
    const { placed } = layoutAllDay([ev('long', at(28, 0), at(40, 0), true)], week);
    expect(placed[0]).toMatchObject({ first: 5, last: 6 });
    const day = layoutAllDay([ev('long', at(20, 0), at(40, 0), true)], [at(25, 0)]);
    expect(day.placed[0]).toMatchObject({ first: 0, last: 0, lane: 0 });
  });
});

describe('free time in working hours', () => {
  it('is the working hours minus busy time, nothing on a day off', () => {
    const busy = [
      { start: at(24, 10), end: at(24, 11) },
      { start: at(24, 8), end: at(24, 9, 30) }, // starts before work
      { start: at(24, 12), end: at(24, 16, 57) }, // leaves a 3-minute sliver after it, dropped
    ];
    expect(freeBands(busy, at(24, 0), DEFAULT_WORKING_HOURS)).toEqual([
      { startMin: 9 * 60 + 30, endMin: 10 * 60 },
      { startMin: 11 * 60, endMin: 12 * 60 },
    ]);
    expect(freeBands([], at(28, 0), DEFAULT_WORKING_HOURS)).toEqual([]); // Saturday
    expect(freeBands([], at(28, 0), { ...DEFAULT_WORKING_HOURS, days: [6] })).toEqual([{ startMin: 540, endMin: 1020 }]);
  });

  it('never shows free time in the past, and none for unreadable hours', () => {
    expect(freeBands([], at(24, 0), DEFAULT_WORKING_HOURS, at(24, 13, 20))).toEqual([{ startMin: 13 * 60 + 20, endMin: 17 * 60 }]);
    expect(freeBands([], at(24, 0), DEFAULT_WORKING_HOURS, at(25, 8))).toEqual([]);
    expect(freeBands([], at(24, 0), { ...DEFAULT_WORKING_HOURS, start: '18:00' })).toEqual([]);
    expect(freeBands([], at(24, 0), { ...DEFAULT_WORKING_HOURS, end: 'five' })).toEqual([]);
  });

  it('reads working hours and days as settings may hold them', () => {
    expect(parseClock('09:00')).toBe(540);
    expect(parseClock('24:00')).toBe(1440);
    expect(parseClock('9:5')).toBeNull();
    expect(parseClock('25:00')).toBeNull();
    expect(parseWorkDays(['mon', 'Tue', 'wednesday', 4, 5])).toEqual([1, 2, 3, 4, 5]);
    expect(parseWorkDays('Mon-Fri')).toEqual([1, 2, 3, 4, 5]);
    expect(parseWorkDays('fri-mon')).toEqual([0, 1, 5, 6]);
    expect(parseWorkDays([7, 'sat'])).toEqual([0, 6]);
    expect(parseWorkDays(['xx', {}, null, 9])).toBeNull();
    expect(parseWorkDays({ length: 3 })).toBeNull();
  });
});

describe('times', () => {
  it('puts the now line in today only', () => {
    expect(nowMinute(at(24, 13, 30), at(24, 0))).toBe(13 * 60 + 30);
    expect(nowMinute(at(25, 0), at(24, 0))).toBeNull();
    expect(nowMinute(at(23, 23, 59), at(24, 0))).toBeNull();
  });

  it('reads event times with an offset or as a bare date, and writes form times with the local offset', () => {
    expect(parseEventTime('2026-11-24T10:00:00Z')).toBe(Date.UTC(2026, 10, 24, 10));
    expect(parseEventTime('2026-11-24T10:00:00+02:00')).toBe(Date.UTC(2026, 10, 24, 8));
    expect(parseEventTime('2026-11-24')).toBe(at(24, 0));
    expect(parseEventTime('soon')).toBeNaN();
    const iso = localInputToIso('2026-11-24T10:30')!;
    expect(iso).toMatch(/^2026-11-24T10:30:00[+-]\d{2}:\d{2}$/);
    expect(Date.parse(iso)).toBe(at(24, 10, 30));
    expect(toLocalInput(at(24, 10, 30))).toBe('2026-11-24T10:30');
    expect(localInputToIso('2026-13-01T10:00')).toBeNull();
    expect(localInputToIso('2026-11-24T25:00')).toBeNull();
    expect(localInputToIso('')).toBeNull();
    expect(localInputToIso('2026-11-24T10:00Z; drop table')).toBeNull();
  });
});
