/**
 * A task's stored repeat rule (an RRULE value such as FREQ=WEEKLY;BYDAY=MO): whether Tidy stores it, its
 * next occurrence after a day (through the bounded walk of rule-walk.ts), and its words for people ("every
 * Monday"). Reading a repeat from typed words is repeat-phrases.ts.
 */
import ICAL from 'ical.js';
import { dateOf } from './date-words';
import { checkRule } from './recurrence';
import { RuleWalkError, wallIterator, wallOfLocal } from './rule-walk';

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
type NextOrWhy = { next: string; why?: undefined } | { next: null; why: string; unusable?: boolean };

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
