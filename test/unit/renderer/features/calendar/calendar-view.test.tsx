// The calendar's markup as a screen reader meets it: each day a list named by its day, each event a
// button named by title, time and calendar, today marked, free time said in words; and today's events.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CalendarEvent } from '../../../../../src-shared/calendar';
import { addLocalDays, daysOf, DEFAULT_WORKING_HOURS, startOfDay } from '../../../../../src-renderer/features/calendar/layout';
import { formatDay, formatTime, todayList, toEvents } from '../../../../../src-renderer/features/calendar/model';
import { WeekGrid } from '../../../../../src-renderer/features/calendar/WeekGrid';

const today = startOfDay(Date.now());
const at = (day: number, h: number, m = 0) => new Date(new Date(addLocalDays(today, day)).setHours(h, m)).toISOString();
const row = (over: Partial<CalendarEvent>): CalendarEvent => ({
  id: 'e1',
  occurrence: null,
  calendarId: 'personal',
  calendar: 'Personal',
  colour: '#2457c5',
  title: 'Standup',
  start: at(0, 9),
  end: at(0, 9, 15),
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

const noop = () => undefined;

describe('the week grid', () => {
  it('names each day’s list and each event, marks today and says free time in words', () => {
    const events = toEvents([
      row({ id: 'e1', title: 'Standup <script>', start: at(0, 23, 0), end: at(0, 23, 30) }),
      row({ id: 'e2', title: 'Design review', calendarId: 'k2', calendar: 'Alice', start: at(0, 23, 10), end: at(0, 23, 40) }),
      row({ id: 'e3', title: 'Offsite', allDay: true, start: new Date(today).toISOString(), end: new Date(addLocalDays(today, 1)).toISOString() }),
    ]);
    const html = renderToStaticMarkup(
      <WeekGrid days={daysOf(today, 'week')} events={events} hours={{ ...DEFAULT_WORKING_HOURS, days: [0, 1, 2, 3, 4, 5, 6] }} ownCalendars={new Set(['personal'])} selectedId="e2" onSelect={noop} onOpenDay={noop} />,
    );
    expect(html).toContain(`aria-label="${formatDay(today)}, today"`);
    expect(html.match(/aria-current="date"/g)).toHaveLength(1);
    // Titles are text, never markup.
    expect(html).toContain(`aria-label="Standup &lt;script&gt;, ${formatDay(today)}, ${formatTime(Date.parse(at(0, 23)))} to ${formatTime(Date.parse(at(0, 23, 30)))}, Personal"`);
    expect(html).not.toContain('<script>');
    expect(html).toMatch(/aria-label="Design review, [^"]+, Alice" aria-pressed="true"/);
    expect(html).toContain('aria-label="All-day events"');
    expect(html).toMatch(/aria-label="Offsite, all day, Personal"/);
    // Tomorrow is a whole free working day (days were set to every day, so it is one whatever today is).
    expect(html).toContain(`Free in working hours: ${formatTime(new Date(addLocalDays(today, 1)).setHours(9))} to ${formatTime(new Date(addLocalDays(today, 1)).setHours(17))}`);
  });
});

describe('plan blocks in the week grid', () => {
  it('are drawn apart from meetings and named as planned blocks (pinned said too)', () => {
    const events = toEvents([
      row({ id: 'e1', title: 'Write report', taskId: 't1', planId: 'u4', pinned: false, start: at(0, 10), end: at(0, 11) }),
      row({ id: 'e2', title: 'Review slides', taskId: 't2', planId: 'u4', pinned: true, start: at(0, 12), end: at(0, 13) }),
      row({ id: 'e3', title: 'Standup', start: at(0, 9), end: at(0, 9, 15) }),
    ]);
    const html = renderToStaticMarkup(
      <WeekGrid days={daysOf(today, 'week')} events={events} hours={{ ...DEFAULT_WORKING_HOURS, days: [0, 1, 2, 3, 4, 5, 6] }} ownCalendars={new Set(['personal'])} selectedId={null} onSelect={noop} onOpenDay={noop} />,
    );
    expect(html).toMatch(/class="cal-event[^"]* plan"[^>]*aria-label="Write report, [^"]+, Personal, planned block"/);
    expect(html).toMatch(/aria-label="Review slides, [^"]+, Personal, planned block, pinned"/);
    expect(html).toMatch(/class="cal-event(?![^"]* plan)[^"]*"[^>]*aria-label="Standup, [^"]+, Personal"/);
  });
});

describe('today’s events', () => {
  it('lists today’s events in order, all-day first, cancelled ones left out, each marked over or now', () => {
    const events = toEvents([
      row({ id: 'late', title: 'Call Bob', start: at(0, 15), end: at(0, 15, 30) }),
      row({ id: 'early', title: 'Breakfast', start: at(0, 8), end: at(0, 8, 30) }),
      row({ id: 'going', title: 'Standup', start: at(0, 9, 50), end: at(0, 10, 15) }),
      row({ id: 'gone', title: 'Cancelled thing', cancelled: true }),
      row({ id: 'holiday', title: 'Holiday', allDay: true, start: new Date(today).toISOString(), end: new Date(addLocalDays(today, 1)).toISOString() }),
    ]);
    const list = todayList(events, Date.parse(at(0, 10)));
    expect(list.map((l) => [l.event.title, l.state])).toEqual([
      ['Holiday', 'later'],
      ['Breakfast', 'over'],
      ['Standup', 'now'],
      ['Call Bob', 'later'],
    ]);
  });
});
