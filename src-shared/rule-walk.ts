/**
 * The one walk of recurrence rules (RRULE, RFC 5545) in Tidy: the calendar's occurrences, a repeating
 * task's next due date, a routine's runs. It is bounded whatever the rule says.
 *
 * DAILY and WEEKLY rules whose only part is a plain BYDAY (stand-ups, weekly meetings, "every 2 weeks")
 * are walked with date arithmetic, which also knows when such a rule has nothing after DTSTART (every 7th
 * day is always the same weekday). Every other rule is walked by ical.js's RecurIterator, whose search for
 * one date is a loop without end when the rule can never match again (FREQ=DAILY;INTERVAL=7;BYDAY=TU;
 * BYHOUR=9 from a Monday): here each of its inner steps is counted, and a walk past STEPS_PER_DATE steps
 * for one date, or past STEPS_PER_WALK in all, ends with a RuleWalkError in words.
 *
 * No Node API (the renderer walks rules too, in the task editor's preview).
 */
import ICAL from 'ical.js';

/** A wall-clock time (no zone): what a rule is walked in. */
export interface Wall {
  y: number;
  m: number; // 1-12
  d: number;
  h: number;
  mi: number;
  s: number;
}

/**
 * Inner steps of ical.js (one candidate day, hour or month each; about 15 µs) to find one date, and in
 * one walk. A rule that matches at all matches within years of days (Friday the 13th of February: at
 * most 11 years, 4,018 days).
 */
export const WALK_LIMITS = { stepsPerDate: 10_000, stepsPerWalk: 100_000 } as const;

export interface WalkLimits {
  stepsPerDate: number;
  stepsPerWalk: number;
  /** Steps shared by several walks (one calendar query), taken from as ical.js steps. */
  budget?: { steps: number };
}

/** A walk that ran past its bound: the rule finds no (further) date in reasonable time. */
export class RuleWalkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuleWalkError';
  }
}

export interface WallWalk {
  /** The next wall the rule gives, null when it gives no more; throws RuleWalkError past the bound. */
  next(): Wall | null;
}

const icalTime = (w: Wall, allDay: boolean): ICAL.Time =>
  ICAL.Time.fromData(allDay ? { year: w.y, month: w.m, day: w.d, isDate: true } : { year: w.y, month: w.m, day: w.d, hour: w.h, minute: w.mi, second: w.s, isDate: false });

const wallOf = (t: ICAL.Time): Wall => ({ y: t.year, m: t.month, d: t.day, h: t.isDate ? 0 : t.hour, mi: t.isDate ? 0 : t.minute, s: t.isDate ? 0 : t.second });

/**
 * ical.js's iterator with its inner steps counted: the iterator checks the rule's limiting parts
 * (check_contracting_rules) once per candidate in every frequency's search loop, so counting those calls
 * bounds the loop that never ends.
 */
function boundedIcal(recur: ICAL.Recur, dtstart: Wall, allDay: boolean, limits: WalkLimits): WallWalk {
  const it = recur.iterator(icalTime(dtstart, allDay));
  const check = it.check_contracting_rules.bind(it);
  let forDate = 0;
  let total = 0;
  it.check_contracting_rules = (): boolean => {
    if (++forDate > limits.stepsPerDate)
      throw new RuleWalkError(`the repeat rule finds no next date within ${limits.stepsPerDate.toLocaleString('en')} steps`);
    if (++total > limits.stepsPerWalk || (limits.budget && --limits.budget.steps < 0))
      throw new RuleWalkError(`the repeat rule takes more than ${Math.min(total, limits.stepsPerWalk).toLocaleString('en')} steps`);
    return check();
  };
  return {
    next: () => {
      forDate = 0;
      const t = it.next();
      return t ? wallOf(t) : null;
    },
  };
}

/**
 * The walls a rule gives from `dtstart`, in order, as ical.js's RecurIterator gives them (DTSTART first,
 * COUNT counted from it, nothing after UNTIL): the date-arithmetic walk where it applies, else ical.js,
 * bounded. test/unit/calendar/ics.test.ts checks that both give the same walls.
 */
export function wallIterator(recur: ICAL.Recur, dtstart: Wall, allDay: boolean, limits: WalkLimits = WALK_LIMITS): WallWalk {
  return simpleWalls(recur, dtstart, allDay) ?? boundedIcal(recur, dtstart, allDay, limits);
}

/** The walls ical.js gives (the reference for the fast path), bounded as every walk is. */
export function icalWallIterator(recur: ICAL.Recur, dtstart: Wall, allDay: boolean, limits: WalkLimits = WALK_LIMITS): WallWalk {
  return boundedIcal(recur, dtstart, allDay, limits);
}

const wallKey = (w: Wall): number => Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s);
const weekday = (w: Pick<Wall, 'y' | 'm' | 'd'>): number => new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay();
const WEEKDAY_CODES = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/** The fast path of wallIterator, or null when the rule needs ical.js. */
function simpleWalls(recur: ICAL.Recur, dtstart: Wall, allDay: boolean): WallWalk | null {
  const freq = recur.freq;
  if (freq !== 'DAILY' && freq !== 'WEEKLY') return null;
  const parts = recur.parts as Record<string, unknown[] | undefined>;
  let days: number[] | null = null;
  for (const [name, values] of Object.entries(parts)) {
    if (!values?.length) continue;
    if (name !== 'BYDAY') return null;
    days = [];
    for (const v of values) {
      const d = typeof v === 'string' ? WEEKDAY_CODES.indexOf(v) : -1;
      if (d < 0) return null; // an ordinal (1MO) or anything unexpected: ical.js
      if (!days.includes(d)) days.push(d);
    }
  }
  const interval = recur.interval || 1;
  if (!Number.isInteger(interval) || interval < 1) return null;
  const count = recur.count || null; // ical.js reads COUNT=0 as no COUNT
  if (count !== null && !(Number.isInteger(count) && count > 0)) return null;
  let until: number | null = null;
  if (recur.until) {
    const u = recur.until;
    // Only an UNTIL of the event's own kind, in wall time (what the calendar stores); anything else: ical.js.
    if (u.isDate !== allDay || (!u.isDate && u.zone === ICAL.Timezone.utcTimezone)) return null;
    until = wallKey(wallOf(u));
  }
  // The walls after DTSTART's own, one per call; days counted from DTSTART's (weekdays by arithmetic).
  const startDay = weekday(dtstart);
  const dayAt = (n: number): Wall => {
    const t = new Date(Date.UTC(dtstart.y, dtstart.m - 1, dtstart.d + n));
    return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: dtstart.h, mi: dtstart.mi, s: dtstart.s };
  };
  let next: () => Wall | null;
  let first: Wall = dtstart;
  if (freq === 'DAILY') {
    // Every interval days from DTSTART, on the days BYDAY names; DTSTART itself is always the first.
    const picked = days ? [0, 1, 2, 3, 4, 5, 6].map((d) => days.includes(d)) : null;
    // Every 7th day is always the same weekday: a rule that does not pick it has nothing after DTSTART
    // (ical.js loops forever on FREQ=DAILY;INTERVAL=7;BYDAY=TU from a Monday).
    const never = picked !== null && interval % 7 === 0 && !picked[startDay];
    let n = 0;
    next = () => {
      if (never) return null;
      for (;;) {
        n += interval;
        if (!picked || picked[(startDay + n) % 7]) return dayAt(n);
      }
    };
  } else {
    // Weeks (starting on WKST) every interval weeks from DTSTART's, on the BYDAY days (DTSTART's day
    // without BYDAY) in week order, from DTSTART on: DTSTART itself only if the rule picks it.
    const wkst = recur.wkst ?? ICAL.Time.MONDAY;
    if (!Number.isInteger(wkst) || wkst < 1 || wkst > 7) return null;
    const weekFirst = wkst - 1; // ical.js numbers Sunday 1
    const offsets = (days ?? [startDay]).map((d) => (d - weekFirst + 7) % 7).sort((a, b) => a - b);
    const startOffset = (startDay - weekFirst + 7) % 7;
    // Days from DTSTART to the start of its week, then whole weeks.
    let week = -startOffset;
    let i = offsets.findIndex((o) => o >= startOffset);
    if (i < 0) {
      i = 0;
      week += 7 * interval;
    }
    first = dayAt(week + offsets[i]!);
    next = () => {
      if (++i >= offsets.length) {
        i = 0;
        week += 7 * interval;
      }
      return dayAt(week + offsets[i]!);
    };
  }
  let yielded = 0;
  let done = false;
  return {
    next: () => {
      if (done || (count !== null && yielded >= count)) return null;
      const w = yielded === 0 ? first : next();
      if (w === null || (until !== null && wallKey(w) > until)) {
        done = true;
        return null;
      }
      yielded++;
      return w;
    },
  };
}

/** A stored date or date-time ('YYYY-MM-DD' or 'YYYY-MM-DDTHH:MM') as a wall, or null. */
export function wallOfLocal(text: string): Wall | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(text);
  if (!m) return null;
  return { y: +m[1]!, m: +m[2]!, d: +m[3]!, h: m[4] ? +m[4] : 0, mi: m[5] ? +m[5] : 0, s: 0 };
}
