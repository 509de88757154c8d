import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayHeading, daysBetween, dueLabel, dueParts, isoDay, relativeDay } from '../../../../src-renderer/lib/due';
import { setDisplayLocale } from '../../../../src-renderer/lib/when';

// US words with a 24-hour clock (the times follow the locale: test/unit/renderer/lib/when.test.ts).
beforeAll(() => setDisplayLocale('en-US-u-hc-h23'));
afterAll(() => setDisplayLocale(undefined));

// Monday 23 November 2026, 10:30 local time.
const NOW = new Date(2026, 10, 23, 10, 30);

describe('due dates in words', () => {
  it.each([
    ['2026-11-23', 'today', false],
    ['2026-11-24', 'tomorrow', false],
    ['2026-11-22', 'yesterday', true],
    ['2026-11-27', 'Fri', false],
    ['2026-11-29', 'Sun', false],
    ['2026-11-30', 'Nov 30', false],
    ['2026-11-20', '3 days ago', true],
    ['2026-11-10', 'Nov 10', true],
    ['2027-01-05', 'Jan 5, 2027', false],
    ['2025-12-24', 'Dec 24, 2025', true],
  ])('%s is "%s" (overdue: %s)', (due, text, overdue) => {
    expect(dueLabel(due, NOW)).toMatchObject({ text, overdue });
  });

  it('a time today is overdue once it has passed; a date alone only after its day', () => {
    expect(dueLabel('2026-11-23T09:00', NOW)).toMatchObject({ text: 'today 09:00', overdue: true, today: true });
    expect(dueLabel('2026-11-23T15:00', NOW)).toMatchObject({ text: 'today 15:00', overdue: false, today: true });
    expect(dueLabel('2026-11-23', NOW)).toMatchObject({ overdue: false, today: true });
    expect(dueLabel('2026-11-24T08:15', NOW)?.long).toBe('Due Tuesday, November 24, 2026 at 08:15');
    expect(dueLabel('2026-11-20', NOW)?.long).toBe('Overdue, was due Friday, November 20, 2026');
  });

  it('reads dates as local days, across a month, a year and a DST change', () => {
    expect(daysBetween(new Date(2026, 2, 28, 23), new Date(2026, 2, 30, 1))).toBe(2);
    expect(daysBetween(new Date(2026, 9, 24, 12), new Date(2026, 9, 26, 0))).toBe(2);
    expect(relativeDay(new Date(2027, 0, 1), new Date(2026, 11, 31, 23, 59))).toBe('tomorrow');
    expect(isoDay(new Date(2026, 0, 5))).toBe('2026-01-05');
  });

  it('has nothing to say for no due or something that is not one', () => {
    for (const bad of [null, undefined, '', 'tomorrow', '2026-02-30', '2026-13-01', '26-11-23']) expect(dueLabel(bad, NOW)).toBeNull();
    expect(dueParts('2026-11-23T07:05')).toMatchObject({ time: '07:05' });
  });

  it('heads the days of the Upcoming view', () => {
    expect(dayHeading(new Date(2026, 10, 23), NOW)).toBe('Today · Mon Nov 23');
    expect(dayHeading(new Date(2026, 10, 24), NOW)).toBe('Tomorrow · Tue Nov 24');
    expect(dayHeading(new Date(2026, 10, 26), NOW)).toBe('Thursday · Nov 26');
  });
});
