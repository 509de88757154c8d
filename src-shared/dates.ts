/**
 * One validator for dates and durations that come in from outside (a Todoist export, an .ics file, a
 * tool call): a date must be a real calendar date (no 2026-02-30, no month 13, no year 0000, no 25:61),
 * a duration a bounded number of seconds. What fails is refused with one line; callers keep the text
 * and add a note instead of storing a date that would be read back shifted. Never throws.
 */

export type DateCheck = { ok: true; date: string } | { ok: false; error: string };
export type DurationCheck = { ok: true; seconds: number } | { ok: false; error: string };

/** Years Tidy stores dates in (what the calendar and the exports can write back). */
export const DATE_YEARS = { min: 1000, max: 9999 } as const;
/** The longest length of an event read from a file: ten years. */
export const MAX_DURATION_SECONDS = 3_660 * 86_400;

const shown = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/**
 * Checks "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM[:SS]" (a space for the T allowed, no offset) and returns it
 * in Tidy's form: "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM" (seconds dropped, as due dates keep minutes).
 */
export function checkDate(text: unknown): DateCheck {
  if (typeof text !== 'string') return { ok: false, error: 'the date is not text' };
  const t = text.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(t.slice(0, 40));
  if (!m) return { ok: false, error: `${shown(t)} is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)` };
  const [y, mo, d] = [+m[1]!, +m[2]!, +m[3]!];
  if (y < DATE_YEARS.min || y > DATE_YEARS.max) return { ok: false, error: `${shown(t)}: the year is outside ${DATE_YEARS.min}–${DATE_YEARS.max}` };
  if (mo < 1 || mo > 12) return { ok: false, error: `${shown(t)}: there is no month ${mo}` };
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > days) return { ok: false, error: `${shown(t)}: ${m[1]}-${m[2]} has no day ${d}` };
  if (m[4] === undefined) return { ok: true, date: `${m[1]}-${m[2]}-${m[3]}` };
  const [h, mi, s] = [+m[4], +m[5]!, +(m[6] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) return { ok: false, error: `${shown(t)}: ${m[4]}:${m[5]}${m[6] ? `:${m[6]}` : ''} is not a time of day` };
  return { ok: true, date: `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}` };
}

/** Checks a length of time in seconds: a whole, non-negative number of at most ten years. */
export function checkDuration(seconds: unknown): DurationCheck {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return { ok: false, error: 'the length is not a number' };
  if (seconds < 0) return { ok: false, error: 'the length is negative' };
  if (seconds > MAX_DURATION_SECONDS) return { ok: false, error: `the length (${Math.round(seconds / 86_400).toLocaleString('en')} days) is more than ten years` };
  return { ok: true, seconds: Math.floor(seconds) };
}
