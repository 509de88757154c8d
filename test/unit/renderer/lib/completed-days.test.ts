// The Completed view's day groups: by the local calendar day of `completedAt`, across midnight and a
// daylight-saving change, newest first, with a count per day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../../../src-shared/domain';
import { dayTitle, groupByDay } from '../../../../src-renderer/lib/days';
import { task } from '../fixtures';

const done = (id: string, completedAt: string | null): Task => ({ ...task(id, `Task ${id}`), status: 'done', completedAt });

let tz: string | undefined;
beforeAll(() => {
  tz = process.env.TZ;
  // New York: summer time ended at 02:00 on Sun 1 Nov 2026 (a 25-hour day).
  process.env.TZ = 'America/New_York';
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

describe('completed tasks by local day', () => {
  it('splits at local midnight, not UTC midnight, and names Today and Yesterday', () => {
    const now = new Date('2026-11-20T15:00:00Z'); // Fri 20 Nov, 10:00 in New York
    const { tasks, groups } = groupByDay(
      [
        done('a', '2026-11-20T05:01:00Z'), // 00:01 Fri local
        done('b', '2026-11-20T04:59:00Z'), // 23:59 Thu local (already Friday in UTC)
        done('c', '2026-11-20T14:00:00Z'), // 09:00 Fri
        done('d', '2026-11-18T12:00:00Z'), // Wed
      ],
      now,
    );
    expect(tasks.map((t) => t.id)).toEqual(['c', 'a', 'b', 'd']);
    expect(groups).toEqual([
      { day: '2026-11-20', heading: 'Today', first: 'c', count: 2 },
      { day: '2026-11-19', heading: 'Yesterday', first: 'b', count: 1 },
      { day: '2026-11-18', heading: 'Wed 18 Nov', first: 'd', count: 1 },
    ]);
  });

  it('keeps days whole across the end of summer time', () => {
    // Mon 2 Nov 00:30 local; Sun 1 Nov was 25 hours long, so 24 hours back is still Sunday.
    const now = new Date('2026-11-02T05:30:00Z');
    const { groups } = groupByDay(
      [
        done('mon', '2026-11-02T05:10:00Z'), // Mon 00:10
        done('sun-late', '2026-11-02T04:50:00Z'), // Sun 23:50 (EST)
        done('sun-early', '2026-11-01T04:10:00Z'), // Sun 00:10 (EDT)
        done('sat', '2026-11-01T03:50:00Z'), // Sat 23:50 (EDT)
      ],
      now,
    );
    expect(groups.map((g) => [g.heading, g.count])).toEqual([
      ['Today', 1],
      ['Yesterday', 2],
      ['Sat 31 Oct', 1],
    ]);
    // Late on the 25-hour Sunday, 24 hours back is still Sunday: yesterday is Saturday all the same.
    const sundayNight = new Date('2026-11-02T04:30:00Z'); // Sun 23:30 EST
    expect(dayTitle('2026-11-01', sundayNight)).toBe('Today');
    expect(dayTitle('2026-10-31', sundayNight)).toBe('Yesterday');
    // And the start of summer time (a 23-hour Sun 8 Mar): just after midnight on Monday.
    const mondayEarly = new Date('2026-03-09T04:10:00Z'); // Mon 00:10 EDT
    expect(dayTitle('2026-03-09', mondayEarly)).toBe('Today');
    expect(dayTitle('2026-03-08', mondayEarly)).toBe('Yesterday');
    expect(dayTitle('2026-03-07', mondayEarly)).toBe('Sat 7 Mar');
  });

  it('sorts newest first whatever order the tasks come in; another year shows its year; no time goes last', () => {
    const now = new Date('2026-01-02T17:00:00Z');
    const { tasks, groups } = groupByDay([done('old', '2025-12-31T17:00:00Z'), done('none', null), done('new', '2026-01-02T16:00:00Z'), done('mid', '2026-01-01T17:00:00Z')], now);
    expect(tasks.map((t) => t.id)).toEqual(['new', 'mid', 'old', 'none']);
    expect(groups.map((g) => g.heading)).toEqual(['Today', 'Yesterday', 'Wed 31 Dec 2025', 'Date unknown']);
  });

  it('groups thousands of tasks in one pass with one heading per day', () => {
    const start = Date.parse('2026-11-20T12:00:00Z');
    const many = Array.from({ length: 5000 }, (_, i) => done(`t${i}`, new Date(start - i * 3_600_000).toISOString()));
    const { tasks, groups } = groupByDay(many, new Date(start));
    expect(tasks).toHaveLength(5000);
    expect(groups.reduce((n, g) => n + g.count, 0)).toBe(5000);
    expect(new Set(groups.map((g) => g.day)).size).toBe(groups.length);
    expect(groups.length).toBeGreaterThanOrEqual(208);
    expect(groups.length).toBeLessThanOrEqual(210);
  });
});
