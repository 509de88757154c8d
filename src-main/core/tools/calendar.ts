/**
 * The calendar tools (seed 004's meeting agent, for one person): read events, find free time with
 * attendees, book (asking first: the user can edit the booking on the approval card), move, cancel.
 * Times are ISO 8601; without an offset they are in the user's zone (the request's first line names it).
 */
import { z } from 'zod';
import type { CalendarEvent } from '../../../src-shared/calendar';
import { readSettings } from '../settings';
import { findFreeSlots } from '../domain/free';
import { localZone } from '../calendar/zones';
import { listEvents, parseInstant, parsePerson, shortTime } from '../domain/calendar';
import { bookEvent, cancelEvent, moveEvent } from '../domain/events';
import { quote } from '../domain/text';
import { capped, defineTool, mutation, read, READ_CAP } from './tool';

// Times are ISO 8601 (no offset: the user's zone); people are names or emails of people whose calendars
// were imported. Said in the descriptions only where needed: every token of the tool list is paid per step.
const when = z.string();
const people = z.array(z.string()).max(20);

/** An event as the model sees it: only what is set. */
function eventRow(e: CalendarEvent): Record<string, unknown> {
  return {
    id: e.id,
    title: e.title,
    start: e.start,
    end: e.end,
    ...(e.allDay ? { all_day: true } : {}),
    calendar: e.calendar,
    ...(e.location ? { location: e.location } : {}),
    ...(e.attendees.length ? { attendees: e.attendees.slice(0, 20) } : {}),
    ...(e.recurring ? { recurring: true } : {}),
    ...(e.busy ? {} : { free: true }),
    ...(e.taskId ? { task_id: e.taskId } : {}),
    ...(e.readOnly ? { read_only: true } : {}),
  };
}

export const CALENDAR_TOOLS = [
  defineTool({
    name: 'get_events',
    description: 'Events in [from, to) in all calendars (ISO 8601 times).',
    input: z.strictObject({ from: when, to: when }),
    effect: 'read',
    run: ({ from, to }, { db }) =>
      read(() => {
        const zone = localZone();
        const { events } = listEvents(db, { fromMs: parseInstant(from, zone, 'from'), toMs: parseInstant(to, zone, 'to'), zone });
        return capped('events', events.slice(0, READ_CAP).map(eventRow), events.length, 'ask for a shorter range');
      }),
  }),
  defineTool({
    name: 'find_free_slots',
    description: 'Working-hours windows when the user and all attendees are free; default: next 14 days.',
    input: z.strictObject({
      duration_min: z.number().int().min(5).max(1440),
      from: when.optional(),
      to: when.optional(),
      attendees: people.optional(),
    }),
    effect: 'read',
    run: ({ duration_min, from, to, attendees }, { db, services }) =>
      read(() => {
        const zone = localZone();
        const settings = readSettings(db);
        const r = findFreeSlots(db, {
          durationMin: duration_min,
          ...(from ? { fromMs: parseInstant(from, zone, 'from') } : {}),
          ...(to ? { toMs: parseInstant(to, zone, 'to') } : {}),
          attendees: attendees ?? [],
          now: services.now().getTime(),
          zone,
          workStart: settings.workStart,
          workEnd: settings.workEnd,
          workDays: settings.workDays,
          maxSlots: 20,
        });
        return {
          slots: r.slots,
          total: r.total,
          ...(r.total > r.slots.length ? { hint: `showing the first ${r.slots.length}; narrow from/to for others` } : {}),
          working_hours: `${settings.workStart}-${settings.workEnd} ${settings.workDays.join(',')}`,
        };
      }),
  }),
  defineTool({
    name: 'book_event',
    approvalForm: 'event',
    description: "Book an event (the user approves it); task_id: a task it is for.",
    input: z.strictObject({
      title: z.string(),
      start: when,
      end: when,
      attendees: people.optional(),
      location: z.string().optional(),
      notes: z.string().optional(),
      task_id: z.string().optional(),
    }),
    effect: 'write',
    approval: 'ask',
    changesExisting: () => 0,
    confirm: ({ title, start, end, attendees }) => {
      const zone = localZone();
      const s = parseInstant(start, zone, 'start');
      const e = parseInstant(end, zone, 'end');
      const names = (attendees ?? []).map((a) => {
        const p = parsePerson(a);
        return p.name ?? p.email ?? a;
      });
      return `Book ${quote(title)} on ${shortTime(s, zone)}–${shortTime(e, zone).slice(-5)}${names.length ? ` with ${names.join(', ')}` : ''}?`;
    },
    run: ({ task_id, ...input }, { db, action }) => mutation(bookEvent(db, action, { ...input, ...(task_id ? { taskId: task_id } : {}) }), eventRow),
  }),
  defineTool({
    name: 'move_event',
    approvalForm: 'event',
    description: "Move an event of the user's own calendar (event_id from get_events).",
    input: z.strictObject({ event_id: z.string(), start: when, end: when }),
    effect: 'write',
    run: ({ event_id, start, end }, { db, action }) => mutation(moveEvent(db, action, { event: event_id, start, end }), eventRow),
  }),
  defineTool({
    name: 'cancel_event',
    description: "Cancel an event of the user's own calendar.",
    input: z.strictObject({ event_id: z.string() }),
    effect: 'write',
    run: ({ event_id }, { db, action }) => mutation(cancelEvent(db, action, { event: event_id }), () => ({ ok: true })),
  }),
];
