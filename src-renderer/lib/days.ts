/**
 * Completed tasks by the day they were done: `completedAt` is an instant (ISO, UTC), read in the user's
 * local time, so a task done at 00:30 belongs to that day wherever the user is, and the days before a
 * daylight-saving change are still whole days (days are counted by calendar date, never by 24 hours).
 */
import type { Task } from '../../src-shared/domain';
import { isoDay } from './due';

export interface DayGroup {
  /** The local day, 'YYYY-MM-DD'; '' for tasks without a completion time. */
  day: string;
  /** "Today", "Yesterday", "Fri 20 Nov", "Fri 20 Nov 2025" (another year), or "Date unknown". */
  heading: string;
  /** The id of the group's first task, where its heading goes. */
  first: string;
  count: number;
}

// A calendar date is formatted as that date at UTC midnight in UTC, so the time zone cannot move it.
const SHORT = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
const SHORT_YEAR = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** The local calendar day before `day` ('YYYY-MM-DD'). */
function dayBefore(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return isoDay(new Date(y, m - 1, d - 1));
}

/** A day's heading, relative to `now`. */
export function dayTitle(day: string, now: Date): string {
  if (!day) return 'Date unknown';
  const today = isoDay(now);
  if (day === today) return 'Today';
  if (day === dayBefore(today)) return 'Yesterday';
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  // en-GB puts a comma after the weekday when the year is shown: "Wed 31 Dec 2025" reads better without.
  return (y === now.getFullYear() ? SHORT : SHORT_YEAR).format(new Date(Date.UTC(y, m - 1, d))).replace(/,/g, '');
}

/**
 * `tasks` newest done first, and a group for each local day in that order. One pass after the sort, and
 * one date format per day (not per task), so thousands of tasks stay cheap. Ties and tasks without a
 * time keep their order; those without go last.
 */
export function groupByDay(tasks: readonly Task[], now: Date): { tasks: Task[]; groups: DayGroup[] } {
  const at = (t: Task) => (t.completedAt ? Date.parse(t.completedAt) : Number.NaN);
  const keyed = tasks.map((t, i) => ({ t, i, ms: at(t) }));
  keyed.sort((a, b) => {
    const an = Number.isNaN(a.ms);
    const bn = Number.isNaN(b.ms);
    if (an || bn) return an === bn ? a.i - b.i : an ? 1 : -1;
    return b.ms - a.ms || a.i - b.i;
  });
  const groups: DayGroup[] = [];
  let last: DayGroup | undefined;
  for (const { t, ms } of keyed) {
    const day = Number.isNaN(ms) ? '' : isoDay(new Date(ms));
    if (last?.day === day) last.count++;
    else groups.push((last = { day, heading: dayTitle(day, now), first: t.id, count: 1 }));
  }
  return { tasks: keyed.map((k) => k.t), groups };
}
