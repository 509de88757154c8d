/**
 * Recurring events (RRULE, EXDATE, RECURRENCE-ID) expanded into occurrences in a time range. The rule is
 * walked in wall-clock time (so a 09:00 meeting stays at 09:00 across DST) by src-shared/rule-walk.ts,
 * date arithmetic or ical.js with its inner steps bounded; each occurrence is then placed in its zone with the runtime's tz data (zones.ts).
 *
 * Bounded whatever the rule says: rules that can never match (BYMONTHDAY=30 in February), which would
 * make ical.js loop forever, are refused when imported; SECONDLY and MINUTELY rules are imported as a
 * single event; long gaps are skipped arithmetically for simple rules; and every expansion stops after
 * MAX_STEPS iterator steps and MAX_OCCURRENCES occurrences per event; a rule ical.js finds no next date for
 * (it would search for ever) ends its list with a note.
 */
import ICAL from 'ical.js';
import { checkRule } from '../../../src-shared/recurrence';
import { RuleWalkError, WALK_LIMITS, wallIterator } from '../../../src-shared/rule-walk';
import { addDays, parseWall, wallDate, wallString, wallToUtc, type Wall } from './zones';

/** Steps of one event's rule per query: a rule with COUNT cannot skip ahead, so it is walked from DTSTART up to here. */
export const MAX_STEPS = 10_000;
export const MAX_OCCURRENCES = 5_000;
const DAY = 86_400_000;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const RANGES: Record<string, [number, number]> = {
  BYSECOND: [0, 60],
  BYMINUTE: [0, 59],
  BYHOUR: [0, 23],
  BYMONTHDAY: [-31, 31],
  BYYEARDAY: [-366, 366],
  BYWEEKNO: [-53, 53],
  BYMONTH: [1, 12],
  BYSETPOS: [-366, 366],
};

/**
 * Checks a rule and makes it safe to expand: its UNTIL in the event's own wall time (so the iterator
 * compares like with like), sub-hourly frequencies dropped, impossible BY combinations refused.
 * Returns the rule text to store, or null with a warning in words.
 */
export function normaliseRule(
  recur: ICAL.Recur,
  tz: string | null,
  allDay: boolean,
  _iana: (tzid: string) => string | null,
): { rule: string | null; warning?: string } {
  const freq = recur.freq;
  if (!freq) return { rule: null, warning: 'has a repeat rule without FREQ; imported as a single event' };
  if (freq === 'SECONDLY' || freq === 'MINUTELY') return { rule: null, warning: `repeats ${freq.toLowerCase()}, which is not supported; imported as a single event` };
  if (recur.interval < 1 || !Number.isInteger(recur.interval) || recur.interval > 10_000) return { rule: null, warning: 'has an INTERVAL out of range; imported as a single event' };
  const parts = recur.parts as Record<string, unknown[] | undefined>;
  for (const [name, [min, max]] of Object.entries(RANGES)) {
    for (const v of parts[name] ?? []) {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max || (n === 0 && min < 0))
        return { rule: null, warning: `has ${name}=${String(v).slice(0, 10)}, out of range; imported as a single event` };
    }
  }
  const months = (parts['BYMONTH'] ?? []).map(Number);
  const monthDays = (parts['BYMONTHDAY'] ?? []).map(Number);
  if (months.length && monthDays.length && !months.some((m) => monthDays.some((d) => Math.abs(d) <= DAYS_IN_MONTH[m - 1]!)))
    return { rule: null, warning: 'never happens (no month has that day); imported as a single event' };
  if ((parts['BYYEARDAY']?.length || parts['BYWEEKNO']?.length) && (months.length || monthDays.length || (parts['BYYEARDAY']?.length && parts['BYWEEKNO']?.length)))
    return { rule: null, warning: 'combines BYYEARDAY or BYWEEKNO with other day rules, which is not supported; imported as a single event' };
  if (recur.until) {
    const u = recur.until;
    let wall: Wall = { y: u.year, m: u.month, d: u.day, h: u.isDate ? 23 : u.hour, mi: u.isDate ? 59 : u.minute, s: u.isDate ? 59 : u.second };
    if (!u.isDate && u.zone === ICAL.Timezone.utcTimezone && tz && tz !== 'UTC') {
      // UNTIL is UTC, DTSTART is in a zone: put UNTIL in that zone's wall time.
      const ms = Date.UTC(wall.y, wall.m - 1, wall.d, wall.h, wall.mi, wall.s);
      const local = new Date(ms + offsetMinutes(ms, tz) * 60_000);
      wall = { y: local.getUTCFullYear(), m: local.getUTCMonth() + 1, d: local.getUTCDate(), h: local.getUTCHours(), mi: local.getUTCMinutes(), s: local.getUTCSeconds() };
    }
    recur.until = allDay
      ? ICAL.Time.fromData({ year: wall.y, month: wall.m, day: wall.d, isDate: true })
      : ICAL.Time.fromData({ year: wall.y, month: wall.m, day: wall.d, hour: wall.h, minute: wall.mi, second: Math.min(59, wall.s), isDate: false });
  }
  return { rule: recur.toString() };
}

function offsetMinutes(ms: number, tz: string): number {
  const w = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    .formatToParts(new Date(ms))
    .reduce<Record<string, number>>((a, p) => (p.type === 'literal' ? a : { ...a, [p.type]: Number(p.value) }), {});
  return Math.round((Date.UTC(w['year']!, w['month']! - 1, w['day']!, w['hour']! % 24, w['minute']!, w['second']!) - Math.floor(ms / 1000) * 1000) / 60_000);
}

const wallOf = (t: ICAL.Time): Wall => ({ y: t.year, m: t.month, d: t.day, h: t.isDate ? 0 : t.hour, mi: t.isDate ? 0 : t.minute, s: t.isDate ? 0 : t.second });

/** Period lengths for skipping ahead: only simple rules (every BY part repeats within the period). */
const PERIOD_DAYS: Partial<Record<string, number>> = { DAILY: 1, WEEKLY: 7 };

export interface RecurringEvent {
  start: string;
  end: string;
  allDay: boolean;
  /** The zone the wall times are in (the user's zone for floating ones). */
  zone: string;
  rrule: string;
  /** Excluded occurrences by key; a date alone (YYYY-MM-DD) excludes a timed event's occurrence on that day. */
  exdates: readonly string[];
  /** Extra occurrences (RDATE), as wall times in the event's zone (or dates for an all-day event). */
  rdates?: readonly string[];
  /** Occurrence keys replaced by a RECURRENCE-ID row. */
  overridden: ReadonlySet<string>;
}

export interface Occurrence {
  startMs: number;
  endMs: number;
  /** The occurrence's original start in the event's wall time (what RECURRENCE-ID and EXDATE name). */
  key: string;
}

export interface Expansion {
  occurrences: Occurrence[];
  truncated: boolean;
  /** Why the event is shown once or was cut, in words (the rule cannot be used, too many occurrences). */
  note?: string;
}

const instant = (w: Wall, allDay: boolean, zone: string): number => (allDay ? wallToUtc({ ...w, h: 0, mi: 0, s: 0 }, zone) : wallToUtc(w, zone));

/** Adds months to a wall time, the day kept (callers keep it at most 28). */
function addMonths(w: Wall, months: number): Wall {
  const total = w.y * 12 + (w.m - 1) + months;
  return { ...w, y: Math.floor(total / 12), m: (total % 12) + 1 };
}

/**
 * A later start for the iterator, a whole number of periods after DTSTART and a few periods before
 * `fromMs`, so the walk starts near the window instead of at DTSTART (a rule from 1950 or the year 1000
 * costs as much as one from last week). Only for rules without COUNT (counting needs every occurrence),
 * and only where a whole number of periods keeps every BY part's pattern; the rule is completed with the
 * parts DTSTART implied (BYMONTHDAY, BYMONTH) so moving the start changes nothing. Null: start at DTSTART.
 */
function skipAhead(recur: ICAL.Recur, start: Wall, firstStart: number, fromMs: number, durationMs: number): { start: Wall; recur: ICAL.Recur } | null {
  if (recur.count) return null;
  const target = fromMs - Math.max(0, durationMs) - firstStart;
  if (target <= 0) return null;
  const parts = recur.parts as Record<string, unknown[] | undefined>;
  const has = (name: string): boolean => (parts[name]?.length ?? 0) > 0;
  const interval = recur.interval || 1;
  const days = PERIOD_DAYS[recur.freq];
  if (days !== undefined) {
    const step = days * interval;
    const k = Math.floor((Math.floor(target / DAY) - step - 2) / step);
    return k > 0 ? { start: addDays(start, k * step), recur } : null;
  }
  if (recur.freq === 'HOURLY') {
    const k = Math.floor((Math.floor(target / 3_600_000) - 48) / interval);
    if (k <= 0) return null;
    const t = new Date(Date.UTC(start.y, start.m - 1, start.d, start.h + k * interval, start.mi, start.s));
    return { start: { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), mi: t.getUTCMinutes(), s: t.getUTCSeconds() }, recur };
  }
  if (recur.freq !== 'MONTHLY' && recur.freq !== 'YEARLY') return null;
  const months = (recur.freq === 'YEARLY' ? 12 : 1) * interval;
  const k = Math.floor((Math.floor(target / (31 * DAY)) - months - 2) / months);
  if (k <= 0) return null;
  const next = recur.clone();
  const nextParts = next.parts as Record<string, unknown[]>;
  if (recur.freq === 'MONTHLY' && !has('BYMONTHDAY') && !has('BYDAY') && !has('BYYEARDAY')) nextParts['BYMONTHDAY'] = [start.d];
  if (recur.freq === 'YEARLY' && !has('BYMONTHDAY') && !has('BYDAY') && !has('BYYEARDAY') && !has('BYWEEKNO')) {
    if (!has('BYMONTH')) nextParts['BYMONTH'] = [start.m];
    nextParts['BYMONTHDAY'] = [start.d];
  }
  const moved = addMonths({ ...start, d: Math.min(start.d, 28) }, k * months);
  return { start: moved, recur: next };
}

/** The event once, at its own start, when its rule cannot be walked: never an error for the whole query. */
function once(e: RecurringEvent, start: Wall, end: Wall, fromMs: number, toMs: number, note: string): Expansion {
  const s = instant(start, e.allDay, e.zone);
  const endMs = instant(end, e.allDay, e.zone);
  const overlaps = s < toMs && (endMs > fromMs || (endMs === s && s >= fromMs));
  return { occurrences: overlaps ? [{ startMs: s, endMs, key: e.allDay ? wallDate(start) : wallString(start) }] : [], truncated: false, note };
}

/** The occurrences of a recurring event that overlap [fromMs, toMs), in order; bounded (see the module comment). Never throws. */
export function expand(e: RecurringEvent, fromMs: number, toMs: number, budget: { steps: number } = { steps: MAX_STEPS }): Expansion {
  const start = parseWall(e.start);
  const end = parseWall(e.end);
  if (!start || !end) return { occurrences: [], truncated: false };
  const check = checkRule(e.rrule);
  if (!check.ok) return once(e, start, end, fromMs, toMs, `its repeat rule cannot be used (${check.error}); shown once`);
  try {
    return walk(e, start, end, fromMs, toMs, budget);
  } catch (err) {
    return once(e, start, end, fromMs, toMs, `its repeat rule cannot be used (${(err instanceof Error ? err.message : String(err)).slice(0, 80)}); shown once`);
  }
}

function walk(e: RecurringEvent, start: Wall, end: Wall, fromMs: number, toMs: number, budget: { steps: number }): Expansion {
  let recur = ICAL.Recur.fromString(e.rrule);
  const firstStart = instant(start, e.allDay, e.zone);
  const durationMs = instant(end, e.allDay, e.zone) - firstStart;
  const durationDays = e.allDay ? Math.round((Date.UTC(end.y, end.m - 1, end.d) - Date.UTC(start.y, start.m - 1, start.d)) / DAY) : 0;

  // Start near the window (see skipAhead): a daily stand-up since 2015 costs nothing. The skipped-to
  // start is yielded even if the rule would not pick it, but it ends before the range.
  let dtstart = start;
  const skipped = skipAhead(recur, start, firstStart, fromMs, durationMs);
  if (skipped) {
    dtstart = skipped.start;
    recur = skipped.recur;
  }

  const exdates = new Set(e.exdates);
  const excluded = (key: string): boolean => exdates.has(key) || (!e.allDay && exdates.has(key.slice(0, 10))) || e.overridden.has(key);
  const out: Occurrence[] = [];
  const push = (w: Wall): boolean => {
    const s = instant(w, e.allDay, e.zone);
    if (s >= toMs) return false;
    const endMs = e.allDay ? instant(addDays(w, durationDays), true, e.zone) : s + durationMs;
    if (endMs <= fromMs && !(endMs === s && s >= fromMs)) return true;
    const key = e.allDay ? wallDate(w) : wallString(w);
    if (!excluded(key)) out.push({ startMs: s, endMs, key });
    return true;
  };
  const it = wallIterator(recur, dtstart, e.allDay, { ...WALK_LIMITS, budget });
  let truncated = false;
  let stalled: string | null = null;
  let steps = 0;
  // A rule that stops finding dates (RuleWalkError) keeps the occurrences found so far, with a note.
  const nextWall = (): Wall | null => {
    try {
      return it.next();
    } catch (err) {
      if (!(err instanceof RuleWalkError)) throw err;
      stalled = err.message;
      return null;
    }
  };
  for (let t = nextWall(); t; t = nextWall()) {
    if (++steps > MAX_STEPS || --budget.steps < 0) {
      truncated = true;
      break;
    }
    const w = t;
    // The skipped-to start itself is not an occurrence when the rule would not pick it.
    if (skipped && steps === 1) {
      if (instant(w, e.allDay, e.zone) + Math.max(0, durationMs) <= fromMs) continue;
    }
    if (!push(w)) break;
    if (out.length >= MAX_OCCURRENCES) {
      truncated = true;
      break;
    }
  }
  const keys = new Set(out.map((o) => o.key));
  for (const r of e.rdates ?? []) {
    const w = parseWall(r);
    if (!w || keys.has(e.allDay ? wallDate(w) : wallString(w))) continue;
    push(w);
  }
  if (e.rdates?.length) out.sort((a, b) => a.startMs - b.startMs);
  if (out.length > MAX_OCCURRENCES) out.length = MAX_OCCURRENCES;
  if (stalled !== null) return { occurrences: out, truncated: true, note: `${stalled as string}; later occurrences were not listed` };
  return truncated
    ? { occurrences: out, truncated, note: `it repeats more often than Tidy lists (${MAX_OCCURRENCES.toLocaleString('en')} occurrences or ${MAX_STEPS.toLocaleString('en')} steps of its rule per event); later occurrences were cut` }
    : { occurrences: out, truncated };
}

/**
 * The end of the last occurrence as UTC ms (for the range index), or null when it recurs without end
 * (or too often to count cheaply). Floating times count as UTC, as in the events table.
 */
export function lastOccurrenceEnd(rrule: string, start: string, allDay: boolean, tz: string | null, durationMs: number): number | null {
  let recur: ICAL.Recur;
  try {
    if (!checkRule(rrule).ok) return null;
    recur = ICAL.Recur.fromString(rrule);
  } catch {
    return null;
  }
  const zone = tz ?? 'UTC';
  const margin = 2 * DAY; // floating times move with the user's zone; a zone change moves UNTIL by hours
  if (recur.until) {
    const u = wallOf(recur.until);
    return instant(recur.until.isDate ? { ...u, h: 23, mi: 59, s: 59 } : u, false, zone) + Math.max(0, durationMs) + margin;
  }
  if (recur.count && recur.count <= 2_000) {
    const w = parseWall(start);
    if (!w) return null;
    let last: Wall | null = null;
    let steps = 0;
    try {
      const it = wallIterator(recur, w, allDay);
      for (let t = it.next(); t && steps < MAX_STEPS; t = it.next(), steps++) last = t;
    } catch {
      return null;
    }
    if (steps >= MAX_STEPS) return null;
    return last ? instant(last, allDay, zone) + Math.max(0, durationMs) + margin : null;
  }
  return null;
}

export { wallString };
export { icalWallIterator, wallIterator } from '../../../src-shared/rule-walk';
