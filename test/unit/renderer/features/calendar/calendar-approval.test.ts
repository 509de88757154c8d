import { describe, expect, it } from 'vitest';
import { editedArgs, fieldsFromArgs } from '../../../../../src-renderer/features/calendar/approval';
import { toLocalInput } from '../../../../../src-renderer/features/calendar/layout';
import { restoredTimes, toEvents } from '../../../../../src-renderer/features/calendar/model';
import type { CalendarEvent } from '../../../../../src-shared/calendar';

const START = '2026-11-24T10:00:00Z';
const END = '2026-11-24T10:30:00Z';
const BOOK = { title: 'Sync with Alice and Bob', start: START, end: END, attendees: ['Alice', 'bob@example.org'], location: 'Room 4' };

describe('the approval card’s event form', () => {
  it('shows the model’s arguments as fields, times in local time', () => {
    const f = fieldsFromArgs(BOOK);
    expect(f).toEqual({ title: BOOK.title, start: toLocalInput(Date.parse(START)), end: toLocalInput(Date.parse(END)), attendees: 'Alice, bob@example.org' });
    expect(fieldsFromArgs({ start: 'next tuesday', attendees: 'Alice' })).toEqual({ title: '', start: '', end: '', attendees: '' });
  });

  it('sends nothing when nothing was changed, so the model’s exact text stands', () => {
    expect(editedArgs('book_event', BOOK, fieldsFromArgs(BOOK))).toEqual({ args: null, problem: null });
    // Whitespace around the same title is not a change either.
    expect(editedArgs('book_event', BOOK, { ...fieldsFromArgs(BOOK), title: `  ${BOOK.title} ` })).toEqual({ args: null, problem: null });
  });

  it('sends the edited title, time and attendees, keeping the other arguments', () => {
    const f = fieldsFromArgs(BOOK);
    const edited = editedArgs('book_event', BOOK, { ...f, title: 'Planning', end: f.end.replace(/T10:/, 'T11:'), attendees: 'Alice; Carol,\n' });
    expect(edited.problem).toBeNull();
    expect(edited.args).toMatchObject({ title: 'Planning', start: START, attendees: ['Alice', 'Carol'], location: 'Room 4' });
    expect(Date.parse(String(edited.args!['end'])) - Date.parse(END)).toBe(60 * 60_000);
    expect(String(edited.args!['end'])).toMatch(/[+-]\d{2}:\d{2}$/);
    // No attendees left: the argument goes, rather than an empty list.
    expect(editedArgs('book_event', BOOK, { ...f, attendees: ' , ' }).args).not.toHaveProperty('attendees');
  });

  it('holds back an empty title, an unreadable time and an end before the start, saying what to fix', () => {
    const f = fieldsFromArgs(BOOK);
    expect(editedArgs('book_event', BOOK, { ...f, title: '   ' })).toEqual({ args: null, problem: 'Title: give the event a title' });
    expect(editedArgs('book_event', BOOK, { ...f, start: '' })).toEqual({ args: null, problem: 'Start: enter a date and time' });
    expect(editedArgs('book_event', BOOK, { ...f, end: f.start })).toEqual({ args: null, problem: 'End: must be after the start' });
    expect(editedArgs('book_event', BOOK, { ...f, end: '2026-02-30T10:00' }).problem).toBe('End: enter a date and time');
  });

  it('edits only the time of a move, never adding a title or attendees', () => {
    const move = { event_id: 'e4', start: START, end: END };
    const f = fieldsFromArgs(move);
    const edited = editedArgs('move_event', move, { ...f, title: 'ignored', attendees: 'ignored', start: f.start.replace(/T10:00/, 'T09:00') });
    expect(Object.keys(edited.args!).sort()).toEqual(['end', 'event_id', 'start']);
    expect(Date.parse(String(edited.args!['start']))).toBe(Date.parse(START) - 60 * 60_000);
  });
});

const row = (over: Partial<CalendarEvent>): CalendarEvent => ({
  id: 'e1',
  occurrence: null,
  calendarId: 'personal',
  calendar: 'Personal',
  colour: '#2457c5',
  title: 'Standup',
  start: '2026-11-24T09:00:00+01:00',
  end: '2026-11-24T09:15:00+01:00',
  allDay: false,
  location: null,
  notes: null,
  attendees: [],
  recurring: false,
  busy: true,
  readOnly: false,
  taskId: null,
  cancelled: false,
  ...over,
});

describe('events as the view takes them', () => {
  it('reads times once, keys each occurrence of a recurring event apart, and leaves unreadable ones out', () => {
    const events = toEvents([
      row({ id: 'e1', occurrence: '2026-11-24T09:00:00', recurring: true }),
      row({ id: 'e1', occurrence: '2026-11-25T09:00:00', recurring: true, start: '2026-11-25T09:00:00+01:00', end: '2026-11-25T09:15:00+01:00' }),
      row({ id: 'e2', start: 'garbage' }),
      row({ id: 'e3', start: '2026-11-26', end: '2026-11-27', allDay: true }),
      row({ id: 'e4', start: '2026-11-24T12:00:00Z', end: '2026-11-24T11:00:00Z' }),
    ]);
    expect(events.map((e) => e.id)).toEqual(['e1@2026-11-24T09:00:00', 'e1@2026-11-25T09:00:00', 'e3', 'e4']);
    expect(events[0]).toMatchObject({ eventId: 'e1', start: Date.parse('2026-11-24T09:00:00+01:00'), startText: '2026-11-24T09:00:00+01:00' });
    expect(events[2]).toMatchObject({ allDay: true, start: new Date(2026, 10, 26).getTime(), end: new Date(2026, 10, 27).getTime() });
    // An end before the start is drawn as a point, never backwards.
    expect(events[3]!.end).toBe(events[3]!.start);
  });
});

describe('Restore of an event’s time from its sync history', () => {
  const at = '2035-01-01T10:00:00.000Z';
  const lost = (column: string, value: string | null, device = 'Desktop', lostAt = at) => ({ column, lostValue: value, lostAt, lostDevice: device, wonAt: at, wonDevice: 'Laptop', merged: false });
  const e = { start: Date.parse('2035-01-02T14:00:00.000Z'), end: Date.parse('2035-01-02T14:30:00.000Z'), startText: '2035-01-02T14:00:00.000Z' };
  it('moves it to the start and end one lost move wrote together', () => {
    const all = [lost('end', '2035-01-02T17:15:00.000Z'), lost('start', '2035-01-02T16:00:00.000Z'), lost('end', '2035-01-09T09:00:00.000Z', 'Phone')];
    expect(restoredTimes(e, all[1]!, all)).toEqual(['2035-01-02T16:00:00.000Z', '2035-01-02T17:15:00.000Z']);
    expect(restoredTimes(e, all[0]!, all)).toEqual(['2035-01-02T16:00:00.000Z', '2035-01-02T17:15:00.000Z']);
  });
  it('without the other half, keeps the length (a start) or the start (an end)', () => {
    expect(restoredTimes(e, lost('start', '2035-01-03T09:00:00.000Z'), [])).toEqual(['2035-01-03T09:00:00.000Z', '2035-01-03T09:30:00.000Z']);
    expect(restoredTimes(e, lost('end', '2035-01-02T15:00:00.000Z'), [lost('start', '2035-01-05T09:00:00.000Z', 'Desktop', '2035-01-01T11:00:00.000Z')])).toEqual([
      '2035-01-02T14:00:00.000Z',
      '2035-01-02T15:00:00.000Z',
    ]);
  });
});
