/**
 * The quick-add grammar: "Buy milk tomorrow 9am #Birthday Celebration p1 every week" → the content
 * ("Buy milk"), a due date, a project, a priority and a recurrence. One parser for every way a task is
 * typed (the CLI's `tidy add`, the quick-capture box, the add fields), run in the renderer as the user
 * types (to highlight the recognised parts) and in the main side when the task is stored. So it uses no
 * Node API: chrono-node for natural dates and times, ical.js for recurrence rules (RRULE, RFC 5545).
 *
 * The parser is cautious: text that only looks like a date ("Migrate from python 3.10 to 3.11", "Buy 2
 * apples", "March of the penguins") stays text. A part it recognises is removed from the content; what it
 * does not, stays.
 */
import * as chrono from 'chrono-node';
import { checkRule } from './recurrence';
import ICAL from 'ical.js';

export type Priority = 1 | 2 | 3 | 4;

export interface QuickAddPart {
  kind: 'date' | 'project' | 'priority' | 'recurrence' | 'label' | 'deadline' | 'duration';
  /** Offsets in the original text: text.slice(start, end) === this.text. */
  start: number;
  end: number;
  text: string;
}

export interface QuickAdd {
  /** The text with the recognised parts removed and spaces tidied; the whole text when nothing else is left. */
  content: string;
  /** 'YYYY-MM-DD', or 'YYYY-MM-DDTHH:MM' (local time) when a time was given. */
  due: string | null;
  priority: Priority | null;
  project: { id: string; name: string } | null;
  /** A name after '#' that is no existing project (it stays in the content). */
  unknownProject: string | null;
  /** An RRULE value such as 'FREQ=WEEKLY;BYDAY=MO'. */
  recurrence: string | null;
  /** `@label` words (several, any case; without the @), in text order, no repeats. */
  labels: string[];
  /** `{friday}`: the date it must be done by (YYYY-MM-DD), beside the planned due. */
  deadline: string | null;
  /** `for 45m`, `for 2h`, `for 1h30m`: minutes. */
  durationMin: number | null;
  /** The recognised parts, in text order, never overlapping. */
  parts: QuickAddPart[];
}

export interface QuickAddContext {
  projects: readonly { id: string; name: string }[];
  now: Date;
}

/**
 * Longer text is not searched for dates, projects or priorities: quick-add text is a line, and chrono's
 * regular expressions are not meant for pages. Such text is stored as it is.
 */
export const QUICK_ADD_MAX_CHARS = 1000;

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
const dateOf = (d: Date): string => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const dateTimeOf = (d: Date): string => `${dateOf(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}`;

// --- recurrence ---------------------------------------------------------------------------------------

const DAY_CODES: Record<string, string> = {
  mo: 'MO', mon: 'MO', monday: 'MO',
  tu: 'TU', tue: 'TU', tues: 'TU', tuesday: 'TU',
  we: 'WE', wed: 'WE', wednesday: 'WE',
  th: 'TH', thu: 'TH', thur: 'TH', thurs: 'TH', thursday: 'TH',
  fr: 'FR', fri: 'FR', friday: 'FR',
  sa: 'SA', sat: 'SA', saturday: 'SA',
  su: 'SU', sun: 'SU', sunday: 'SU',
};
const DAY = '(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)s?';
const UNIT = '(?:day|week|month|year|weekday|workday|weekend)s?';
const NUMBER_WORDS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12 };
const EVERY = new RegExp(
  `(?<![\\p{L}\\p{N}])every\\s+(?:(other)\\s+|(\\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})\\s+)?` +
    `(${DAY}(?:\\s*(?:,|and|&)\\s*${DAY})*|${UNIT})(?![\\p{L}\\p{N}])`,
  'iu',
);

/** What may follow "every month": " on the 1st", " on the 15th", " on day 3". */
const MONTH_DAY = /^\s+on\s+(?:the\s+|day\s+)?(\d{1,2})(?:st|nd|rd|th)?(?![\p{L}\p{N}])/iu;

function everyRule(other: string | undefined, count: string | undefined, what: string): string | null {
  const interval = other ? 2 : count ? (NUMBER_WORDS[count.toLowerCase()] ?? Number(count)) : 1;
  if (!Number.isInteger(interval) || interval < 1) return null;
  const every = interval > 1 ? `;INTERVAL=${interval}` : '';
  const w = what.toLowerCase().replace(/s$/, '');
  if (w === 'day') return `FREQ=DAILY${every}`;
  if (w === 'week') return `FREQ=WEEKLY${every}`;
  if (w === 'month') return `FREQ=MONTHLY${every}`;
  if (w === 'year') return `FREQ=YEARLY${every}`;
  if (w === 'weekday' || w === 'workday') return `FREQ=WEEKLY${every};BYDAY=MO,TU,WE,TH,FR`;
  if (w === 'weekend') return `FREQ=WEEKLY${every};BYDAY=SA,SU`;
  const days = what
    .toLowerCase()
    .split(/\s*(?:,|and|&)\s*/)
    .map((d) => DAY_CODES[d.trim().replace(/s$/, '')] ?? DAY_CODES[d.trim()])
    .filter((d): d is string => d !== undefined);
  if (days.length === 0) return null;
  return `FREQ=WEEKLY${every};BYDAY=${[...new Set(days)].join(',')}`;
}

/** The frequencies a task repeats by. */
export const TASK_FREQS = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;

/** The recurrence rules Tidy stores: a daily to yearly RRULE that ical.js reads, of bounded size. */
export function validRecurrence(rule: string): boolean {
  if (rule.length > 200 || !/^FREQ=(DAILY|WEEKLY|MONTHLY|YEARLY)(;[A-Z]+=[A-Z0-9,+-]+)*$/.test(rule)) return false;
  if (!checkRule(rule, { freqs: TASK_FREQS }).ok) return false;
  try {
    const interval = /;INTERVAL=(\d+)/.exec(rule);
    if (interval && !(Number(interval[1]) >= 1 && Number(interval[1]) <= 1000)) return false;
    ICAL.Recur.fromString(rule);
    return true;
  } catch {
    return false;
  }
}

const icalDate = (due: string): ICAL.Time => {
  const [y, m, d] = due.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (due.length > 10) {
    const [hh, mm] = due.slice(11, 16).split(':').map(Number) as [number, number];
    return ICAL.Time.fromData({ year: y, month: m, day: d, hour: hh, minute: mm, second: 0, isDate: false });
  }
  return ICAL.Time.fromData({ year: y, month: m, day: d, isDate: true });
};

/**
 * The first occurrence of `rule`, counted from `start` (a due date or date-time, the first occurrence
 * when it fits the rule), that falls on a day after `after` ('YYYY-MM-DD'), in the same form as `start`.
 * Null when the rule has none within a bounded walk (a rule such as FREQ=YEARLY;BYMONTHDAY=31;BYMONTH=2).
 */
export function nextOccurrence(rule: string, start: string, after: string): string | null {
  if (!validRecurrence(rule)) return null;
  try {
    const it = ICAL.Recur.fromString(rule).iterator(icalDate(start));
    // Every occurrence up to `after` is skipped; a daily rule reaches years ahead well within this bound,
    // and a rule that never produces one (Feb 31st) stops here instead of walking forever.
    for (let i = 0; i < 50_000; i++) {
      const next = it.next();
      if (!next) return null;
      const s = next.toString();
      const date = s.slice(0, 10);
      if (date > after) return start.length > 10 ? `${date}T${start.slice(11, 16)}` : date;
    }
  } catch {
    // A stored rule ical.js cannot walk (one saved before rules were checked): no next occurrence.
  }
  return null;
}

/** The first occurrence on or after `today` ('YYYY-MM-DD'): the due a repeating task without one gets. */
export function firstOccurrence(rule: string, today: string): string | null {
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  const yesterday = dateOf(new Date(y, m - 1, d - 1));
  return nextOccurrence(rule, today, yesterday);
}

/** Longer repeat text is refused before it is read: a repeat rule is a few words. */
export const REPEAT_MAX_CHARS = 100;

export type RepeatReading = { ok: true; rule: string | null } | { ok: false; message: string; hint: string };

const REPEAT_HINT = 'try "every monday", "every weekday", "every 2 weeks" or "every month on the 1st"; leave it empty to stop repeating';

/**
 * A repeat rule typed on its own (the task editor's Repeats field): quick-add words ("every 2 weeks",
 * "weekday"), an RRULE, or nothing ('', "none", "never") for no repeat. It reads what the core's
 * parseRecurrence (src-main/core/domain/tasks.ts) reads, except that words must be only a repeat: "every
 * monday 9am" is refused here rather than its time dropped. Never throws.
 */
export function readRepeat(text: string): RepeatReading {
  const t = text.trim();
  if (t === '' || /^(none|never|no)$/i.test(t)) return { ok: true, rule: null };
  if (t.length > REPEAT_MAX_CHARS) return { ok: false, message: `That is too long for a repeat rule (${t.length} characters).`, hint: REPEAT_HINT };
  const rule = t.replace(/^RRULE:/i, '').toUpperCase();
  if (validRecurrence(rule)) return { ok: true, rule };
  const words = /^every\b/i.test(t) ? t : `every ${t}`;
  const shown = t.length > 40 ? `${t.slice(0, 40)}…` : t;
  const count = /^every\s+(-?\d+)/i.exec(words);
  if (count && !(Number(count[1]) >= 1 && Number(count[1]) <= 999))
    return { ok: false, message: `"${shown}": the number must be from 1 to 999.`, hint: 'as in "every 2 weeks" or "every 3 days"' };
  const parsed = parseQuickAdd(`x ${words}`, { projects: [], now: new Date() });
  if (parsed.recurrence && parsed.content === 'x' && parsed.parts.length === 1) return { ok: true, rule: parsed.recurrence };
  return { ok: false, message: `"${shown}" is not a repeat Tidy understands.`, hint: REPEAT_HINT };
}

// --- dates ------------------------------------------------------------------------------------------

/** Words that glue a date to the sentence ("due friday", "by tomorrow"); removed with the date. */
const LEAD_WORDS = /(?<![\p{L}\p{N}_])(?:on|by|due|at|before)\s+$/iu;

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

function dueOf(r: chrono.ParsedResult): string {
  const d = r.start.date();
  return r.start.isCertain('hour') ? dateTimeOf(d) : dateOf(d);
}

const parseDates = (text: string, now: Date): chrono.ParsedResult[] =>
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

// --- the whole line -----------------------------------------------------------------------------------

/** "for 2h", "for 1.5 hours", "for 1h30m", "for 45m", "for 90 min", as a phrase of its own. */
const DURATION =
  /(?<![\p{L}\p{N}_])for\s+(?:(\d{1,3}(?:\.\d{1,2})?)\s*(?:h|hrs?|hours?)(?:\s*(\d{1,2})\s*(?:m|mins?|minutes?))?|(\d{1,4})\s*(?:m|mins?|minutes?))(?![\p{L}\p{N}_])/iu;

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** The text with [start, end) blanked out, offsets kept. */
const mask = (text: string, start: number, end: number): string => text.slice(0, start) + ' '.repeat(end - start) + text.slice(end);

/**
 * Reads quick-add text. Never throws; the content never grows, and every part is a span of the text.
 */
export function parseQuickAdd(text: string, ctx: QuickAddContext): QuickAdd {
  const none: QuickAdd = {
    content: text.trim().replace(/\s+/g, ' '),
    due: null,
    priority: null,
    project: null,
    unknownProject: null,
    recurrence: null,
    labels: [],
    deadline: null,
    durationMin: null,
    parts: [],
  };
  if (text.length > QUICK_ADD_MAX_CHARS) return { ...none, content: text.trim() };
  try {
    return parseLine(text, ctx) ?? none;
  } catch {
    // A date library surprised by some input: the text is kept as it is rather than lost.
    return none;
  }
}

function parseLine(text: string, ctx: QuickAddContext): QuickAdd | null {
  const parts: QuickAddPart[] = [];
  let work = text;
  const take = (kind: QuickAddPart['kind'], start: number, end: number): void => {
    parts.push({ kind, start, end, text: text.slice(start, end) });
    work = mask(work, start, end);
  };

  // Recurrence first: "every monday" must not become a one-off date.
  let recurrence: string | null = null;
  const every = EVERY.exec(work);
  if (every) {
    let rule = everyRule(every[1], every[2], every[3]!);
    let end = every.index + every[0].length;
    // "every month on the 1st": the day of the month belongs to the repeat, not to a one-off date.
    const onDay = rule?.startsWith('FREQ=MONTHLY') ? MONTH_DAY.exec(work.slice(end)) : null;
    if (rule && onDay && Number(onDay[1]) >= 1 && Number(onDay[1]) <= 31) {
      rule = `${rule};BYMONTHDAY=${Number(onDay[1])}`;
      end += onDay[0].length;
    }
    if (rule && validRecurrence(rule)) {
      recurrence = rule;
      take('recurrence', every.index, end);
    }
  }

  // #Project: the longest existing name after '#', case-insensitively, ending at a word boundary.
  let project: QuickAdd['project'] = null;
  let unknownProject: string | null = null;
  const byLength = [...ctx.projects].sort((a, b) => b.name.length - a.name.length);
  const lower = work.toLowerCase();
  for (let i = work.indexOf('#'); i !== -1 && project === null; i = work.indexOf('#', i + 1)) {
    if (i > 0 && !/\s/.test(work[i - 1]!)) continue; // "C#", "issue#4"
    const found = byLength.find((p) => {
      const name = p.name.toLowerCase();
      return name.length > 0 && lower.startsWith(name, i + 1) && !isWordChar(work[i + 1 + name.length]);
    });
    if (found) {
      project = { id: found.id, name: found.name };
      take('project', i, i + 1 + found.name.length);
    } else if (unknownProject === null) {
      const word = /^[^\s#]+/u.exec(work.slice(i + 1))?.[0];
      if (word) unknownProject = word.replace(/[.,;:!?)]+$/, '') || null;
    }
  }

  // p1–p4 as a word of its own.
  let priority: Priority | null = null;
  const p = /(?<![\p{L}\p{N}_])p([1-4])(?![\p{L}\p{N}_])/iu.exec(work);
  if (p) {
    priority = Number(p[1]) as Priority;
    take('priority', p.index, p.index + p[0].length);
  }

  // {deadline}: a date in braces (Todoist's grammar); braces around anything else stay text.
  let deadline: string | null = null;
  const brace = /\{([^{}\n]{1,60})\}/.exec(work);
  if (brace) {
    const d = parseDue(brace[1]!, ctx.now);
    if (d) {
      deadline = d.slice(0, 10);
      take('deadline', brace.index, brace.index + brace[0].length);
    }
  }

  // "for 45m", "for 2h", "for 1h30m", "for 90 min": how long it takes (before the dates: chrono would read "2h").
  let durationMin: number | null = null;
  const dur = DURATION.exec(work);
  if (dur) {
    const minutes = Math.round(Number(dur[1] ?? 0) * 60) + Number(dur[2] ?? dur[3] ?? 0);
    if (minutes >= 1 && minutes <= 7 * 24 * 60) {
      durationMin = minutes;
      take('duration', dur.index, dur.index + dur[0].length);
    }
  }

  // @label words: after a space or at the start (so an email address is no label); several, any case.
  const labels: string[] = [];
  const seen = new Set<string>();
  for (const m of work.matchAll(/(?<!\S)@([\p{L}\p{N}_\-.]*[\p{L}\p{N}_])/gu)) {
    if (m[1]!.length > 60 || labels.length >= 100) continue;
    const key = m[1]!.toLowerCase();
    if (!seen.has(key)) labels.push(m[1]!);
    seen.add(key);
    take('label', m.index, m.index + m[0].length);
  }

  // Dates and times, in what is left.
  let due: string | null = null;
  const dates = parseDates(work, ctx.now);
  const r = dates[0];
  if (r) {
    let start = r.index;
    const end = r.index + r.text.length;
    const lead = LEAD_WORDS.exec(work.slice(Math.max(0, start - 12), start));
    if (lead) start -= lead[0].length;
    due = dueOf(r);
    // chrono may read across a blanked part ("tomorrow p1 9am"): the date is then the pieces around it.
    const masked = parts.filter((x) => x.start < end && x.end > start).sort((a, b) => a.start - b.start);
    let from = start;
    for (const m of [...masked, { start: end, end }]) {
      const s = from;
      const e = m.start;
      const piece = text.slice(s, e);
      const lead2 = piece.length - piece.trimStart().length;
      const tail = piece.length - piece.trimEnd().length;
      if (e - tail > s + lead2) take('date', s + lead2, e - tail);
      from = Math.max(from, m.end);
    }
  }

  const today = dateOf(ctx.now);
  if (recurrence) {
    const timeOnly = r && !r.start.isCertain('day') && !r.start.isCertain('weekday');
    if (!due || timeOnly) {
      const first = firstOccurrence(recurrence, today);
      if (first) due = due && due.length > 10 ? `${first}${due.slice(10)}` : first;
      // "every day at 9am" typed at 10: the first one is tomorrow's.
      if (due && due.length > 10 && due < dateTimeOf(ctx.now)) due = nextOccurrence(recurrence, due, today) ?? due;
    }
  }

  parts.sort((a, b) => a.start - b.start);
  let content = '';
  let at = 0;
  for (const part of parts) {
    content += text.slice(at, part.start) + ' ';
    at = part.end;
  }
  content = (content + text.slice(at)).replace(/\s+/g, ' ').trim();
  // Nothing but a date (or a project) is no task: keep the words as the content, recognise nothing.
  if (content === '') return null;
  return { content, due, priority, project, unknownProject, recurrence, labels, deadline, durationMin, parts };
}

/** The words of a stored rule (the UI's rows and editor, the action log, the CLI): RRULE parts by name. */
const DAYS: Record<string, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };
const UNITS: Record<string, [string, string]> = { DAILY: ['day', 'days'], WEEKLY: ['week', 'weeks'], MONTHLY: ['month', 'months'], YEARLY: ['year', 'years'] };

/** An RRULE in words: FREQ=WEEKLY;BYDAY=MO → "every Monday", FREQ=DAILY;INTERVAL=2 → "every 2 days". */
export function recurrenceWords(rule: string): string {
  const parts = new Map(rule.split(';').map((p) => p.split('=') as [string, string]));
  const freq = parts.get('FREQ') ?? '';
  const interval = Number(parts.get('INTERVAL') ?? '1');
  const days = (parts.get('BYDAY') ?? '').split(',').filter((d) => DAYS[d]);
  const unit = UNITS[freq];
  if (!unit) return rule;
  if (freq === 'WEEKLY' && days.length > 0) {
    const names = days.map((d) => DAYS[d]!);
    const weekdays = days.length === 5 && ['MO', 'TU', 'WE', 'TH', 'FR'].every((d) => days.includes(d));
    const list = weekdays ? 'weekday' : names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!;
    return interval > 1 ? `every ${interval} weeks on ${list}` : `every ${list}`;
  }
  const monthDay = Number(parts.get('BYMONTHDAY'));
  const on = freq === 'MONTHLY' && Number.isInteger(monthDay) && monthDay >= 1 && monthDay <= 31 ? ` on the ${ordinal(monthDay)}` : '';
  return `${interval > 1 ? `every ${interval} ${unit[1]}` : `every ${unit[0]}`}${on}`;
}

/** 1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd". */
function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}
