/**
 * Dates and times on screen, in the user's locale: the one place the renderer formats them. Order, month
 * names and the 12- or 24-hour clock follow the locale (the browser's, or the one set here by a test);
 * every time on screen — a due in a list, the editor, the chat, the Actions log, a notice — goes through
 * `clock`, so none shows 3:00 PM beside 15:00. Machine forms (ISO 8601) stay in `--json` and files.
 */

import { clock, clockOf, dateFormat, dueDate, dueDateText, readableDates, setDisplayLocale, twelveHour } from '../../src-shared/readable-dates';

// The pure rewrite lives in src-shared, shared with the CLI's human output.
export { clock, clockOf, dateFormat, dueDateText, readableDates, setDisplayLocale, twelveHour };

/** A moment to the second, for the trace's steps: "3:05:07 PM" or "15:05:07". */
export function clockSeconds(d: Date): string {
  return dateFormat(twelveHour() ? { hour: 'numeric', minute: '2-digit', second: '2-digit' } : { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(d);
}

/**
 * A wall time given as hours from a day's midnight (9.5: "9:30 AM" or "09:30"), as `clock` shows it; 24, the
 * day's end, is "12:00 AM" or "24:00". With `hourOnly`, an axis's hour mark: "9 AM" or "09:00".
 */
export function wallClock(hours: number, hourOnly = false): string {
  const minutes = Math.round(hours * 60);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  const twelve = twelveHour();
  if (h >= 24 && !twelve) return '24:00';
  const d = new Date(2000, 0, 1, h % 24, m);
  if (!hourOnly) return clock(d);
  return dateFormat(twelve ? { hour: 'numeric' } : { hour: '2-digit', minute: '2-digit' }).format(d);
}

/** A date and time in full, the locale's medium form: "Nov 27, 2026, 4:00 PM". Empty for what is not a date. */
export function dateTimeText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${dateFormat({ dateStyle: 'medium' }).format(d)}, ${clock(d)}`;
}

/** The clock today, "Mar 3, 3:00 PM" (the locale's order) before. Empty for what is not a date. */
export function shortTime(iso: string, now = Date.now()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  if (new Date(now).toDateString() === d.toDateString()) return clock(d);
  return `${dateFormat({ month: 'short', day: 'numeric' }).format(d)}, ${clock(d)}`;
}

/**
 * A stored due as the editor's Due field starts: words the quick-add reader takes back as the same
 * due ("Dec 1, 2026 10:00 AM" or "Dec 1, 2026 10:00", the hours as the locale counts them), never
 * `2026-12-01T10:00`. English month names, because the reader reads English.
 */
export function dueFieldText(due: string): string {
  const p = dueDate(due);
  if (!p) return due;
  const date = dateFormat({ month: 'short', day: 'numeric', year: 'numeric' }, 'en-US').format(p.day);
  if (!p.time) return date;
  const [h, m] = p.time.split(':').map(Number) as [number, number];
  const time = dateFormat({ hour: 'numeric', minute: '2-digit', hourCycle: twelveHour() ? 'h12' : 'h23' }, 'en-US').format(new Date(2000, 0, 1, h, m));
  return `${date} ${time}`;
}
