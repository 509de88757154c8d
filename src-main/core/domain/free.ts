/**
 * Free time: the gaps, inside working hours, where the user and every attendee are free. The user's busy
 * time is their local calendar and every imported calendar that belongs to no person; an attendee's is
 * their imported calendars (by name or email). Events marked free (TRANSP:TRANSPARENT) and cancelled
 * ones do not count. Never in the past; days and hours in the user's zone.
 */
import { WEEKDAYS, type FreeSlot, type Weekday } from '../../../src-shared/calendar';
import { calendarsOfPerson, forEachBusy } from './calendar';
import { fail } from '../fail';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { addDays, isoInZone, wallAt, wallToUtc, weekday } from '../calendar/zones';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The longest range searched. */
const MAX_RANGE_DAYS = 800;
/** Slots returned at most (the total says how many there were). */
const MAX_SLOTS = 50;

interface FreeQuery {
  durationMin: number;
  fromMs?: number;
  toMs?: number;
  attendees?: readonly string[];
  now: number;
  zone: string;
  workStart: string;
  workEnd: string;
  workDays: readonly Weekday[];
  maxSlots?: number;
}

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/** The user's own calendars: the local one and imported calendars of no person. */
function ownCalendars(db: Db): string[] {
  return (cached(db, `SELECT id FROM calendars WHERE archived_at IS NULL AND (kind = 'local' OR (person_name IS NULL AND person_email IS NULL))`).all() as { id: string }[]).map((r) => r.id);
}

/**
 * Busy intervals of the calendars in [fromMs, toMs), merged and sorted: every calendar's occurrences
 * expanded once for the window, then one sweep over the sorted starts and ends (a time is busy while more
 * intervals have started than ended; intervals that touch are one).
 */
function busyIntervals(db: Db, calendarIds: readonly string[], fromMs: number, toMs: number, zone: string): [number, number][] {
  const starts: number[] = [];
  const ends: number[] = [];
  forEachBusy(db, { fromMs, toMs, zone, calendarIds }, (_r, s, e) => {
    if (e > s) {
      starts.push(s);
      ends.push(e);
    }
  });
  const s = Float64Array.from(starts).sort();
  const e = Float64Array.from(ends).sort();
  const merged: [number, number][] = [];
  let open = 0;
  let opened = 0;
  for (let i = 0, j = 0; i < s.length || j < e.length; ) {
    // A start at the same time as an end comes first, so touching intervals join.
    if (i < s.length && s[i]! <= e[j]!) {
      if (open++ === 0) opened = s[i]!;
      i++;
    } else {
      if (--open === 0) merged.push([opened, e[j]!]);
      j++;
    }
  }
  return merged;
}

export function findFreeSlots(db: Db, q: FreeQuery): { slots: FreeSlot[]; total: number; from: string; to: string } {
  const durationMs = q.durationMin * MINUTE;
  if (!(q.durationMin >= 5 && q.durationMin <= 24 * 60)) fail(`a duration of ${q.durationMin} minutes is out of range`, 'ask for 5 to 1440 minutes');
  // Never in the past: from now on, rounded up to the next quarter hour.
  const earliest = Math.ceil(q.now / (15 * MINUTE)) * 15 * MINUTE;
  const fromMs = Math.max(q.fromMs ?? earliest, earliest);
  const toMs = q.toMs ?? fromMs + 14 * DAY;
  if (q.toMs !== undefined && q.toMs <= earliest) fail('the range is in the past', 'ask for a range that ends after now');
  if (toMs <= fromMs) fail('the range ends before it starts', 'give a "to" after "from"');
  if (toMs - fromMs > MAX_RANGE_DAYS * DAY) fail(`the range is longer than ${MAX_RANGE_DAYS} days`, 'search a shorter range');
  const startMin = minutesOf(q.workStart);
  const endMin = minutesOf(q.workEnd);
  if (endMin <= startMin) fail(`working hours ${q.workStart}–${q.workEnd} are empty`, 'set workEnd after workStart: tidy config set workEnd 17:00');

  const calendars = new Set(ownCalendars(db));
  for (const who of q.attendees ?? []) for (const id of calendarsOfPerson(db, who).calendarIds) calendars.add(id);
  const busy = busyIntervals(db, [...calendars], fromMs, toMs, q.zone);

  const days = new Set(q.workDays.map((d) => WEEKDAYS.indexOf(d)));
  const slots: FreeSlot[] = [];
  let total = 0;
  const max = q.maxSlots ?? MAX_SLOTS;
  let b = 0;
  const first = wallAt(fromMs, q.zone);
  for (let day = { ...first, h: 0, mi: 0, s: 0 }, i = 0; i <= MAX_RANGE_DAYS + 1; day = addDays(day, 1), i++) {
    const dayStart = wallToUtc(day, q.zone);
    if (dayStart >= toMs) break;
    if (!days.has(weekday(day))) continue;
    let s = Math.max(fromMs, wallToUtc({ ...day, h: Math.floor(startMin / 60), mi: startMin % 60 }, q.zone));
    const e = Math.min(toMs, endMin === 24 * 60 ? wallToUtc(addDays(day, 1), q.zone) : wallToUtc({ ...day, h: Math.floor(endMin / 60), mi: endMin % 60 }, q.zone));
    while (b < busy.length && busy[b]![1] <= s) b++;
    for (let j = b; s < e; j++) {
      const next = busy[j];
      const gapEnd = next && next[0] < e ? Math.max(s, next[0]) : e;
      if (gapEnd - s >= durationMs) {
        total++;
        if (slots.length < max) slots.push({ start: isoInZone(s, q.zone), end: isoInZone(gapEnd, q.zone) });
      }
      if (!next || next[0] >= e) break;
      s = Math.max(s, next[1]);
    }
  }
  return { slots, total, from: isoInZone(fromMs, q.zone), to: isoInZone(toMs, q.zone) };
}
