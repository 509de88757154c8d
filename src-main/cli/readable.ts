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
 * `text`, one of Tidy's own messages (an approval's question, an action's summary, a plan's lines), with its
 * machine dates and times in the terminal's locale; the words it quotes (a task's title) stay as written.
 */
export function shownDates(text: string, now = new Date(), locale: string | undefined = cliLocale()): string {
  return readableDates(text, now, locale);
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** A stored moment (ISO 8601, e.g. an action's createdAt) as local time in the terminal's locale: "Tue 19 Jun, 16:05". */
export function shownMoment(iso: string, now = new Date(), locale: string | undefined = cliLocale()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return dueDateText(`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`, now, locale);
}
