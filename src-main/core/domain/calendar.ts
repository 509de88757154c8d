/**
 * The calendar: calendars (the local "Personal" one, imported .ics files) and the people they belong to,
 * and events, read (recurring ones expanded). The changes are logged operations: to events in events.ts
 * (book, move, cancel), to calendars in calendars.ts (import, remove, rename). Every change is an action in the log and can be undone;
 * imported calendars are read-only (re-import the file to update one). Times come in as ISO 8601 (with an offset, or in
 * the user's zone) and go out as ISO 8601 with the offset of the user's zone.
 */
import { PERSONAL_CALENDAR_ID, type CalendarEvent, type CalendarInfo } from '../../../src-shared/calendar';
import { expand } from '../calendar/expand';
import type { Attendee, EventData } from '../calendar/ics';
import type { ExportEvent } from '../calendar/ics-export';
import { isoInZone, localZone, parseWall, wallAt, wallDate, wallToUtc } from '../calendar/zones';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { resolveNamed } from './named';
import { quote } from './text';

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

/** Floating and all-day times are stored as if UTC; a zone is at most 14 hours from UTC. */
const WIDEN = 14 * 3_600_000;
const LONG = 31 * 86_400_000;
/** Occurrences one listing returns at most. */
export const MAX_LISTED = 5_000;
/** Occurrences one query visits at most (free time, listings), and steps of all repeat rules it walks. */
export const MAX_QUERY_OCCURRENCES = 20_000;
export const MAX_QUERY_STEPS = 200_000;

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

export const toCalendar = (r: CalendarRow, events: number): CalendarInfo => ({
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

export function eventCount(db: Db, calendarId: string): number {
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

export const attendeeText = (a: Attendee): string => a.name ?? a.email ?? '';

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
export function ownEvent(db: Db, ref: string): JoinedRow {
  const r = getEventRow(db, ref);
  if (r.kind !== 'local') fail(`event ${r.id} is in ${quote(r.calendar)}, an imported calendar, which is read-only`, 'only events of your own calendar can be changed; re-import the file to update an imported one');
  return r;
}

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
