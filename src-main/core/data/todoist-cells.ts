/**
 * What the cells of a Todoist CSV mean in Tidy: DATE as a due date and a repeat rule, `@labels` in the
 * text, a note's date, DEADLINE, DURATION. A value Tidy cannot store is given back as words to keep in
 * the task's text (`keep`), so nothing Todoist had is lost. The rows themselves: todoist.ts.
 */
import { checkDate } from '../../../src-shared/dates';
import { parseDue } from '../../../src-shared/date-words';
import { parseQuickAdd } from '../../../src-shared/quickadd';
import { nextOccurrence } from '../../../src-shared/repeat-rules';
import { MAX_LABELS } from '../domain/labels';
import { MAX_DURATION_MIN } from '../domain/tasks';
import { hasVisibleText, nameKey } from '../domain/text';

const pad = (n: number): string => String(n).padStart(2, '0');
const dateOf = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Todoist's DATE column as Tidy's `due` (YYYY-MM-DD or a local YYYY-MM-DDTHH:MM) and, when it repeats, the
 * RRULE: read with the quick-add parser (src-shared/quickadd.ts), the same grammar `tidy add` reads.
 * `keep` is the phrase to keep in the task's text: a recurring one the parser read only in part ("every 3
 * weeks starting 1 mar"), or a date it could not read at all, so nothing Todoist had is lost.
 */
export function todoistDate(raw: string, now: Date): { due: string | null; recurrence: string | null; keep: string | null } {
  const text = raw.trim().replace(/\s+/g, ' ');
  if (!text) return { due: null, recurrence: null, keep: null };
  const iso = ISO.exec(text);
  if (iso) {
    // 2026-02-30, 2026-13-01, 0000-01-01, T25:61: not a date; kept in the text rather than stored shifted.
    if (!checkDate(iso[2] ? `${iso[1]}T${iso[2]}:${iso[3]}` : iso[1]).ok) return { due: null, recurrence: null, keep: text };
    if (!iso[2]) return { due: iso[1]!, recurrence: null, keep: null };
    if (!iso[4]) return { due: `${iso[1]}T${iso[2]}:${iso[3]}`, recurrence: null, keep: null };
    const d = new Date(text.replace(' ', 'T'));
    if (!Number.isNaN(d.getTime())) return { due: `${dateOf(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}`, recurrence: null, keep: null };
  }
  if (/^(every!?|ev!?|after)\b/i.test(text)) {
    // "every!" (Todoist: from completion) reads as "every"; the parser needs some content beside the phrase.
    const q = parseQuickAdd(`x ${text.replace(/^(every|ev)!?/i, 'every')}`, { projects: [], now });
    if (q.recurrence) {
      const due = q.due ?? nextOccurrence(q.recurrence, dateOf(now), dateOf(new Date(now.getTime() - 86_400_000)));
      return { due, recurrence: q.recurrence, keep: q.content === 'x' ? null : text };
    }
    return { due: null, recurrence: null, keep: text };
  }
  if (impossibleDay(text)) return { due: null, recurrence: null, keep: text };
  const parsed = parseDue(text, now);
  const due = parsed !== null && checkDate(parsed).ok ? parsed : null;
  return { due, recurrence: null, keep: due === null ? text : null };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A month name with a day it does not have ("Dec 32", "31 April", "Feb 30th"): the date parser would read
 * the number as a year or roll it into the next month; such a date is kept in the text instead.
 */
function impossibleDay(text: string): boolean {
  const month = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
  for (const m of text.matchAll(new RegExp(`\\b${month}\\s+(\\d{1,3})(?:st|nd|rd|th)?\\b|\\b(\\d{1,3})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${month}`, 'gi'))) {
    const name = (m[1] ?? m[4])!.toLowerCase();
    const day = Number(m[2] ?? m[3]);
    if (day < 1 || day > MONTH_DAYS[MONTHS.indexOf(name)]!) return true;
  }
  return false;
}

/** `@label` words in a task's text (Todoist writes a task's labels so): after a space or at the start, up to a space or the end. */
const LABEL_IN_TEXT = /(^|[ \t]+)@([^\s,@#]{1,60})(?=\s|$)/gu;

/**
 * The labels written in a task's text, and the text without them. A word that is no valid label (a
 * control character, say) stays in the text; a text of nothing but labels keeps them in it too.
 */
export function labelsOutOfText(text: string): { content: string; labels: string[] } {
  const labels: string[] = [];
  const seen = new Set<string>();
  const content = text
    .replace(LABEL_IN_TEXT, (whole, _pre: string, name: string) => {
      const clean = name.normalize('NFC');
      if (/\p{Cc}/u.test(clean)) return whole;
      if (!seen.has(nameKey(clean))) {
        seen.add(nameKey(clean));
        labels.push(clean);
      }
      return '';
    })
    .trim();
  if (!hasVisibleText(content) || labels.length > MAX_LABELS) return { content: text, labels: [] };
  return { content, labels };
}

/** A note row's DATE as an ISO instant, when it is an ISO date or date-time; anything else is no date. */
export function noteDate(raw: string): string | null {
  const iso = ISO.exec(raw.trim());
  if (!iso || !checkDate(iso[2] ? `${iso[1]}T${iso[2]}:${iso[3]}` : iso[1]).ok) return null;
  const d = new Date(iso[4] ? raw.trim().replace(' ', 'T') : iso[2] ? `${iso[1]}T${iso[2]}:${iso[3]}:00` : `${iso[1]}T00:00:00`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** DEADLINE as a date (YYYY-MM-DD), or what to keep in the text when Tidy cannot read it. */
export function deadlineOf(raw: string, dateOfCell: (raw: string) => ReturnType<typeof todoistDate>): { deadline: string | null; keep: string | null } {
  if (!raw) return { deadline: null, keep: null };
  const d = dateOfCell(raw);
  if (d.due && !d.recurrence && !d.keep) return { deadline: d.due.slice(0, 10), keep: null };
  return { deadline: null, keep: `deadline ${raw}` };
}

/** DURATION and DURATION_UNIT (minute or day) as minutes, or what to keep in the text when out of Tidy's range. */
export function durationOf(amount: string, unit: string): { minutes: number | null; keep: string | null } {
  if (!amount) return { minutes: null, keep: null };
  const n = /^\d{1,9}$/.test(amount) ? Number(amount) : NaN;
  const per = /^(minutes?|)$/i.test(unit) ? 1 : /^days?$/i.test(unit) ? 1440 : NaN;
  const minutes = n * per;
  if (Number.isInteger(minutes) && minutes >= 1 && minutes <= MAX_DURATION_MIN) return { minutes, keep: null };
  return { minutes: null, keep: `takes ${amount.slice(0, 20)}${unit ? ` ${unit.slice(0, 20)}` : ''}` };
}
