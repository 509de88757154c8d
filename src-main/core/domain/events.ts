/**
 * Changes to events, each one logged action: book an event on the local calendar (with attendees, or for a
 * task), move it, cancel it. Only the local calendar's events change; imported ones are read-only.
 * Reading them: calendar.ts.
 */
import { PERSONAL_CALENDAR_ID } from '../../../src-shared/calendar';
import type { Attendee } from '../calendar/ics';
import { localZone, parseWall, wallAt, wallDate, wallString } from '../calendar/zones';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { fail } from '../fail';
import { attendeeText, calendarsOfPerson, getEvent, ownEvent, parseInstant, parsePerson, shortTime } from './calendar';
import { implement } from './operation';
import { getTask } from './tasks';
import { cleanName, cleanText, now, quote } from './text';

/** The longest event: a year. */
const MAX_EVENT_MS = 366 * 86_400_000;

/** Attendees of a booking: known people get their name and email; an email address is taken as it is. */
function resolveAttendees(db: Db, list: readonly string[] | undefined): Attendee[] {
  const out: Attendee[] = [];
  for (const raw of list ?? []) {
    const p = parsePerson(raw);
    let a: Attendee;
    if (p.email && !p.name) {
      try {
        a = calendarsOfPerson(db, p.email).person;
      } catch {
        a = p;
      }
    } else if (p.email) a = p;
    else a = calendarsOfPerson(db, raw).person;
    if (!out.some((o) => (o.email && o.email === a.email) || (!o.email && o.name === a.name))) out.push(a);
  }
  return out;
}

interface Span {
  startMs: number;
  endMs: number;
  allDay: boolean;
  start: string;
  end: string;
}

/** Start and end of a booking or a move, checked: the end after the start, at most a year long. */
function span(startText: string, endText: string, allDay: boolean, zone: string): Span {
  if (allDay) {
    const s = parseWall(String(startText).trim().slice(0, 10));
    const e = parseWall(String(endText).trim().slice(0, 10));
    if (!s || !e) fail('an all-day event needs dates as YYYY-MM-DD', 'e.g. start 2026-11-30 and end 2026-12-01 (the day after, for one day)');
    let startMs = Date.UTC(s.y, s.m - 1, s.d);
    let endMs = Date.UTC(e.y, e.m - 1, e.d);
    if (endMs === startMs) endMs += 86_400_000;
    if (endMs < startMs) fail('the event ends before it starts', 'give an end date after the start date');
    if (endMs - startMs > MAX_EVENT_MS) fail('the event is longer than a year', 'book a shorter event');
    startMs = Math.min(startMs, endMs);
    return { startMs, endMs, allDay, start: wallDate(s), end: wallDate(wallAt(endMs, 'UTC')) };
  }
  const startMs = parseInstant(startText, zone, 'start');
  const endMs = parseInstant(endText, zone, 'end');
  if (endMs <= startMs) fail('the event ends before it starts', 'give an end after the start');
  if (endMs - startMs > MAX_EVENT_MS) fail('the event is longer than a year', 'book a shorter event');
  return { startMs, endMs, allDay, start: wallString(wallAt(startMs, 'UTC')), end: wallString(wallAt(endMs, 'UTC')) };
}

const optionalText = (v: string | undefined, what: string): string | null => (v === undefined || v.trim() === '' ? null : cleanText(v, what));

export const bookEvent = implement('events.book', (cs, input, db) => {
  const zone = localZone();
  const title = cleanName(input.title, 'event');
  const when = span(input.start, input.end, input.allDay === true, zone);
  const attendees = resolveAttendees(db, input.attendees);
  const task = input.taskId ? getTask(db, input.taskId) : null;
  const id = nextId(db, 'e');
  const t = now();
  cs.insert('events', {
    id,
    calendar_id: PERSONAL_CALENDAR_ID,
    uid: `${id}-${Date.parse(t).toString(36)}@tidy`,
    recurrence_id: null,
    title,
    start: when.start,
    end: when.end,
    all_day: when.allDay ? 1 : 0,
    tz: when.allDay ? null : 'UTC',
    start_ms: when.startMs,
    end_ms: when.endMs,
    until_ms: when.endMs,
    rrule: null,
    exdates: null,
    location: optionalText(input.location, 'location'),
    notes: optionalText(input.notes, 'notes'),
    attendees: JSON.stringify(attendees),
    busy: 1,
    task_id: task?.id ?? null,
    cancelled_at: null,
    created_at: t,
    updated_at: t,
  });
  const event = getEvent(db, id, zone);
  const who = attendees.length ? ` with ${attendees.map(attendeeText).join(', ')}` : '';
  return { value: event, summary: `Booked ${quote(title)} on ${when.allDay ? when.start : shortTime(when.startMs, zone)}${who}${task ? ` for task ${task.id}` : ''}` };
});

export const moveEvent = implement('events.move', (cs, input, db) => {
  const zone = localZone();
  const r = ownEvent(db, input.event);
  if (r.cancelled_at) fail(`event ${r.id} is cancelled`, 'undo its cancelling first');
  const when = span(input.start, input.end, r.all_day === 1, zone);
  if (when.startMs === r.start_ms && when.endMs === r.end_ms) fail(`event ${r.id} is already at that time`, 'nothing to change');
  // A plan's block put somewhere by hand is pinned, in the same action: a re-plan keeps it there.
  const pin = r.plan_id !== null && r.pinned !== 1;
  cs.update('events', r.id, { start: when.start, end: when.end, start_ms: when.startMs, end_ms: when.endMs, until_ms: when.endMs, ...(pin ? { pinned: 1 } : {}), updated_at: now() });
  return { value: getEvent(db, r.id, zone), summary: `Moved ${quote(r.title)} to ${when.allDay ? when.start : shortTime(when.startMs, zone)}${pin ? ' (pinned: a re-plan keeps it)' : ''}` };
});

export const cancelEvent = implement('events.cancel', (cs, input, db) => {
  const r = ownEvent(db, input.event);
  if (r.cancelled_at) fail(`event ${r.id} is already cancelled`, 'nothing to change');
  cs.update('events', r.id, { cancelled_at: now(), updated_at: now() });
  return { value: getEvent(db, r.id), summary: `Cancelled ${quote(r.title)}` };
});

/** The event operations; the calendars' own (import, remove, rename) are in calendars.ts. */
export const EVENT_OPERATIONS = [bookEvent, moveEvent, cancelEvent];
