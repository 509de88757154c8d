/**
 * Changes to calendars as a whole, each one logged action: an .ics file imported as a read-only calendar
 * (the same file again updates it: changed events updated, new ones added, gone ones cancelled), an
 * imported calendar removed, a calendar renamed. Reading calendars and their events: calendar.ts.
 */
import { basename } from 'node:path';
import { PERSONAL_CALENDAR_ID, type ImportReport } from '../../../src-shared/calendar';
import type { Row } from '../actions/changes';
import { streamIcs, type EventData } from '../calendar/ics';
import type { IcsSource } from '../calendar/ics-lines';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import type { Db } from '../store/db';
import { fail } from '../fail';
import { eventCount, parsePerson, resolveCalendar, toCalendar, type CalendarRow, type EventRow } from './calendar';
import type { MutationBody } from './mutation';
import { assertNameFree, named, type NamedGuards } from './named';
import { implement, implementWith } from './operation';
import { cleanName, nameKey, now, quote } from './text';

const PALETTE = ['#d9534f', '#2e9d5b', '#8e44ad', '#e67e22', '#16a085', '#b7950b', '#c2185b', '#5d6d7e'];

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

/**
 * Imports an .ics file as a read-only calendar, in one logged action. The same file (by name) imported
 * again updates that calendar: changed events are updated, new ones added, and events no longer in the
 * file are kept but marked cancelled (undo brings the previous state back). A file that changes nothing
 * is refused ("already matches"), so the log holds no empty action. A host that has the file on disk gives
 * `source` (calendar/ics-lines.ts fileSource) instead of its text, so the file is read in pieces.
 */
export const importCalendar = implementWith<{ source?: IcsSource }>()('calendars.import', (cs, input, db): MutationBody<ImportReport> => {
  const source = basename(String(input.fileName).replace(/\\/g, '/')).trim().slice(0, 255) || 'calendar.ics';
  const parsed = streamIcs(input.source ?? String(input.text ?? ''));
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

  // The calendar's events are looked up one by one (by uid), not read whole: a re-import of 100,000 events
  // holds only their keys. Of two rows with one key (the last of them wins, as it always did).
  const oldEvent = cached(db, `SELECT * FROM events WHERE calendar_id = ? AND uid = ? AND recurrence_id IS ? ORDER BY rowid DESC LIMIT 1`);
  const keyOf = (uid: string, recurrenceId: string | null): string => `${uid}\u0000${recurrenceId ?? ''}`;
  let added = 0;
  let updated = 0;
  let unchanged = 0;
  let removed = 0;
  const seen = new Set<string>();
  for (const e of parsed.events) {
    let before: EventRow | undefined;
    if (existing) {
      // A re-import keeps the keys it met (the calendar's other events are the ones gone from the file).
      const key = keyOf(e.uid, e.recurrence_id);
      if (seen.has(key)) continue;
      seen.add(key);
      before = oldEvent.get(calendarId, e.uid, e.recurrence_id) as EventRow | undefined;
    } else if (oldEvent.get(calendarId, e.uid, e.recurrence_id)) continue; // a new calendar: an event the file names twice counts once

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
  if (existing) {
    const gone = (cached(db, `SELECT id, uid, recurrence_id, cancelled_at FROM events WHERE calendar_id = ? ORDER BY rowid`).all(calendarId) as Pick<EventRow, 'id' | 'uid' | 'recurrence_id' | 'cancelled_at'>[])
      .filter((r) => r.cancelled_at === null && !seen.has(keyOf(r.uid, r.recurrence_id)))
      .map((r) => r.id);
    for (const id of gone) {
      cs.update('events', id, { cancelled_at: t, updated_at: t });
      removed++;
    }
  }
  const row = cached(db, `SELECT * FROM calendars WHERE id = ?`).get(calendarId) as CalendarRow;
  // The same file again, nothing in it new: no action is logged (it would have nothing to undo).
  if (cs.count === 0)
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
export const removeCalendar = implement('calendars.remove', (cs, input, db) => {
  const r = named.archive(cs, db, 'calendars', input.calendar, calendarGuards);
  return { value: resolveCalendar(db, r.value.id), summary: `Removed calendar ${quote(r.value.name)}` };
});

/** Renames a calendar (Personal too): logged, undoable; the name stays unique among live calendars. */
export const renameCalendar = implement('calendars.rename', (cs, input, db) =>
  named.rename(cs, db, 'calendars', input.calendar, input.name),
);

/** The operations on calendars as a whole (the `tidy cal` commands are in src-main/cli/commands/calendar.ts). */
export const CALENDAR_OPERATIONS = [importCalendar, removeCalendar, renameCalendar];
