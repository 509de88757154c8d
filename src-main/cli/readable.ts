// The CLI's human output in the user's locale: the dates and times of Tidy's own messages (an approval's
// question, a routine's schedule, a plan's days and times) as the terminal's LC_ALL / LC_TIME / LANG reads
// them. Never for --json, files or what goes to the model.
import { dueDateText, localeFromEnv, readableDates } from '../../src-shared/readable-dates';

let lang: { value: string | undefined } | undefined;

/** The terminal's locale for dates (undefined: Intl's default), read once. */
export function cliLocale(): string | undefined {
  lang ??= { value: localeFromEnv(process.env) };
  return lang.value;
}

/**
 * The user's own words inside one of Tidy's messages: what Tidy quotes ('Call at 10:00', “Call at 10:00”,
 * "…"). A quote opens and closes away from letters and digits, so "Tidy's" or 'Bob's call' stay one piece;
 * it is at most 300 characters (Tidy quotes at most 60), which keeps a hostile message linear.
 */
const QUOTED = /(?<![\p{L}\p{N}])'[^\n]{0,300}?'(?![\p{L}\p{N}])|“[^”\n]{0,300}”|"[^"\n]{0,300}"/gu;

/**
 * `text`, one of Tidy's own messages (an approval's question, an action's summary), with its machine dates
 * and times in the terminal's locale; the words it quotes (a task's title) stay as written.
 */
export function shownDates(text: string, now = new Date(), locale: string | undefined = cliLocale()): string {
  if (text.includes('\uE000')) return readableDates(text, now, locale);
  const kept: string[] = [];
  const masked = text.replace(QUOTED, (q) => `\uE000${kept.push(q) - 1}\uE001`);
  return readableDates(masked, now, locale).replace(/\uE000(\d+)\uE001/g, (_, i: string) => kept[Number(i)] ?? '');
}

const PLAN_DAY = /^(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) \d{4}-\d{2}-\d{2}$/;
const PLAN_BLOCK = /^ {2}\d{2}:\d{2}–\d{2}:\d{2}(?= )/;

/** A line of a printed plan: its day heading or its block's times in the locale; the task's own title stays as written. */
export function shownPlanLine(line: string, now = new Date(), locale: string | undefined = cliLocale()): string {
  if (PLAN_DAY.test(line)) return shownDates(line, now, locale);
  return line.replace(PLAN_BLOCK, (times) => shownDates(times, now, locale));
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** A stored moment (ISO 8601, e.g. an action's createdAt) as local time in the terminal's locale: "Tue 19 Jun, 16:05". */
export function shownMoment(iso: string, now = new Date(), locale: string | undefined = cliLocale()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return dueDateText(`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`, now, locale);
}
