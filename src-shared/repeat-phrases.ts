/**
 * Repeats in a task's words, as Todoist's help page says them: "every monday", "every 2 weeks on tue and
 * thu", "every 3rd friday", "every jan 27th", "every evening", "every day starting dec 3 ending jan 5", or a
 * closing "daily". Each becomes a stored rule (repeat-rules.ts); quick add (quickadd.ts) reads them first,
 * so "every monday" never becomes a one-off date.
 */
import { dateOf, dueOf, parseDates } from './date-words';
import { validRecurrence } from './repeat-rules';

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
export const ADVERB = /(?<![\p{L}\p{N}_#@])(daily|weekly|monthly|yearly|annually)\s*$/iu;
export const ADVERB_RULES: Record<string, string> = { daily: 'FREQ=DAILY', weekly: 'FREQ=WEEKLY', monthly: 'FREQ=MONTHLY', yearly: 'FREQ=YEARLY', annually: 'FREQ=YEARLY' };

/** A recognised repeat: its rule, its spans in the text, and what it says of the first due and a default time. */
export interface Repeat {
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
export function readRepeatAt(work: string, at: number, now: Date): Repeat | null {
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
export const REPEATISH = /^(?:\d|other\b|last\b|first\b|second\b|third\b|fourth\b|fifth\b|hours?\b|minutes?\b|fortnight|quarter|morning|afternoon|evening|night|day|week|month|year|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/iu;
