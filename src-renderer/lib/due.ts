/**
 * Due dates in words, relative to now: "today", "tomorrow", "Fri", "3 days ago", "Dec 24". A due is
 * `YYYY-MM-DD` or a local `YYYY-MM-DDTHH:MM` (src-shared/domain.ts); both are read as local calendar
 * dates, never through UTC, so "2026-11-23" is the 23rd wherever the user is.
 */

import { clockOf, dateFormat } from './when';

// In the display locale (src-renderer/lib/when.ts), made when used, so a locale set later applies.
const WEEKDAY = { format: (d: Date) => dateFormat({ weekday: 'short' }).format(d) };
const WEEKDAY_LONG = { format: (d: Date) => dateFormat({ weekday: 'long' }).format(d) };
const MONTH_DAY = { format: (d: Date) => dateFormat({ month: 'short', day: 'numeric' }).format(d) };
const MONTH_DAY_YEAR = { format: (d: Date) => dateFormat({ month: 'short', day: 'numeric', year: 'numeric' }).format(d) };
const LONG = { format: (d: Date) => dateFormat({ weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' }).format(d) };

const DUE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/;

interface DueParts {
  /** Local midnight of the due day. */
  day: Date;
  /** HH:MM when the due has a time. */
  time: string | null;
  /** The moment it is due: the time, or the end of the day for a date alone. */
  at: Date;
}

/** The due's local day and time; null for anything that is not a due. */
export function dueParts(due: string | null | undefined): DueParts | null {
  const m = due ? DUE.exec(due) : null;
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const day = new Date(y, mo, d);
  if (day.getFullYear() !== y || day.getMonth() !== mo || day.getDate() !== d) return null;
  const time = m[4] !== undefined ? `${m[4]}:${m[5]}` : null;
  const at = time ? new Date(y, mo, d, Number(m[4]), Number(m[5])) : new Date(y, mo, d + 1);
  return { day, time, at };
}

/** Local midnight of `now`'s day. */
export const startOfDay = (now: Date): Date => new Date(now.getFullYear(), now.getMonth(), now.getDate());

/** Whole calendar days from `from`'s day to `to`'s day (DST-proof: counted on dates, not milliseconds). */
export function daysBetween(from: Date, to: Date): number {
  const a = Date.UTC(from.getFullYear(), from.getMonth(), from.getDate());
  const b = Date.UTC(to.getFullYear(), to.getMonth(), to.getDate());
  return Math.round((b - a) / 86_400_000);
}

/** `YYYY-MM-DD` of a local date. */
export function isoDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A day relative to today, in a word or two: today, tomorrow, yesterday, Fri, 3 days ago, Dec 24. */
export function relativeDay(day: Date, now: Date): string {
  const n = daysBetween(now, day);
  if (n === 0) return 'today';
  if (n === 1) return 'tomorrow';
  if (n === -1) return 'yesterday';
  if (n > 1 && n < 7) return WEEKDAY.format(day);
  if (n < 0 && n > -7) return `${-n} days ago`;
  return (day.getFullYear() === now.getFullYear() ? MONTH_DAY : MONTH_DAY_YEAR).format(day);
}

interface DueLabel {
  /** What the row shows: "today 3:00 PM" (or "today 15:00", as the locale tells time), "Fri", "3 days ago". */
  text: string;
  /** The whole date for a tooltip or a screen reader: "Due Friday, November 27, 2026 at 15:00". */
  long: string;
  overdue: boolean;
  today: boolean;
}

/** The due of a task in words, or null when it has none (or it is not a date). */
export function dueLabel(due: string | null | undefined, now: Date): DueLabel | null {
  const p = dueParts(due);
  if (!p) return null;
  const rel = relativeDay(p.day, now);
  const overdue = p.at.getTime() <= now.getTime();
  return {
    text: p.time ? `${rel} ${clockOf(p.time)}` : rel,
    long: `${overdue ? 'Overdue, was due' : 'Due'} ${LONG.format(p.day)}${p.time ? ` at ${clockOf(p.time)}` : ''}`,
    overdue,
    today: daysBetween(now, p.day) === 0,
  };
}

/** A day as "tomorrow · Tue, Nov 24", or just "Mon, Nov 30" when it is not near enough for a word. */
export function dayPhrase(day: Date, now: Date, year = false): string {
  const n = daysBetween(now, day);
  const full = dateFormat({ weekday: 'short', month: 'short', day: 'numeric', ...(year || day.getFullYear() !== now.getFullYear() ? { year: 'numeric' } : {}) }).format(day);
  return n >= -1 && n < 7 ? `${relativeDay(day, now)} · ${full}` : full;
}

/** The heading of a day in the Upcoming view: "Today · Mon Nov 23", "Tomorrow · Tue Nov 24", "Thursday · Nov 26". */
export function dayHeading(day: Date, now: Date): string {
  const n = daysBetween(now, day);
  const date = MONTH_DAY.format(day);
  if (n === 0) return `Today · ${WEEKDAY.format(day)} ${date}`;
  if (n === 1) return `Tomorrow · ${WEEKDAY.format(day)} ${date}`;
  return `${WEEKDAY_LONG.format(day)} · ${date}`;
}
