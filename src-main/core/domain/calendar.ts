/**
 * The calendar: calendars (the local "Personal" one, imported .ics files), events, and their logged
 * operations. Every change to a calendar is an action in the log and can be undone; imported calendars
 * are read-only (re-import the file to update one). Times come in as ISO 8601 (with an offset, or in
 * the user's zone) and go out as ISO 8601 with the offset of the user's zone.
 */
import { basename } from 'node:path';
import { PERSONAL_CALENDAR_ID, type CalendarEvent, type CalendarInfo, type ImportReport } from '../../../src-shared/calendar';
import type { Row } from '../actions/changes';
import { expand } from '../calendar/expand';
import { streamIcs, type Attendee, type EventData } from '../calendar/ics';
import type { ExportEvent } from '../calendar/ics-export';
import { isoInZone, localZone, parseWall, wallAt, wallDate, wallString, wallToUtc } from '../calendar/zones';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { assertNameFree, named, resolveNamed, type NamedGuards } from './named';
import type { MutationBody } from './mutation';
import { implement } from './operation';
import { getTask } from './tasks';
import { cleanName, cleanText, nameKey, now, quote } from './text';

export interface CalendarRow {
  id: string;
  name: string;
  name_key: string;
  kind: 'local' | 'imported';
  person_name: string | null;
  person_email: string | null;
  colour: string;
  source: string | null;
  prodid: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A row of the events table: what an import produces (calendar/ics.ts, EventData) plus what the table adds. */
export type EventRow = Omit<EventData, 'cancelled'> & {
  id: string;
  calendar_id: string;
  task_id: string | null;
  plan_id: string | null;
  pinned: number;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
};

export type JoinedRow = EventRow & { calendar: string; colour: string; kind: 'local' | 'imported' };

const PALETTE = ['#d9534f', '#2e9d5b', '#8e44ad', '#e67e22', '#16a085', '#b7950b', '#c2185b', '#5d6d7e'];
/** Floating and all-day times are stored as if UTC; a zone is at most 14 hours from UTC. */
const WIDEN = 14 * 3_600_000;
const LONG = 31 * 86_400_000;
/** Occurrences one listing returns at most. */
export const MAX_LISTED = 5_000;
/** Occurrences one query visits at most (free time, listings), and steps of all repeat rules it walks. */
export const MAX_QUERY_OCCURRENCES = 20_000;
export const MAX_QUERY_STEPS = 200_000;
const MAX_EVENT_MS = 366 * 86_400_000;

// --- times --------------------------------------------------------------------------------------------

/**
 * A point in time from text: ISO 8601 with an offset or Z; a date-time without one, in `zone`; a date,
 * its midnight in `zone`. Fails with a hint.
 */
export function parseInstant(text: string, zone: string, what = 'time'): number {
  const t = String(text ?? '').trim();
  const m = /^(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)?)(Z|[+-]\d{2}:?\d{2})?$/.exec(t);
  const wall = m ? parseWall(m[1]!.replace(/\.\d+$/, '').replace(' ', 'T')) : null;
  if (!m || !wall) fail(`${what} ${JSON.stringify(t.slice(0, 40))} is not a date or time`, 'use ISO 8601, e.g. 2026-11-30T10:00 or 2026-11-30T10:00:00+01:00');
  if (!m[2]) return wallToUtc(wall, zone);
  if (!m[1]!.includes('T') && !m[1]!.includes(' ')) fail(`${what} ${JSON.stringify(t)} is a date with an offset`, 'give a time too, e.g. 2026-11-30T10:00:00+01:00');
  const ms = Date.parse(`${m[1]!.replace(' ', 'T')}${m[2] === 'Z' ? 'Z' : m[2]!.length === 5 ? `${m[2]!.slice(0, 3)}:${m[2]!.slice(3)}` : m[2]}`);
  if (Number.isNaN(ms)) fail(`${what} ${JSON.stringify(t)} is not a date or time`, 'use ISO 8601, e.g. 2026-11-30T10:00:00+01:00');
  return ms;
}

/** A short local time for summaries: "Mon 2026-11-30 10:00". */
export function shortTime(ms: number, zone: string): string {
  const w = wallAt(ms, zone);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][new Date(Date.UTC(w.y, w.m - 1, w.d)).getUTCDay()];
  return `${day} ${wallDate(w)} ${String(w.h).padStart(2, '0')}:${String(w.mi).padStart(2, '0')}`;
}

// --- calendars ----------------------------------------------------------------------------------------

const toCalendar = (r: CalendarRow, events: number): CalendarInfo => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  personName: r.person_name,
  personEmail: r.person_email,
  colour: r.colour,
  readOnly: r.kind !== 'local',
  source: r.source,
  events,
  updatedAt: r.updated_at,
});

function eventCount(db: Db, calendarId: string): number {
  return (cached(db, `SELECT count(*) AS n FROM events WHERE calendar_id = ? AND cancelled_at IS NULL`).get(calendarId) as { n: number }).n;
}

/** Live calendars, Personal first, then by name. */
export function listCalendars(db: Db): CalendarInfo[] {
  const rows = cached(db, `SELECT * FROM calendars WHERE archived_at IS NULL ORDER BY kind = 'local' DESC, name_key`).all() as CalendarRow[];
  const counts = new Map(
    (cached(db, `SELECT calendar_id AS id, count(*) AS n FROM events WHERE cancelled_at IS NULL GROUP BY calendar_id`).all() as { id: string; n: number }[]).map((r) => [r.id, r.n]),
  );
  return rows.map((r) => toCalendar(r, counts.get(r.id) ?? 0));
}

export function resolveCalendar(db: Db, ref: string): CalendarInfo {
  const row = resolveNamed<CalendarRow>(db, 'calendars', ref);
  return toCalendar(row, eventCount(db, row.id));
}

// --- people -------------------------------------------------------------------------------------------

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** "Alice Martin <alice@example.com>", "Alice", "alice@example.com" → name and email. */
export function parsePerson(text: string): Attendee {
  const t = text.trim();
  const m = /^(.*?)\s*<([^<>]+)>$/.exec(t);
  if (m && EMAIL.test(m[2]!.trim())) return { name: m[1]!.replace(/^"|"$/g, '').trim() || null, email: m[2]!.trim().toLowerCase() };
  if (EMAIL.test(t)) return { name: null, email: t.toLowerCase() };
  return { name: t || null, email: null };
}

/**
 * The imported calendars of a person named by name, first name or email (case-insensitive). Fails, with
 * the people Tidy knows, when there is none or the name is ambiguous.
 */
export function calendarsOfPerson(db: Db, who: string): { person: Attendee; calendarIds: string[] } {
  const rows = cached(db, `SELECT * FROM calendars WHERE archived_at IS NULL AND kind = 'imported' AND (person_name IS NOT NULL OR person_email IS NOT NULL)`).all() as CalendarRow[];
  const key = who.trim().toLowerCase();
  const tests: ((r: CalendarRow) => boolean)[] = [
    (r) => r.person_email === key,
    (r) => (r.person_name ?? '').toLowerCase() === key,
    (r) => (r.person_name ?? '').toLowerCase().split(/\s+/)[0] === key,
    (r) => (r.person_email ?? '').split('@')[0] === key,
  ];
  for (const test of tests) {
    const hits = rows.filter(test);
    const people = new Map(hits.map((r) => [(r.person_email ?? r.person_name ?? '').toLowerCase(), r]));
    if (people.size > 1)
      fail(`${quote(who)} could be ${[...people.values()].map((r) => r.person_name ?? r.person_email).join(' or ')}`, 'name the person in full, or by email');
    if (hits.length) return { person: { name: hits[0]!.person_name, email: hits[0]!.person_email }, calendarIds: hits.map((r) => r.id) };
  }
  const known = [...new Set(rows.map((r) => r.person_name ?? r.person_email))].slice(0, 20);
  fail(
    `no imported calendar belongs to ${quote(who)}`,
    known.length ? `people with calendars: ${known.join(', ')}; or import theirs: tidy cal import FILE.ics --person NAME` : 'import their calendar first: tidy cal import FILE.ics --person NAME',
  );
}

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

const attendeeText = (a: Attendee): string => a.name ?? a.email ?? '';

// --- events -------------------------------------------------------------------------------------------

function toEvent(r: JoinedRow, startMs: number, endMs: number, occurrence: string | null, zone: string): CalendarEvent {
  const attendees = (JSON.parse(r.attendees) as Attendee[]).map(attendeeText).filter(Boolean);
  return {
    id: r.id,
    occurrence,
    calendarId: r.calendar_id,
    calendar: r.calendar,
    colour: r.colour,
    title: r.title,
    start: isoInZone(startMs, zone),
    end: isoInZone(endMs, zone),
    allDay: r.all_day === 1,
    location: r.location,
    notes: r.notes,
    attendees,
    recurring: r.rrule !== null || r.recurrence_id !== null,
    busy: r.busy === 1,
    readOnly: r.kind !== 'local',
    taskId: r.task_id,
    ...(r.plan_id ? { planId: r.plan_id, pinned: r.pinned === 1 } : {}),
    cancelled: r.cancelled_at !== null,
  };
}

/** The real instants of a single (non-recurring) row. */
function instants(r: Pick<EventRow, 'all_day' | 'start' | 'end' | 'tz' | 'start_ms' | 'end_ms'>, zone: string): { startMs: number; endMs: number } {
  if (r.all_day === 1) {
    const s = parseWall(r.start)!;
    const e = parseWall(r.end)!;
    return { startMs: wallToUtc(s, zone), endMs: wallToUtc(e, zone) };
  }
  if (r.tz !== null) return { startMs: r.start_ms, endMs: r.end_ms };
  return { startMs: wallToUtc(parseWall(r.start)!, zone), endMs: wallToUtc(parseWall(r.end)!, zone) };
}

const SELECT_JOINED = `SELECT e.*, c.name AS calendar, c.colour AS colour, c.kind AS kind FROM events e JOIN calendars c ON c.id = e.calendar_id`;

export interface EventQuery {
  fromMs: number;
  toMs: number;
  /** The user's zone: floating and all-day events are read in it, and times are shown with its offset. */
  zone?: string;
  includeCancelled?: boolean;
  /** Only these calendars (default: every live one). */
  calendarIds?: readonly string[];
  /** Only events that make their time busy (for free time). */
  busyOnly?: boolean;
  limit?: number;
}

/**
 * The events table's exdates column: a JSON array of excluded occurrence keys, where an entry starting
 * with "+" is an extra occurrence (RDATE) instead; read defensively (a damaged value excludes nothing).
 */
function exceptionDates(json: string | null): { exdates: string[]; rdates: string[] } {
  const exdates: string[] = [];
  const rdates: string[] = [];
  if (!json) return { exdates, rdates };
  let list: unknown;
  try {
    list = JSON.parse(json);
  } catch {
    return { exdates, rdates };
  }
  if (!Array.isArray(list)) return { exdates, rdates };
  for (const v of list.slice(0, 10_000)) {
    if (typeof v !== 'string') continue;
    if (v.startsWith('+')) rdates.push(v.slice(1));
    else exdates.push(v);
  }
  return { exdates, rdates };
}

/**
 * Calls `visit` for every occurrence overlapping [fromMs, toMs) (in no particular order), recurring events
 * expanded. Returns whether an expansion was cut short by its bounds (src-main/core/calendar/expand.ts).
 */
export function forEachOccurrence(
  db: Db,
  q: EventQuery,
  visit: (r: JoinedRow, startMs: number, endMs: number, occurrence: string | null, note?: string) => void,
): boolean {
  return occurrencesOf<JoinedRow>(db, q, SELECT_JOINED, visit);
}

/** What free time and planning read of an event: no texts, no join (a third of the full row). */
export type BusyRow = Pick<EventRow, 'id' | 'calendar_id' | 'uid' | 'recurrence_id' | 'start' | 'end' | 'all_day' | 'tz' | 'start_ms' | 'end_ms' | 'rrule' | 'exdates'>;
const SELECT_BUSY = `SELECT e.id, e.calendar_id, e.uid, e.recurrence_id, e.start, e.end, e.all_day, e.tz, e.start_ms, e.end_ms, e.rrule, e.exdates FROM events e`;

/** forEachOccurrence over the busy events only, reading only what busy time needs (the same occurrences and bounds). */
export function forEachBusy(db: Db, q: Omit<EventQuery, 'busyOnly'>, visit: (r: BusyRow, startMs: number, endMs: number) => void): boolean {
  return occurrencesOf<BusyRow>(db, { ...q, busyOnly: true }, SELECT_BUSY, visit);
}

function occurrencesOf<R extends BusyRow>(
  db: Db,
  q: EventQuery,
  select: string,
  visit: (r: R, startMs: number, endMs: number, occurrence: string | null, note?: string) => void,
): boolean {
  const zone = q.zone ?? localZone();
  if (!(q.toMs > q.fromMs)) return false;
  const calendars = q.calendarIds ?? (cached(db, `SELECT id FROM calendars WHERE archived_at IS NULL`).all() as { id: string }[]).map((r) => r.id);
  let truncated = false;
  const filters = `${q.includeCancelled ? '' : 'AND e.cancelled_at IS NULL'} ${q.busyOnly ? 'AND e.busy = 1' : ''}`;
  const near = cached(
    db,
    `${select} WHERE e.calendar_id = ? AND e.start_ms >= ? AND e.start_ms < ? AND e.end_ms > ?
       AND NOT (e.rrule IS NOT NULL OR e.end_ms - e.start_ms > ${LONG}) ${filters}`,
  );
  const spanning = cached(
    db,
    `${select} WHERE e.calendar_id = ? AND (e.rrule IS NOT NULL OR e.end_ms - e.start_ms > ${LONG})
       AND e.start_ms < ? AND (e.until_ms IS NULL OR e.until_ms > ?) ${filters}`,
  );
  const overrides = cached(db, `SELECT recurrence_id FROM events WHERE calendar_id = ? AND uid = ? AND recurrence_id IS NOT NULL`);
  const from = q.fromMs - WIDEN;
  const to = q.toMs + WIDEN;
  const overlaps = (startMs: number, endMs: number): boolean => startMs < q.toMs && (endMs > q.fromMs || (endMs === startMs && startMs >= q.fromMs));
  // Bounds for the whole query: occurrences visited and steps of all rules walked (expand.ts bounds each event).
  let visits = 0;
  const budget = { steps: MAX_QUERY_STEPS };
  const see = (r: R, startMs: number, endMs: number, occurrence: string | null, note?: string): boolean => {
    if (++visits > MAX_QUERY_OCCURRENCES) {
      truncated = true;
      return false;
    }
    visit(r, startMs, endMs, occurrence, note);
    return true;
  };
  for (const cal of calendars) {
    for (const r of near.all(cal, from - LONG, to, from) as R[]) {
      const { startMs, endMs } = instants(r, zone);
      if (overlaps(startMs, endMs) && !see(r, startMs, endMs, r.recurrence_id)) return truncated;
    }
    for (const r of spanning.all(cal, to, from) as R[]) {
      if (r.rrule === null) {
        const { startMs, endMs } = instants(r, zone);
        if (overlaps(startMs, endMs) && !see(r, startMs, endMs, r.recurrence_id)) return truncated;
        continue;
      }
      const overridden = new Set((overrides.all(r.calendar_id, r.uid) as { recurrence_id: string }[]).map((o) => o.recurrence_id));
      const { exdates, rdates } = exceptionDates(r.exdates);
      const { occurrences, truncated: cut, note } = expand(
        { start: r.start, end: r.end, allDay: r.all_day === 1, zone: r.tz ?? zone, rrule: r.rrule, exdates, rdates, overridden },
        q.fromMs,
        q.toMs,
        budget,
      );
      truncated ||= cut;
      for (const o of occurrences) if (!see(r, o.startMs, o.endMs, o.key, note)) return truncated;
    }
  }
  return truncated;
}

/** Occurrences overlapping [fromMs, toMs), earliest first, recurring events expanded; at most `limit` (5,000). */
export function listEvents(db: Db, q: EventQuery): { events: CalendarEvent[]; truncated: boolean } {
  const zone = q.zone ?? localZone();
  const limit = q.limit ?? MAX_LISTED;
  const found: { r: JoinedRow; startMs: number; endMs: number; occurrence: string | null; note?: string }[] = [];
  let truncated = forEachOccurrence(db, { ...q, zone }, (r, startMs, endMs, occurrence, note) => found.push({ r, startMs, endMs, occurrence, ...(note ? { note } : {}) }));
  found.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs || a.r.id.localeCompare(b.r.id));
  if (found.length > limit) truncated = true;
  return {
    events: found.slice(0, limit).map((f) => {
      const e = toEvent(f.r, f.startMs, f.endMs, f.occurrence, zone);
      return f.note ? { ...e, note: f.note } : e;
    }),
    truncated,
  };
}

function getEventRow(db: Db, ref: string): JoinedRow {
  const id = String(ref ?? '').trim().toLowerCase();
  const row = cached(db, `${SELECT_JOINED} WHERE e.id = ?`).get(id) as JoinedRow | undefined;
  if (!row) fail(`no event with id ${quote(String(ref ?? ''))}`, 'list the events (get_events, or tidy events) to see their ids');
  return row;
}

/** One event as it is stored (its first occurrence). */
export function getEvent(db: Db, ref: string, zone = localZone()): CalendarEvent {
  const r = getEventRow(db, ref);
  const { startMs, endMs } = instants(r, zone);
  return toEvent(r, startMs, endMs, null, zone);
}

/** An event of the local calendar that can be changed. */
function ownEvent(db: Db, ref: string): JoinedRow {
  const r = getEventRow(db, ref);
  if (r.kind !== 'local') fail(`event ${r.id} is in ${quote(r.calendar)}, an imported calendar, which is read-only`, 'only events of your own calendar can be changed; re-import the file to update an imported one');
  return r;
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

export interface BookInput {
  title: string;
  start: string;
  end: string;
  allDay?: boolean;
  attendees?: string[];
  location?: string;
  notes?: string;
  taskId?: string;
}

const optionalText = (v: string | undefined, what: string): string | null => (v === undefined || v.trim() === '' ? null : cleanText(v, what));

export const bookEvent = implement('events.book', (cs, input: BookInput, db) => {
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

export const moveEvent = implement('events.move', (cs, input: { event: string; start: string; end: string }, db) => {
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

export const cancelEvent = implement('events.cancel', (cs, input: { event: string }, db) => {
  const r = ownEvent(db, input.event);
  if (r.cancelled_at) fail(`event ${r.id} is already cancelled`, 'nothing to change');
  cs.update('events', r.id, { cancelled_at: now(), updated_at: now() });
  return { value: getEvent(db, r.id), summary: `Cancelled ${quote(r.title)}` };
});

// --- import -------------------------------------------------------------------------------------------

const DATA_COLUMNS = ['title', 'start', 'end', 'all_day', 'tz', 'start_ms', 'end_ms', 'until_ms', 'rrule', 'exdates', 'location', 'notes', 'attendees', 'busy'] as const;

function dataOf(e: EventData): Row {
  const row: Row = {};
  for (const c of DATA_COLUMNS) row[c] = e[c];
  return row;
}

/** A calendar name not taken by a live calendar: "Alice", else "Alice (2)", … */
function freeName(db: Db, wanted: string, exceptId?: string): string {
  const base = cleanName(wanted, 'calendar');
  for (let n = 1; n < 1000; n++) {
    const name = n === 1 ? base : `${base.slice(0, 110)} (${n})`;
    const clash = cached(db, `SELECT id FROM calendars WHERE name_key = ? AND archived_at IS NULL`).get(nameKey(name)) as { id: string } | undefined;
    if (!clash || clash.id === exceptId) return name;
  }
  return fail(`too many calendars are called ${quote(base)}`, 'remove some of them first');
}

export interface ImportInput {
  fileName: string;
  text: string;
  person?: string;
}

/**
 * Imports an .ics file as a read-only calendar, in one logged action. The same file (by name) imported
 * again updates that calendar: changed events are updated, new ones added, and events no longer in the
 * file are kept but marked cancelled (undo brings the previous state back). A file that changes nothing
 * is refused ("already matches"), so the log holds no empty action.
 */
export const importCalendar = implement('calendars.import', (cs, input: ImportInput, db): MutationBody<ImportReport> => {
  const source = basename(String(input.fileName).replace(/\\/g, '/')).trim().slice(0, 255) || 'calendar.ics';
  const parsed = streamIcs(String(input.text ?? ''));
  const person = input.person?.trim() ? parsePerson(input.person) : null;
  const personName = person?.name ?? null;
  const personEmail = person?.email ?? (person ? parsed.email : null);
  const t = now();
  const existing = cached(db, `SELECT * FROM calendars WHERE kind = 'imported' AND archived_at IS NULL AND lower(source) = lower(?) ORDER BY created_at DESC LIMIT 1`).get(source) as
    | CalendarRow
    | undefined;
  const wantedName = personName ?? parsed.name ?? source.replace(/\.(ics|ical|ifb|vcs)$/i, '');
  let calendarId: string;
  if (existing) {
    calendarId = existing.id;
    const patch: Row = {};
    if (person && (existing.person_name !== personName || existing.person_email !== personEmail)) {
      patch['person_name'] = personName;
      patch['person_email'] = personEmail;
    }
    if (parsed.prodid !== existing.prodid) patch['prodid'] = parsed.prodid;
    if (Object.keys(patch).length) cs.update('calendars', existing.id, { ...patch, updated_at: t });
  } else {
    const count = (cached(db, `SELECT count(*) AS n FROM calendars`).get() as { n: number }).n;
    const name = freeName(db, wantedName);
    calendarId = nextId(db, 'k');
    assertNameFree(db, 'calendars', name);
    cs.insert('calendars', {
      id: calendarId,
      name,
      name_key: nameKey(name),
      kind: 'imported',
      person_name: personName,
      person_email: personEmail,
      colour: PALETTE[(count - 1 + PALETTE.length) % PALETTE.length]!,
      source,
      prodid: parsed.prodid,
      archived_at: null,
      created_at: t,
      updated_at: t,
    });
  }

  const old = new Map(
    (cached(db, `SELECT * FROM events WHERE calendar_id = ?`).all(calendarId) as EventRow[]).map((r) => [`${r.uid}\u0000${r.recurrence_id ?? ''}`, r]),
  );
  let added = 0;
  let updated = 0;
  let unchanged = 0;
  let removed = 0;
  const seen = new Set<string>();
  for (const e of parsed.events) {
    const key = `${e.uid}\u0000${e.recurrence_id ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const before = old.get(key);
    const data = dataOf(e);
    const cancelledAt = e.cancelled ? t : null;
    if (!before) {
      cs.insert('events', { id: nextId(db, 'e'), calendar_id: calendarId, uid: e.uid, recurrence_id: e.recurrence_id, ...data, task_id: null, cancelled_at: cancelledAt, created_at: t, updated_at: t });
      added++;
      continue;
    }
    const patch: Row = {};
    for (const c of DATA_COLUMNS) if (before[c] !== data[c]) patch[c] = data[c]!;
    if ((before.cancelled_at !== null) !== e.cancelled) patch['cancelled_at'] = cancelledAt;
    if (Object.keys(patch).length) {
      cs.update('events', before.id, { ...patch, updated_at: t });
      updated++;
    } else unchanged++;
  }
  for (const [key, r] of old) {
    if (seen.has(key) || r.cancelled_at !== null) continue;
    cs.update('events', r.id, { cancelled_at: t, updated_at: t });
    removed++;
  }
  const row = cached(db, `SELECT * FROM calendars WHERE id = ?`).get(calendarId) as CalendarRow;
  // The same file again, nothing in it new: no action is logged (it would have nothing to undo).
  if (cs.changes.length === 0)
    fail(`calendar ${quote(row.name)} already matches ${source} (${unchanged} event${unchanged === 1 ? '' : 's'}, none changed)`, 'nothing to change; import it again once the calendar has changed');
  const calendar = toCalendar(row, eventCount(db, calendarId));
  const counts = existing ? `${added} added, ${updated} updated, ${removed} removed, ${unchanged} unchanged` : `${added} event${added === 1 ? "" : "s"}`;
  return {
    value: { calendar, added, updated, removed, unchanged, warnings: parsed.warnings },
    summary: `${existing ? 'Re-imported' : 'Imported'} calendar ${quote(calendar.name)} from ${source} (${counts})`,
    what: { verb: existing ? 'reimported' : 'imported', id: calendar.id, name: calendar.name },
  };
});

const calendarGuards: NamedGuards = {
  archive: (c) => {
    if (c.id === PERSONAL_CALENDAR_ID) fail('the Personal calendar cannot be removed', 'cancel its events instead');
  },
};

/** Removes an imported calendar: archived with its events (undo brings it back). */
export const removeCalendar = implement('calendars.remove', (cs, input: { calendar: string }, db) => {
  const r = named.archive(cs, db, 'calendars', input.calendar, calendarGuards);
  return { value: resolveCalendar(db, r.value.id), summary: `Removed calendar ${quote(r.value.name)}` };
});

/** Renames a calendar (Personal too): logged, undoable; the name stays unique among live calendars. */
export const renameCalendar = implement('calendars.rename', (cs, input: { calendar: string; name: string }, db) =>
  named.rename(cs, db, 'calendars', input.calendar, input.name),
);

/** The calendar operations (the `tidy cal` commands are in src-main/cli/commands/calendar.ts). */
export const CALENDAR_OPERATIONS = [bookEvent, moveEvent, cancelEvent, importCalendar, removeCalendar, renameCalendar];

/** How far "next event" / "previous event" look, in growing steps (a dense week is found without expanding decades). */
const ADJACENT_WINDOWS_DAYS = [14, 92, 366, 5 * 366, 50 * 366];

/**
 * The first occurrence starting at or after `atMs` (`next`), or the last one starting before it
 * (`previous`), in every live calendar, recurring events expanded; null when there is none within 50 years.
 * A single event found by SQL bounds the search, so a calendar of past one-off events is one query.
 */
export function adjacentEvent(db: Db, q: { atMs: number; direction: 'next' | 'previous'; zone?: string }): CalendarEvent | null {
  const zone = q.zone ?? localZone();
  const next = q.direction === 'next';
  const at = q.atMs;
  if (!Number.isFinite(at)) return null;
  // Whichever one-off event is nearest: no recurring occurrence beyond it can be the answer.
  const single = cached(
    db,
    `SELECT e.start_ms AS t FROM events e JOIN calendars c ON c.id = e.calendar_id
      WHERE c.archived_at IS NULL AND e.cancelled_at IS NULL AND e.rrule IS NULL AND e.start_ms ${next ? '>=' : '<'} ?
      ORDER BY e.start_ms ${next ? 'ASC' : 'DESC'} LIMIT 1`,
  ).get(at) as { t: number } | undefined;
  let best: { r: JoinedRow; startMs: number; endMs: number; occurrence: string | null } | null = null;
  for (const days of ADJACENT_WINDOWS_DAYS) {
    const reach = days * 86_400_000;
    let fromMs = next ? at : at - reach;
    let toMs = next ? at + reach : at;
    // Widened by the search's own margin, so the single event found above is inside the window.
    if (single) {
      if (next) toMs = Math.min(toMs, single.t + 1);
      else fromMs = Math.max(fromMs, single.t);
    }
    forEachOccurrence(db, { fromMs, toMs, zone }, (r, startMs, endMs, occurrence) => {
      if (next ? startMs < at : startMs >= at || startMs < fromMs) return;
      if (!best || (next ? startMs < best.startMs : startMs > best.startMs)) best = { r, startMs, endMs, occurrence };
    });
    if (best || (single && (next ? toMs > single.t : fromMs <= single.t))) break;
  }
  const found = best as { r: JoinedRow; startMs: number; endMs: number; occurrence: string | null } | null;
  return found ? toEvent(found.r, found.startMs, found.endMs, found.occurrence, zone) : null;
}

// --- export -------------------------------------------------------------------------------------------

/** The local calendar's events as the iCalendar writer takes them (cancelled ones when asked). */
export function exportableEvents(db: Db, opts: { includeCancelled?: boolean; event?: string } = {}): ExportEvent[] {
  const rows = opts.event
    ? [ownEvent(db, opts.event)]
    : (cached(db, `${SELECT_JOINED} WHERE e.calendar_id = ? ORDER BY e.start_ms, e.id`).all(PERSONAL_CALENDAR_ID) as JoinedRow[]).filter(
        (r) => opts.includeCancelled || r.cancelled_at === null,
      );
  return rows.map((r) => ({
    id: r.id,
    uid: r.uid,
    title: r.title,
    startMs: r.start_ms,
    endMs: r.end_ms,
    allDay: r.all_day === 1,
    startDate: r.start.slice(0, 10),
    endDate: r.end.slice(0, 10),
    location: r.location,
    notes: r.notes,
    attendees: JSON.parse(r.attendees) as Attendee[],
    cancelled: r.cancelled_at !== null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}
