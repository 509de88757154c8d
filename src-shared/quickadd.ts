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
import { RuleWalkError, wallIterator, wallOfLocal } from './rule-walk';

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
  /** The existing project nearest to the unknown name, for "Did you mean Family?" ("#Famly"); null when none is near. */
  projectSuggestion: { id: string; name: string } | null;
  /** An RRULE value such as 'FREQ=WEEKLY;BYDAY=MO'. */
  recurrence: string | null;
  /** `@label` words (several, any case; without the @), in text order, no repeats. */
  labels: string[];
  /** `{friday}`: the date it must be done by (YYYY-MM-DD), beside the planned due. */
  deadline: string | null;
  /** `for 45m`, `for 2h`, `for 1h30m`: minutes. */
  durationMin: number | null;
  /**
   * An "every …" phrase that says a repeat but is none Tidy reads ("every 12 hours", "every fortnight"): it
   * stays whole in the content, and the preview says so. Null when there is none.
   */
  unread: string | null;
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
const DAY_LIST = `${DAY}(?:\\s*(?:,|and|&)\\s*${DAY})*`;
const UNIT = '(?:day|week|month|year|weekday|workday|weekend)s?';
const NUMBER_WORDS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12 };
const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11, dec: 12, december: 12,
};
const MONTH = `(?:${Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|')})`;
const ORDINAL_WORDS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, last: -1 };
/** "3rd", "1st", "third", "last". */
const ORD = '(?:\\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|last)';
const OF_MONTH = '(?:\\s+of\\s+(?:the|each|every)\\s+month)?';
const END = '(?![\\p{L}\\p{N}])';
/** Todoist's times of day: "every morning" is every day at 9am. */
const TIMES_OF_DAY: Record<string, string> = { morning: '09:00', afternoon: '12:00', evening: '19:00', night: '22:00' };

const ordinalOf = (s: string): number => ORDINAL_WORDS[s.toLowerCase()] ?? parseInt(s, 10);
const dayList = (what: string): string[] => [
  ...new Set(
    what
      .toLowerCase()
      .split(/\s*(?:,|and|&)\s*/)
      .map((d) => DAY_CODES[d.trim().replace(/s$/, '')] ?? DAY_CODES[d.trim()])
      .filter((d): d is string => d !== undefined),
  ),
];

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
  const days = dayList(what);
  if (days.length === 0) return null;
  return `FREQ=WEEKLY${every};BYDAY=${days.join(',')}`;
}

/** One way of saying a repeat after "every ": its pattern (read at the word after "every") and the rule it gives. */
interface Phrase {
  re: RegExp;
  rule(m: RegExpExecArray): string | null;
  /** The time of day the phrase implies ("every evening": 19:00) when no time is typed. */
  time?(m: RegExpExecArray): string;
}

const sticky = (source: string): RegExp => new RegExp(source, 'iuy');

/**
 * The phrases of Todoist's help page on recurring dates that a task can repeat by (daily to yearly), tried in
 * this order at the word after "every"; the first that matches wins. Hourly repeats ("every 12 hours") are
 * not task repeats: they stay text and the preview says so.
 */
const PHRASES: Phrase[] = [
  // every morning / afternoon / evening / night
  { re: sticky(`(morning|afternoon|evening|night)s?${END}`), rule: () => 'FREQ=DAILY', time: (m) => TIMES_OF_DAY[m[1]!.toLowerCase()]! },
  // every last day (of the month)
  { re: sticky(`last\\s+day${OF_MONTH}${END}`), rule: () => 'FREQ=MONTHLY;BYMONTHDAY=-1' },
  // every first workday, every last workday, every 15th workday (of the month)
  { re: sticky(`(${ORD})\\s+(?:workday|weekday|business\\s+day)${OF_MONTH}${END}`), rule: (m) => `FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=${ordinalOf(m[1]!)}` },
  // every 3rd friday, every last monday (of the month)
  { re: sticky(`(${ORD})\\s+(${DAY})${OF_MONTH}${END}`), rule: (m) => `FREQ=MONTHLY;BYDAY=${ordinalOf(m[1]!)}${dayList(m[2]!)[0]}` },
  // every 2nd week, every 3rd day: an interval
  { re: sticky(`(\\d{1,2})(?:st|nd|rd|th)\\s+(day|week|month|year)${END}`), rule: (m) => everyRule(undefined, String(parseInt(m[1]!, 10)), m[2]!) },
  // every jan 27th, every january 27, every 27th of january, every 27 jan
  {
    re: sticky(`(?:(${MONTH})\\s+(\\d{1,2})(?:st|nd|rd|th)?|(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH}))${END}`),
    rule: (m) => `FREQ=YEARLY;BYMONTH=${MONTHS[(m[1] ?? m[4])!.toLowerCase()]};BYMONTHDAY=${parseInt((m[2] ?? m[3])!, 10)}`,
  },
  // every 27th, every 2nd of the month, every 15 of each month
  { re: sticky(`(?:(\\d{1,2})(?:st|nd|rd|th)(?:\\s+(?:day\\s+)?of\\s+(?:the|each|every)\\s+month)?|(\\d{1,2})\\s+(?:day\\s+)?of\\s+(?:the|each|every)\\s+month)${END}`), rule: (m) => `FREQ=MONTHLY;BYMONTHDAY=${parseInt((m[1] ?? m[2])!, 10)}` },
  // every other day / week / monday, every 2 weeks, every three days, every mon and thu, every weekday
  {
    re: sticky(`(?:(other)\\s+|(\\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})\\s+)?(${DAY_LIST}|${UNIT})${END}`),
    rule: (m) => everyRule(m[1], m[2], m[3]!),
  },
];

/** What may follow "every month": " on the 1st", " on the 15th", " on day 3". */
const MONTH_DAY = /^\s+on\s+(?:the\s+|day\s+)?(\d{1,2})(?:st|nd|rd|th)?(?![\p{L}\p{N}])/iu;
/** What may follow "every 2 weeks": " on monday", " on mon and thu". */
const WEEK_DAYS = new RegExp(`^\\s+on\\s+(${DAY_LIST})(?![\\p{L}\\p{N}])`, 'iu');
/** A time typed between the repeat and its start or end ("every day at 9am starting monday"): left for the dates. */
const TIME_BETWEEN = /^\s+(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:am|pm)?(?![\p{L}\p{N}])/iu;
const START_WORDS = /^\s+(?:starting|beginning|from)(?:\s+(?:on|from))?\s+/iu;
const END_WORDS = /^\s+(?:ending|until|till)(?:\s+on)?\s+/iu;
/** The one-word repeats, read only as the last word of the line ("Standup daily"; "Create monthly report" stays text). */
const ADVERB = /(?<![\p{L}\p{N}_#@])(daily|weekly|monthly|yearly|annually)\s*$/iu;
const ADVERB_RULES: Record<string, string> = { daily: 'FREQ=DAILY', weekly: 'FREQ=WEEKLY', monthly: 'FREQ=MONTHLY', yearly: 'FREQ=YEARLY', annually: 'FREQ=YEARLY' };

/** A recognised repeat: its rule, its spans in the text, and what it says of the first due and a default time. */
interface Repeat {
  rule: string;
  spans: [number, number][];
  /** 'YYYY-MM-DD' or with a time: "starting dec 3". */
  start: string | null;
  time: string | null;
}

/** A date right at the start of `rest` (after spaces), with its length in `rest`. */
function dateAt(rest: string, now: Date): { due: string; length: number } | null {
  const lead = rest.length - rest.trimStart().length;
  const r = parseDates(rest.slice(0, 80), now)[0];
  if (!r || r.index !== lead) return null;
  return { due: dueOf(r), length: r.index + r.text.length };
}

/** Reads a repeat phrase that begins at `at` (the index of "every" in `work`); null when it is not one. */
function readRepeatAt(work: string, at: number, now: Date): Repeat | null {
  const head = /^every\s+/iu.exec(work.slice(at));
  if (!head) return null;
  const from = at + head[0].length;
  for (const phrase of PHRASES) {
    phrase.re.lastIndex = from;
    const m = phrase.re.exec(work);
    if (!m) continue;
    let rule = phrase.rule(m);
    if (!rule) continue;
    let end = from + m[0].length;
    // "every month on the 1st": the day of the month belongs to the repeat, not to a one-off date.
    const onDay = rule.startsWith('FREQ=MONTHLY') && !rule.includes(';BY') ? MONTH_DAY.exec(work.slice(end)) : null;
    if (onDay && Number(onDay[1]) >= 1 && Number(onDay[1]) <= 31) {
      rule = `${rule};BYMONTHDAY=${Number(onDay[1])}`;
      end += onDay[0].length;
    }
    const onDays = /^FREQ=WEEKLY(;INTERVAL=\d+)?$/.test(rule) ? WEEK_DAYS.exec(work.slice(end)) : null;
    if (onDays) {
      rule = `${rule};BYDAY=${dayList(onDays[1]!).join(',')}`;
      end += onDays[0].length;
    }
    if (!validRecurrence(rule)) return null;
    const repeat: Repeat = { rule, spans: [[at, end]], start: null, time: phrase.time?.(m) ?? null };
    readBounds(work, end, now, repeat);
    return repeat;
  }
  return null;
}

/** "starting <date>" and "ending <date>" after a repeat (a time may stand between: it is left for the dates). */
function readBounds(work: string, from: number, now: Date, repeat: Repeat): void {
  let at = from;
  for (let i = 0; i < 3; i++) {
    const rest = work.slice(at);
    const time = TIME_BETWEEN.exec(rest);
    const skip = time ? time[0].length : 0;
    const after = rest.slice(skip);
    const start = repeat.start === null ? START_WORDS.exec(after) : null;
    const stop = !repeat.rule.includes(';UNTIL=') ? END_WORDS.exec(after) : null;
    const words = start ?? stop;
    if (!words) return;
    const date = dateAt(after.slice(words[0].length), now);
    if (!date) return;
    const s = at + skip + (after.length - after.trimStart().length);
    const e = at + skip + words[0].length + date.length;
    if (start) repeat.start = date.due;
    else {
      // An end before the start (or before today) would leave no occurrence: it stays text.
      const until = date.due.slice(0, 10);
      const rule = `${repeat.rule};UNTIL=${until.replace(/-/g, '')}`;
      if (until < (repeat.start ?? dateOf(now)).slice(0, 10) || !validRecurrence(rule)) return;
      repeat.rule = rule;
    }
    repeat.spans.push([s, e]);
    at = e;
  }
}

/** Words after an "every" that say a repeat was meant, though not one Tidy reads ("every 12 hours", "every fortnight"). */
const REPEATISH = /^(?:\d|other\b|last\b|first\b|second\b|third\b|fourth\b|fifth\b|hours?\b|minutes?\b|fortnight|quarter|morning|afternoon|evening|night|day|week|month|year|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/iu;

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

/**
 * The first occurrence of `rule`, counted from `start` (a due date or date-time, the first occurrence
 * when it fits the rule), that falls on a day after `after` ('YYYY-MM-DD'), in the same form as `start`.
 * Null when the rule has none within a bounded walk (src-shared/rule-walk.ts): a rule such as
 * FREQ=YEARLY;BYMONTHDAY=31;BYMONTH=2, or FREQ=DAILY;INTERVAL=7;BYDAY=TU from a Monday.
 */
export function nextOccurrence(rule: string, start: string, after: string): string | null {
  return walkToNext(rule, start, after).next;
}

/** The next occurrence, or why there is none, in words that follow "its rule gives no later date (…)". */
export type NextOrWhy = { next: string; why?: undefined } | { next: null; why: string; unusable?: boolean };

/** Occurrences skipped on the way to the first after `after`: a daily rule reaches years ahead well within this bound. */
const SKIP_MAX = 50_000;

function walkToNext(rule: string, start: string, after: string): NextOrWhy {
  if (!validRecurrence(rule)) {
    const check = checkRule(rule, { freqs: TASK_FREQS });
    return { next: null, why: check.ok ? 'it is not a rule Tidy repeats tasks by' : check.error, unusable: true };
  }
  const from = wallOfLocal(start);
  if (!from) return { next: null, why: `its start ${JSON.stringify(start.slice(0, 20))} is not a date`, unusable: true };
  let given = 0;
  try {
    const it = wallIterator(ICAL.Recur.fromString(rule), from, start.length <= 10);
    for (; given < SKIP_MAX; given++) {
      const next = it.next();
      if (!next) break;
      const date = `${String(next.y).padStart(4, '0')}-${String(next.m).padStart(2, '0')}-${String(next.d).padStart(2, '0')}`;
      if (date > after) return { next: start.length > 10 ? `${date}T${start.slice(11, 16)}` : date };
    }
  } catch (e) {
    // A rule whose walk ran past its bound (RuleWalkError), or a stored rule ical.js cannot read.
    return { next: null, why: e instanceof RuleWalkError ? `Tidy stopped looking: ${e.message.replace(/^the repeat rule /, 'it ')}` : 'it cannot be read' };
  }
  if (given >= SKIP_MAX) return { next: null, why: `none among its next ${SKIP_MAX.toLocaleString('en')} dates` };
  const count = /(?:^|;)COUNT=(\d+)/.exec(rule)?.[1];
  if (count !== undefined && given >= Number(count)) return { next: null, why: `COUNT=${count}: ${count === '1' ? 'its one date is' : `all ${count} of its dates are`} used up` };
  const until = /(?:^|;)UNTIL=(\d{4})(\d{2})(\d{2})/.exec(rule);
  if (until) return { next: null, why: `it ends on ${until[1]}-${until[2]}-${until[3]}` };
  return { next: null, why: `no day after ${start.slice(0, 10)} fits it` };
}

/**
 * What completing a repeating task due `due` does to it, on `today` ('YYYY-MM-DD'): its next due date
 * (after both its due date and today, so an overdue daily task lands on tomorrow), or, when there is
 * none, the clause that says why ("its rule gives no later date (COUNT=3: …), so it will not come back").
 * The core's completion, the tools and the window's notice all say it in these words.
 */
export function nextDueOnCompletion(rule: string, due: string, today: string): { next: string; clause?: undefined } | { next: null; clause: string } {
  const from = due.slice(0, 10) > today ? due.slice(0, 10) : today;
  const r = walkToNext(rule, due, from);
  if (r.next !== null) return { next: r.next };
  return { next: null, clause: r.unusable ? `its repeat rule cannot be used (${r.why}), so it does not repeat` : `its rule gives no later date (${r.why}), so it will not come back` };
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

/** Words a date cannot follow without leaving them dangling ("Think of tomorrow", "every … ending jan 5" refused). */
const DANGLING = /(?<![\p{L}\p{N}_])(?:of|every|starting|ending|beginning)\s+(?:(?:on|by|due|at|before)\s+)?$/iu;

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
    projectSuggestion: null,
    recurrence: null,
    labels: [],
    deadline: null,
    durationMin: null,
    unread: null,
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
  let repeat: Repeat | null = null;
  // The words after an "every" that is no repeat Tidy reads: no date is taken from them, so "every 12 hours
  // tomorrow" or "every fortnight" stay whole rather than leave "every" behind.
  const unreadEvery: { start: number; end: number; phrase: string; said: boolean }[] = [];
  for (const m of text.matchAll(/(?<![\p{L}\p{N}_])every(?![\p{L}\p{N}_])/giu)) {
    if (repeat?.spans.some(([s, e]) => m.index >= s && m.index < e)) continue;
    // Not after a word it would leave dangling ("every every day", "of every month"): that stays text.
    const dangling = DANGLING.test(work.slice(Math.max(0, m.index - 24), m.index));
    const found: Repeat | null = repeat === null && !dangling ? readRepeatAt(work, m.index, ctx.now) : null;
    if (found) {
      repeat = found;
      continue;
    }
    const words = [...text.slice(m.index + 5, m.index + 125).matchAll(/\S+/gu)].slice(0, 3);
    const kept = words.findIndex((w) => /^[#@{]|^p[1-4]$/iu.test(w[0]));
    const window = kept === -1 ? words : words.slice(0, kept);
    const last = window.at(-1);
    const end = last ? m.index + 5 + last.index + last[0].length : m.index + 5;
    const next = window[0]?.[0] ?? '';
    const phraseEnd = window.length > 1 && /^\d|^(?:other|last|first|second|third|fourth|fifth)$/iu.test(next) ? 2 : window.length > 0 ? 1 : 0;
    const shownEnd = phraseEnd ? m.index + 5 + window[phraseEnd - 1]!.index + window[phraseEnd - 1]![0].length : end;
    unreadEvery.push({ start: m.index, end, phrase: text.slice(m.index, shownEnd), said: REPEATISH.test(next) });
  }
  // "daily" at the end, unless an "every" was typed that is not read: one repeat a line, and no "every" left.
  if (repeat === null && unreadEvery.length === 0) {
    const adverb = ADVERB.exec(work);
    if (adverb && !DANGLING.test(work.slice(Math.max(0, adverb.index - 24), adverb.index))) repeat = { rule: ADVERB_RULES[adverb[1]!.toLowerCase()]!, spans: [[adverb.index, adverb.index + adverb[0].trimEnd().length]], start: null, time: null };
  }
  const recurrence = repeat?.rule ?? null;
  for (const [s, e] of repeat?.spans ?? []) take('recurrence', s, e);

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

  // Dates and times, in what is left: not one inside the words of an "every" Tidy did not read, nor one
  // that "of", "every", "starting" or "ending" points at ("Think of tomorrow"), which would leave those behind.
  let due: string | null = null;
  const r = parseDates(work, ctx.now).find((d) => {
    const guard = unreadEvery.find((u) => d.index < u.end && d.index + d.text.length > u.start);
    if (guard) {
      guard.said = true;
      return false;
    }
    return !DANGLING.test(work.slice(Math.max(0, d.index - 24), d.index));
  });
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
  if (repeat) {
    const timeOnly = r && !r.start.isCertain('day') && !r.start.isCertain('weekday');
    if (!due || timeOnly) {
      // The first occurrence on or after the start ("starting dec 3") or today, at the typed time, else the
      // start's time, else the phrase's ("every evening": 19:00).
      const time = due && due.length > 10 ? due.slice(10) : repeat.start && repeat.start.length > 10 ? repeat.start.slice(10) : repeat.time ? `T${repeat.time}` : '';
      const first = firstOccurrence(repeat.rule, (repeat.start ?? today).slice(0, 10));
      due = first ? `${first}${time}` : null;
      // "every day at 9am" typed at 10: the first one is tomorrow's.
      if (due && due.length > 10 && due < dateTimeOf(ctx.now)) due = nextOccurrence(repeat.rule, due, today) ?? due;
    }
  }
  const unread = unreadEvery.find((u) => u.said)?.phrase ?? null;

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
  const projectSuggestion = unknownProject && !project ? nearestProject(unknownProject, ctx.projects) : null;
  return { content, due, priority, project, unknownProject, projectSuggestion, recurrence, labels, deadline, durationMin, unread, parts };
}

/** Edit distance (insertions, deletions, substitutions, swaps of neighbours) of two short strings. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * The existing project a mistyped #name most likely meant ("Famly" → Family, "wrok" → Work, "birthday" →
 * "Birthday Celebration" as the start of its name): the nearest by edit distance, at most 1 for names of up to
 * 4 letters and 2 beyond; null when none is that near or two are equally near. Bounded: names over 60
 * characters and lists beyond 2,000 projects are not compared.
 */
export function nearestProject(name: string, projects: readonly { id: string; name: string }[]): { id: string; name: string } | null {
  const typed = name.toLowerCase();
  if (typed.length === 0 || typed.length > 60) return null;
  const limit = typed.length <= 4 ? 1 : 2;
  let best: { id: string; name: string } | null = null;
  let bestD = Infinity;
  let tie = false;
  for (const p of projects.slice(0, 2000)) {
    const candidate = p.name.toLowerCase();
    if (candidate.length === 0 || candidate.length > 60 || Math.abs(candidate.length - typed.length) > limit) {
      // A multi-word name whose first word was typed ("#birthday" → Birthday Celebration) counts as near.
      if (!(candidate.startsWith(`${typed} `) && typed.length >= 3)) continue;
    }
    const dd = candidate.startsWith(`${typed} `) ? limit : distance(typed, candidate);
    if (dd > limit || dd === 0) continue;
    if (dd < bestD) {
      best = { id: p.id, name: p.name };
      bestD = dd;
      tie = false;
    } else if (dd === bestD) tie = true;
  }
  return tie ? null : best;
}

/** The words of a stored rule (the UI's rows and editor, the action log, the CLI): RRULE parts by name. */
const DAYS: Record<string, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };
const UNITS: Record<string, [string, string]> = { DAILY: ['day', 'days'], WEEKLY: ['week', 'weeks'], MONTHLY: ['month', 'months'], YEARLY: ['year', 'years'] };

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const nth = (n: number): string => (n === -1 ? 'last' : ordinal(n));

/**
 * An RRULE in words: FREQ=WEEKLY;BYDAY=MO → "every Monday", FREQ=DAILY;INTERVAL=2 → "every 2 days",
 * FREQ=MONTHLY;BYDAY=3FR → "every 3rd Friday", FREQ=MONTHLY;BYMONTHDAY=-1 → "every last day of the month",
 * with " until Jan 5, 2027" for an UNTIL.
 */
export function recurrenceWords(rule: string): string {
  const parts = new Map(rule.split(';').map((p) => p.split('=') as [string, string]));
  const until = /^(\d{4})(\d{2})(\d{2})/.exec(parts.get('UNTIL') ?? '');
  const end = until ? ` until ${MONTH_NAMES[Number(until[2]) - 1]?.slice(0, 3) ?? until[2]} ${Number(until[3])}, ${until[1]}` : '';
  return repeatWords(parts, rule) + end;
}

function repeatWords(parts: Map<string, string>, rule: string): string {
  const freq = parts.get('FREQ') ?? '';
  const interval = Number(parts.get('INTERVAL') ?? '1');
  const byday = (parts.get('BYDAY') ?? '').split(',').filter(Boolean);
  const days = byday.filter((d) => DAYS[d]);
  const unit = UNITS[freq];
  if (!unit) return rule;
  const monthDay = Number(parts.get('BYMONTHDAY'));
  const validDay = Number.isInteger(monthDay) && ((monthDay >= 1 && monthDay <= 31) || monthDay === -1);
  if (freq === 'MONTHLY' && interval === 1) {
    const setpos = Number(parts.get('BYSETPOS'));
    const workdays = days.length === 5 && ['MO', 'TU', 'WE', 'TH', 'FR'].every((d) => days.includes(d));
    if (workdays && Number.isInteger(setpos) && setpos !== 0) return `every ${nth(setpos)} workday of the month`;
    const numbered = byday.length === 1 ? /^([+-]?\d{1,2})([A-Z]{2})$/.exec(byday[0]!) : null;
    if (numbered && DAYS[numbered[2]!]) return `every ${nth(Number(numbered[1]))} ${DAYS[numbered[2]!]} of the month`;
    if (monthDay === -1) return 'every last day of the month';
  }
  if (freq === 'YEARLY' && interval === 1) {
    const month = Number(parts.get('BYMONTH'));
    if (Number.isInteger(month) && month >= 1 && month <= 12 && validDay && monthDay > 0) return `every ${MONTH_NAMES[month - 1]} ${monthDay}`;
  }
  if (freq === 'WEEKLY' && days.length > 0) {
    const names = days.map((d) => DAYS[d]!);
    const weekdays = days.length === 5 && ['MO', 'TU', 'WE', 'TH', 'FR'].every((d) => days.includes(d));
    const list = weekdays ? 'weekday' : names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!;
    return interval > 1 ? `every ${interval} weeks on ${list}` : `every ${list}`;
  }
  const on = freq === 'MONTHLY' && validDay ? ` on the ${monthDay === -1 ? 'last day' : ordinal(monthDay)}` : '';
  return `${interval > 1 ? `every ${interval} ${unit[1]}` : `every ${unit[0]}`}${on}`;
}

/** 1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd". */
function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix}`;
}
