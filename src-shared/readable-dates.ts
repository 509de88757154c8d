/**
 * Dates and times in the user's locale, without React or the DOM: the window (src-renderer/lib/when.ts) and
 * the CLI's human output share it. Order, month names and the 12- or 24-hour clock follow the locale (the
 * one set with `setDisplayLocale`, one passed in, or Intl's default). Machine forms (ISO 8601) stay in
 * `--json`, files and what goes to the model.
 */

let locale: string | undefined;
const cache = new Map<string, Intl.DateTimeFormat>();

/** Sets the locale dates are shown in (undefined: Intl's default). For tests and a future setting. */
export function setDisplayLocale(next: string | undefined): void {
  locale = next;
  cache.clear();
}

/**
 * A formatter of the display locale (or `lang`), made once per option set. Its text has plain spaces: some
 * ICU versions put a narrow no-break space before AM/PM, which the Due field's reader would not take back.
 */
export function dateFormat(options: Intl.DateTimeFormatOptions, lang: string | undefined = locale): { format(d: Date): string; resolvedOptions(): Intl.ResolvedDateTimeFormatOptions } {
  const key = `${lang ?? ''}|${JSON.stringify(options)}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(lang, options);
    if (cache.size > 200) cache.clear();
    cache.set(key, f);
  }
  const intl = f;
  return { format: (d) => intl.format(d).replace(/[\u202f\u00a0]/g, ' '), resolvedOptions: () => intl.resolvedOptions() };
}

/** Whether the locale reads the clock in 12 hours (en-US) rather than 24 (en-GB, de). */
export function twelveHour(lang: string | undefined = locale): boolean {
  const cycle = dateFormat({ hour: 'numeric' }, lang).resolvedOptions().hourCycle;
  return cycle === 'h12' || cycle === 'h11';
}

/** A time of day in the locale: "3:00 PM" or "15:00". */
export function clock(d: Date, lang: string | undefined = locale): string {
  return dateFormat(twelveHour(lang) ? { hour: 'numeric', minute: '2-digit' } : { hour: '2-digit', minute: '2-digit' }, lang).format(d);
}

/** `HH:MM` (a due's time) as `clock` shows it. */
export function clockOf(hhmm: string, lang: string | undefined = locale): string {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  return m ? clock(new Date(2000, 0, 1, Number(m[1]), Number(m[2])), lang) : hhmm;
}

const ISO_DUE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/;

/** A stored due's day (local) and time, or null for what is not one (2035-02-30 included). */
export function dueDate(due: string): { day: Date; time: string | null } | null {
  const m = ISO_DUE.exec(due);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const day = new Date(y, mo, d);
  if (day.getFullYear() !== y || day.getMonth() !== mo || day.getDate() !== d) return null;
  return { day, time: m[4] !== undefined ? `${m[4]}:${m[5]}` : null };
}

/**
 * A stored due (`2026-12-01` or `2026-12-01T10:00`) as a date in the locale: "Tue, Dec 1, 2026,
 * 10:00 AM" (en-US), "Tue 1 Dec 2026, 10:00" (en-GB); the year only when it is not `now`'s. Anything
 * else comes back as it was.
 */
export function dueDateText(due: string, now = new Date(), lang: string | undefined = locale): string {
  const p = dueDate(due);
  if (!p) return due;
  const date = dateFormat({ weekday: 'short', month: 'short', day: 'numeric', ...(p.day.getFullYear() !== now.getFullYear() ? { year: 'numeric' } : {}) }, lang).format(p.day);
  return p.time ? `${date}, ${clockOf(p.time, lang)}` : date;
}

/** Tidy's machine dates and times: an ISO date with its time and end, or a time alone after a line's indent, "at" or "after". */
const MACHINE_DATES =
  /\b(?:(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) )?(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?(?:–(\d{2}:\d{2}))?(?![\d:T])|((?:^|\n) *|\b(?:at|after) )(\d{2}:\d{2})(?:–(\d{2}:\d{2}))?(?![\d:])/g;

/**
 * The user's own words inside one of Tidy's messages: what Tidy quotes ('Call at 10:00', “Call at 10:00”,
 * "…"). A quote opens and closes away from letters and digits, so "Tidy's" or 'Bob's call' stay one piece;
 * it is at most 300 characters (Tidy quotes at most 60), which keeps a hostile message linear.
 */
const QUOTED = /(?<![\p{L}\p{N}])'[^\n]{0,300}?'(?![\p{L}\p{N}])|“[^”\n]{0,300}”|"[^"\n]{0,300}"/gu;

/**
 * A line of a plan (core/plan/plan.ts planLines), whose task title is not quoted: a block, "  09:00–10:30
 * TITLE (t1) [pinned] [kept] — REASON", or a task that did not fit, "  TITLE (t1) — REASON". The title is
 * everything before the last " (id) — ", so a title holding one stays whole.
 */
const PLAN_LINE = /^( {2}(?:\d{2}:\d{2}–\d{2}:\d{2} {2})?)(.*)( \([\w.-]{1,60}\)(?: \[pinned\])?(?: \[kept\])? — )(.*)$/;

/** `text` with its machine dates in the locale, except inside the spans `kept` (sorted, apart). */
function rewrite(text: string, now: Date, lang: string | undefined, kept: readonly (readonly [number, number])[] = []): string {
  let k = 0;
  return text.replace(
    MACHINE_DATES,
    (whole: string, date: string | undefined, time: string | undefined, until: string | undefined, lead: string | undefined, alone: string | undefined, aloneUntil: string | undefined, at: number) => {
      while (k < kept.length && kept[k]![1] <= at) k++;
      // No machine date holds a quote mark, so a match lies wholly inside a quote or wholly outside.
      if (k < kept.length && kept[k]![0] <= at) return whole;
      if (date !== undefined) {
        const shown = dueDateText(time ? `${date}T${time}` : date, now, lang);
        if (shown === `${date}T${time}` || shown === date) return whole;
        return until ? `${shown}–${clockOf(until, lang)}` : shown;
      }
      return `${lead}${clockOf(alone!, lang)}${aloneUntil ? `–${clockOf(aloneUntil, lang)}` : ''}`;
    },
  );
}

/** Text of one line with its machine dates in the locale; what it quotes of the user's stays as written. */
function outsideQuotes(text: string, now: Date, lang: string | undefined): string {
  const kept = [...text.matchAll(QUOTED)].map((m) => [m.index, m.index + m[0].length] as const);
  return rewrite(text, now, lang, kept);
}

/** One line of a message; a plan's line keeps its task's title as written. */
function readableLine(line: string, now: Date, lang: string | undefined): string {
  const plan = PLAN_LINE.exec(line);
  if (!plan) return outsideQuotes(line, now, lang);
  return `${rewrite(plan[1]!, now, lang)}${plan[2]}${plan[3]}${outsideQuotes(plan[4]!, now, lang)}`;
}

/**
 * Dates and times a message of Tidy's own carries in machine form, shown in the locale: an action's summary
 * ("next due 2026-11-27T16:00"), a booking's question ("Sat 2026-12-05 14:00–14:30"), a plan's lines
 * ("  14:00–14:30  Report (t1) — p1, deadline 2026-12-04; first free 8 h after 09:00") and a routine's
 * schedule ("every weekday at 08:00"). The user's own words stay as written: what the message quotes
 * ('Call at 10:00', “…”, "…") and the task titles of a plan's lines. The window and the CLI both show
 * Tidy's messages through this.
 */
export function readableDates(text: string, now = new Date(), lang: string | undefined = locale): string {
  return text
    .split('\n')
    .map((line) => readableLine(line, now, lang))
    .join('\n');
}

/**
 * The locale a POSIX environment asks for dates in, as a BCP 47 tag: LC_ALL, then LC_TIME, then LANG
 * ("en_GB.UTF-8" → "en-GB"). Undefined (Intl's default) for C, POSIX, nothing set, or what Intl does not know.
 */
export function localeFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const name of ['LC_ALL', 'LC_TIME', 'LANG']) {
    const value = env[name];
    if (!value) continue;
    const m = /^([A-Za-z]{2,3})(?:_([A-Za-z]{2}|\d{3}))?(?:[.@]|$)/.exec(value);
    if (!m || value.length > 100) return undefined;
    const tag = m[2] ? `${m[1]}-${m[2]}` : m[1]!;
    try {
      return Intl.DateTimeFormat.supportedLocalesOf([tag]).length ? Intl.getCanonicalLocales(tag)[0] : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
