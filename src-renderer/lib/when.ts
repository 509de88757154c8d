/**
 * Dates and times on screen, in the user's locale: the one place the renderer formats them. Order, month
 * names and the 12- or 24-hour clock follow the locale (the browser's, or the one set here by a test);
 * every time on screen — a due in a list, the editor, the chat, the Actions log, a notice — goes through
 * `clock`, so none shows 3:00 PM beside 15:00. Machine forms (ISO 8601) stay in `--json` and files.
 */

let locale: string | undefined;
const cache = new Map<string, Intl.DateTimeFormat>();

/** Sets the locale dates are shown in (undefined: the browser's own). For tests and a future setting. */
export function setDisplayLocale(next: string | undefined): void {
  locale = next;
  cache.clear();
}

/**
 * A formatter of the display locale, made once per option set. Its text has plain spaces: some ICU
 * versions put a narrow no-break space before AM/PM, which the Due field's reader would not take back.
 */
export function dateFormat(options: Intl.DateTimeFormatOptions, lang: string | undefined = locale): { format(d: Date): string; resolvedOptions(): Intl.ResolvedDateTimeFormatOptions } {
  const key = `${lang ?? ''}|${JSON.stringify(options)}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(lang, options);
    cache.set(key, f);
  }
  const intl = f;
  return { format: (d) => intl.format(d).replace(/[\u202f\u00a0]/g, ' '), resolvedOptions: () => intl.resolvedOptions() };
}

/** Whether the display locale reads the clock in 12 hours (en-US) rather than 24 (en-GB, de). */
export function twelveHour(): boolean {
  const cycle = dateFormat({ hour: 'numeric' }).resolvedOptions().hourCycle;
  return cycle === 'h12' || cycle === 'h11';
}

/** A time of day in the display locale: "3:00 PM" or "15:00". */
export function clock(d: Date): string {
  return dateFormat(twelveHour() ? { hour: 'numeric', minute: '2-digit' } : { hour: '2-digit', minute: '2-digit' }).format(d);
}

/** A moment to the second, for the trace's steps: "3:05:07 PM" or "15:05:07". */
export function clockSeconds(d: Date): string {
  return dateFormat(twelveHour() ? { hour: 'numeric', minute: '2-digit', second: '2-digit' } : { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(d);
}

/** A date and time in full, the locale's medium form: "Nov 27, 2026, 4:00 PM". Empty for what is not a date. */
export function dateTimeText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${dateFormat({ dateStyle: 'medium' }).format(d)}, ${clock(d)}`;
}

/** `HH:MM` (a due's time) as `clock` shows it. */
export function clockOf(hhmm: string): string {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  return m ? clock(new Date(2000, 0, 1, Number(m[1]), Number(m[2]))) : hhmm;
}

/** The clock today, "Mar 3, 3:00 PM" (the locale's order) before. Empty for what is not a date. */
export function shortTime(iso: string, now = Date.now()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  if (new Date(now).toDateString() === d.toDateString()) return clock(d);
  return `${dateFormat({ month: 'short', day: 'numeric' }).format(d)}, ${clock(d)}`;
}

const ISO_DUE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/;

function dueDate(due: string): { day: Date; time: string | null } | null {
  const m = ISO_DUE.exec(due);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const day = new Date(y, mo, d);
  if (day.getFullYear() !== y || day.getMonth() !== mo || day.getDate() !== d) return null;
  return { day, time: m[4] !== undefined ? `${m[4]}:${m[5]}` : null };
}

/**
 * A stored due (`2026-12-01` or `2026-12-01T10:00`) as a date in the display locale: "Tue, Dec 1, 2026,
 * 10:00 AM" (en-US), "Tue 1 Dec 2026, 10:00" (en-GB); the year only when it is not `now`'s. Anything
 * else comes back as it was.
 */
export function dueDateText(due: string, now = new Date()): string {
  const p = dueDate(due);
  if (!p) return due;
  const date = dateFormat({ weekday: 'short', month: 'short', day: 'numeric', ...(p.day.getFullYear() !== now.getFullYear() ? { year: 'numeric' } : {}) }).format(p.day);
  return p.time ? `${date}, ${clockOf(p.time)}` : date;
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

/**
 * Dates and times a message of Tidy's own carries in machine form, shown in the locale: an action's summary
 * ("next due 2026-11-27T16:00"), a booking's question ("Sat 2026-12-05 14:00–14:30"), a plan's lines
 * ("  14:00–14:30  Report") and a routine's schedule ("every weekday at 08:00").
 */
export function readableDates(text: string, now = new Date()): string {
  return text.replace(
    /\b(?:(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) )?(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?(?:–(\d{2}:\d{2}))?(?![\d:T])|((?:^|\n) *|\bat )(\d{2}:\d{2})(?:–(\d{2}:\d{2}))?(?![\d:])/g,
    (whole, date: string | undefined, time: string | undefined, until: string | undefined, lead: string | undefined, alone: string | undefined, aloneUntil: string | undefined) => {
      if (date !== undefined) {
        const shown = dueDateText(time ? `${date}T${time}` : date, now);
        if (shown === `${date}T${time}` || shown === date) return whole;
        return until ? `${shown}–${clockOf(until)}` : shown;
      }
      return `${lead}${clockOf(alone!)}${aloneUntil ? `–${clockOf(aloneUntil)}` : ''}`;
    },
  );
}
