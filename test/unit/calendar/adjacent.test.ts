// "Previous event" / "Next event" of the Calendar view (adjacentEvent in src-main/core/domain/calendar.ts) and
// renaming a calendar (rename_calendar): a calendar whose events are all far in the past is found from any
// day, recurring series included; renames are logged, undoable and refused in words.
import { describe, expect, it } from 'vitest';
import { importCalendar, listCalendars, undoAction, type Db } from '../../../src-main/core';
import { adjacentEvent } from '../../../src-main/core/domain/calendar';
import { removeCalendar, renameCalendar } from '../../../src-main/core/domain/calendars';
import { tempDb, userCtx } from '../../support/db';

function ics(name: string, events: string[][]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tidy tests//EN', `X-WR-CALNAME:${name}`];
  events.forEach((props, i) => lines.push('BEGIN:VEVENT', `UID:e${i}@${name}`, 'DTSTAMP:20200101T000000Z', ...props, 'END:VEVENT'));
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

function imported(db: Db, fileName: string, text: string) {
  const r = importCalendar(db, userCtx(db), { fileName, text });
  if (!r.ok) throw new Error(`${r.error} — ${r.hint}`);
  return r.value.calendar;
}

const OLD = ics('Old team', [
  ['SUMMARY:Kickoff', 'DTSTART:20200204T100000Z', 'DTEND:20200204T110000Z'],
  ['SUMMARY:Retro', 'DTSTART:20200312T100000Z', 'DTEND:20200312T110000Z'],
  // Weekly, three times, ending in April 2021.
  ['SUMMARY:Weekly', 'DTSTART:20210401T090000Z', 'DTEND:20210401T093000Z', 'RRULE:FREQ=WEEKLY;COUNT=3'],
]);
const at = (iso: string) => Date.parse(iso);
const near = (db: Db, iso: string, direction: 'next' | 'previous') => {
  const e = adjacentEvent(db, { atMs: at(iso), direction, zone: 'UTC' });
  return e ? `${e.start} ${e.title}` : null;
};

describe('previous and next event', () => {
  it('finds past one-off events and the occurrences of a finished series from a day years later, and says none beyond them', () => {
    const { db } = tempDb();
    expect(imported(db, 'export-1234.ics', OLD).name).toBe('Old team'); // X-WR-CALNAME, not the file name
    expect(near(db, '2035-06-01T00:00:00Z', 'previous')).toBe('2021-04-15T09:00:00+00:00 Weekly');
    expect(near(db, '2021-04-15T09:00:00Z', 'previous')).toBe('2021-04-08T09:00:00+00:00 Weekly');
    expect(near(db, '2021-04-01T09:00:00Z', 'previous')).toBe('2020-03-12T10:00:00+00:00 Retro');
    expect(near(db, '2020-02-04T10:00:00Z', 'previous')).toBeNull();
    expect(near(db, '2010-01-01T00:00:00Z', 'next')).toBe('2020-02-04T10:00:00+00:00 Kickoff');
    expect(near(db, '2020-02-05T00:00:00Z', 'next')).toBe('2020-03-12T10:00:00+00:00 Retro');
    expect(near(db, '2020-03-13T00:00:00Z', 'next')).toBe('2021-04-01T09:00:00+00:00 Weekly');
    expect(near(db, '2021-04-15T09:00:01Z', 'next')).toBeNull();
    // Unreadable moments find nothing rather than throwing.
    expect(adjacentEvent(db, { atMs: Number.NaN, direction: 'next', zone: 'UTC' })).toBeNull();
  });

  it('finds the next occurrence of a series without end, and skips removed calendars', () => {
    const { db } = tempDb();
    const cal = imported(db, 'yearly.ics', ics('Birthdays', [['SUMMARY:Birthday', 'DTSTART;VALUE=DATE:20000310', 'DTEND;VALUE=DATE:20000311', 'RRULE:FREQ=YEARLY']]));
    imported(db, 'old.ics', OLD);
    expect(near(db, '2035-01-01T00:00:00Z', 'next')).toBe('2035-03-10T00:00:00+00:00 Birthday');
    expect(near(db, '2035-01-01T00:00:00Z', 'previous')).toBe('2034-03-10T00:00:00+00:00 Birthday');
    expect(removeCalendar(db, userCtx(db), { calendar: cal.id }).ok).toBe(true);
    expect(near(db, '2035-01-01T00:00:00Z', 'next')).toBeNull();
    expect(near(db, '2035-01-01T00:00:00Z', 'previous')).toBe('2021-04-15T09:00:00+00:00 Weekly');
  });
});

describe('renaming a calendar', () => {
  it('is logged and undoable, keeps names unique, and refuses empty or oversized names in words', () => {
    const { db } = tempDb();
    const cal = imported(db, 'export-1234.ics', OLD);
    const r = renameCalendar(db, userCtx(db), { calendar: 'Old team', name: '  Team 2020 ' });
    if (!r.ok) throw new Error(r.error);
    expect(r.value).toEqual({ id: cal.id, name: 'Team 2020' });
    expect(listCalendars(db).map((c) => c.name)).toEqual(['Personal', 'Team 2020']);
    const clash = renameCalendar(db, userCtx(db), { calendar: cal.id, name: 'personal' });
    expect(clash).toMatchObject({ ok: false, error: expect.stringMatching(/^a calendar named 'Personal' already exists/) });
    expect(renameCalendar(db, userCtx(db), { calendar: cal.id, name: '   ' }).ok).toBe(false);
    expect(renameCalendar(db, userCtx(db), { calendar: cal.id, name: 'x'.repeat(100_000) }).ok).toBe(false);
    expect(renameCalendar(db, userCtx(db), { calendar: 'no such calendar', name: 'A' }).ok).toBe(false);
    expect(undoAction(db, r.actionId, { ctx: userCtx(db) }).ok).toBe(true);
    expect(listCalendars(db).map((c) => c.name)).toEqual(['Personal', 'Old team']);
  });
});
