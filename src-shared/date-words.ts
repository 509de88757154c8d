/**
 * Dates in a task's words ("next friday 3pm", "tomorrow", "dec 5"), read cautiously with chrono-node: text
 * that only looks like a date ("3.10 to 3.11", "sun cream", "March of the penguins") is no date. Quick add
 * (quickadd.ts) and its repeat phrases (repeat-phrases.ts) take their dates from here; `parseDue` reads a
 * field that holds only a date.
 */
import * as chrono from 'chrono-node';

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
export const dateOf = (d: Date): string => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
export const dateTimeOf = (d: Date): string => `${dateOf(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}`;

/** Words a date cannot follow without leaving them dangling ("Think of tomorrow", "every … ending jan 5" refused). */
export const DANGLING = /(?<![\p{L}\p{N}_])(?:of|every|starting|ending|beginning)\s+(?:(?:on|by|due|at|before)\s+)?$/iu;

/** Words that glue a date to the sentence ("due friday", "by tomorrow"); removed with the date. */
export const LEAD_WORDS = /(?<![\p{L}\p{N}_])(?:on|by|due|at|before)\s+$/iu;

/**
 * Matches chrono finds that are more often plain text than a date in a task: three-letter words that
 * are also weekday or month names, a lone month ("March of the penguins"), or anything without a date
 * word or an ISO date ("3.10 to 3.11", "3/4", "at 5"). These stay text.
 */
const WORD_LIKE = new Set(['sun', 'sat', 'wed', 'mar', 'may', 'jan', 'jun', 'mon', 'tue', 'thu', 'fri', 'aug', 'sept', 'sep', 'oct', 'nov', 'dec', 'feb', 'jul', 'apr']);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?$/;
const CONNECTORS = /\b(?:at|to|on|by|from|the|of|and|in|until|till|-)\b/gi;

/** A length of time without "in" before it ("2 weeks", "31m", "a day"): a quantity in the text, not a date. */
const BARE_DURATION = /^(?:\d+|an?|one|two|three|few)\s*(?:m|h|d|w|y|mins?|minutes?|hrs?|hours?|days?|weeks?|months?|years?)$/i;

function acceptable(r: chrono.ParsedResult): boolean {
  const text = r.text.trim();
  if (ISO_DATE.test(text)) return true;
  if (BARE_DURATION.test(text) || /^now$/i.test(text)) return false;
  const words = text.replace(CONNECTORS, ' ').match(/\p{L}+/gu) ?? [];
  if (words.length === 0 && !/\b\d{1,2}:\d{2}\b/.test(text)) return false;
  // One word that is also an English word or a bare abbreviation: "sun cream", "sat exam", "may".
  if (words.length === 1 && WORD_LIKE.has(words[0]!.toLowerCase()) && !/\d/.test(text)) return false;
  const known = r.start;
  // A month alone has no day: "March of the penguins", "may".
  if (known.isCertain('month') && !known.isCertain('day') && !known.isCertain('weekday') && !known.isCertain('year')) return false;
  // A time alone with neither am/pm nor a colon ("at 5", "3.10 to 3.11"): a number in the text.
  const timeOnly = !known.isCertain('day') && !known.isCertain('weekday') && known.isCertain('hour');
  if (timeOnly && !known.isCertain('meridiem') && !/:/.test(text) && !/\b(noon|midnight|morning|evening|afternoon|night|tonight)\b/i.test(text)) return false;
  return true;
}

export function dueOf(r: chrono.ParsedResult): string {
  const d = r.start.date();
  return r.start.isCertain('hour') ? dateTimeOf(d) : dateOf(d);
}

export const parseDates = (text: string, now: Date): chrono.ParsedResult[] =>
  chrono.casual.parse(text, { instant: now }, { forwardDate: true }).filter(acceptable);

/**
 * A due date from text alone ("next friday 3pm", "tomorrow", "2026-12-24", "dec 5"): 'YYYY-MM-DD', or
 * 'YYYY-MM-DDTHH:MM' when a time is given; null when the text is not (only) a date.
 */
export function parseDue(text: string, now: Date): string | null {
  const t = text.trim();
  if (t.length === 0 || t.length > 200) return null;
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?$/.exec(t);
  if (iso) {
    const [, y, m, d, hh, mm] = iso;
    const day = new Date(Number(y), Number(m) - 1, Number(d));
    if (day.getFullYear() !== Number(y) || day.getMonth() !== Number(m) - 1 || day.getDate() !== Number(d)) return null;
    if (hh !== undefined && (Number(hh) > 23 || Number(mm) > 59)) return null;
    return hh !== undefined ? `${y}-${m}-${d}T${hh}:${mm}` : `${y}-${m}-${d}`;
  }
  const results = parseDates(t, now);
  if (results.length !== 1) return null;
  const r = results[0]!;
  const rest = (t.slice(0, r.index) + t.slice(r.index + r.text.length)).replace(/\b(?:on|by|due|at)\b/gi, '').trim();
  return rest === '' ? dueOf(r) : null;
}
