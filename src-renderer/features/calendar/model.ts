/**
 * The calendar as the views use it: events with their times read once into epoch ms and their calendar
 * attached, calendars with their colour. Pure functions over the contract's shapes (src-shared/ipc.ts:
 * `events.list`, `calendars.list`), tested without a DOM.
 */
import type { CalendarEvent } from '../../../src-shared/calendar';
import type { Output, SyncConflict } from '../../../src-shared/ipc';
import { parseEventTime, type Span } from './layout';

export type CalendarInfo = Output<'calendars.list'>[number];

/** One occurrence, ready to lay out: its times read once, a key unique among the occurrences shown. */
export interface CalEvent extends Span, Omit<CalendarEvent, 'id' | 'start' | 'end' | 'allDay'> {
  /** The event's id (shared by the occurrences of a recurring event); `id` is the occurrence's key. */
  eventId: string;
  startText: string;
  endText: string;
}

/** Events into the view's form; an event with unreadable times is left out rather than drawn in 1970. */
export function toEvents(rows: readonly CalendarEvent[]): CalEvent[] {
  const out: CalEvent[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const start = parseEventTime(r.start);
    const end = parseEventTime(r.end);
    if (!Number.isFinite(start) || !Number.isFinite(end)) continue;
    let id = r.occurrence === null ? r.id : `${r.id}@${r.occurrence}`;
    if (seen.has(id)) id = `${id}#${out.length}`;
    seen.add(id);
    const { id: eventId, start: startText, end: endText, ...rest } = r;
    out.push({ ...rest, id, eventId, start, end: Math.max(start, end), startText, endText });
  }
  return out;
}

/** Whose calendar: the person's name or email, or null for the user's own. */
export const personOf = (c: CalendarInfo): string | null => c.personName ?? c.personEmail;

const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
const timeFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

export const formatDay = (t: number): string => dayFmt.format(t);
export const formatTime = (t: number): string => timeFmt.format(t);

/** "10:00–10:30", "all day", or with the days when it spans several. */
export function timeRange(e: Pick<CalEvent, 'start' | 'end' | 'allDay'>): string {
  const sameDay = new Date(e.start).toDateString() === new Date(Math.max(e.start, e.end - 1)).toDateString();
  if (e.allDay) return sameDay ? 'all day' : `all day, ${formatDay(e.start)} to ${formatDay(Math.max(e.start, e.end - 1))}`;
  if (sameDay) return `${formatTime(e.start)} to ${formatTime(e.end)}`;
  return `${formatDay(e.start)} ${formatTime(e.start)} to ${formatDay(e.end)} ${formatTime(e.end)}`;
}

/** What a screen reader says for an event: title, day and time, calendar. */
export function eventName(e: CalEvent): string {
  const time = e.allDay || new Date(e.start).toDateString() !== new Date(e.end).toDateString() ? timeRange(e) : `${formatDay(e.start)}, ${timeRange(e)}`;
  const plan = e.planId ? `, planned block${e.pinned ? ', pinned' : ''}` : '';
  return `${e.title}, ${time}, ${e.calendar}${plan}${e.cancelled ? ', cancelled' : ''}`;
}

/** Today's list: cancelled events left out, all-day ones first, then by start; each marked over or now. */
export function todayList(events: readonly CalEvent[], now: number): { event: CalEvent; state: 'over' | 'now' | 'later' }[] {
  return events
    .filter((e) => !e.cancelled)
    .sort((a, b) => Number(b.allDay) - Number(a.allDay) || a.start - b.start || a.end - b.end)
    .map((event) => ({ event, state: event.allDay ? 'later' : event.end <= now ? 'over' : event.start <= now ? 'now' : 'later' }));
}

/**
 * The time a Restore of an event's start or end moves it to: a move writes both, so the lost start goes with
 * the lost end written with it on that device (same device, same moment); without one the length is kept
 * (restoring the start) or the start is (restoring the end).
 */
export function restoredTimes(e: Pick<CalEvent, 'start' | 'end' | 'startText'>, c: SyncConflict, all: readonly SyncConflict[]): [string, string] {
  const other = c.column === 'start' ? 'end' : 'start';
  const pair = all.find((x) => x.column === other && !x.merged && x.lostDevice === c.lostDevice && x.lostAt === c.lostAt && typeof x.lostValue === 'string');
  const lost = String(c.lostValue);
  if (pair) return c.column === 'start' ? [lost, String(pair.lostValue)] : [String(pair.lostValue), lost];
  if (c.column === 'end') return [e.startText, lost];
  return [lost, new Date(parseEventTime(lost) + (e.end - e.start)).toISOString()];
}
