/**
 * The calendar as the contract shows it: calendars (the local "Personal" one, and imported iCalendar
 * files, read-only, optionally a person's), events as occurrences in a time range (a recurring event is
 * expanded), and free time. Times are ISO 8601 with the offset of the user's time zone.
 */
import { z } from 'zod';

/** The built-in local calendar's id: the one the user and the agent write to. */
export const PERSONAL_CALENDAR_ID = 'personal';

export const CalendarInfo = z.object({
  id: z.string(),
  name: z.string(),
  /** `local`: the user's own (writable); `imported`: from an .ics file (read-only; re-import to update). */
  kind: z.enum(['local', 'imported']),
  /** The person whose calendar this is (their events are busy time for find_free_slots), when known. */
  personName: z.string().nullable(),
  personEmail: z.string().nullable(),
  /** A CSS colour (#rrggbb) for its events. */
  colour: z.string(),
  readOnly: z.boolean(),
  /** The file it was imported from (its base name), for imported calendars. */
  source: z.string().nullable(),
  /** Events (not occurrences) in it, cancelled ones aside. */
  events: z.number().int(),
  updatedAt: z.string(),
});
export type CalendarInfo = z.infer<typeof CalendarInfo>;

/** One occurrence of an event (a single event has one). */
export const CalendarEvent = z.object({
  /** The event's id (e12); every occurrence of a recurring event has its event's id. */
  id: z.string(),
  /** For an occurrence of a recurring event: which one (its original start, in the event's own zone); null otherwise. */
  occurrence: z.string().nullable(),
  calendarId: z.string(),
  calendar: z.string(),
  colour: z.string(),
  title: z.string(),
  /** ISO 8601 with offset (an all-day event: midnight at its start and end dates, end exclusive). */
  start: z.string(),
  end: z.string(),
  allDay: z.boolean(),
  location: z.string().nullable(),
  notes: z.string().nullable(),
  /** Names or emails of the attendees. */
  attendees: z.array(z.string()),
  recurring: z.boolean(),
  /** False for events marked free (TRANSP:TRANSPARENT): they do not block free time. */
  busy: z.boolean(),
  readOnly: z.boolean(),
  /** The task this event blocks time for (time-blocking), if any. */
  taskId: z.string().nullable(),
  /** A block of a plan (tidy plan, plan_tasks): the plan's id (the request that applied it). */
  planId: z.string().nullable().optional(),
  /** A plan block that re-planning never moves. */
  pinned: z.boolean().optional(),
  cancelled: z.boolean(),
  /** Set when the event is shown other than its file says: its repeat rule cannot be used (shown once), or its occurrences were cut. */
  note: z.string().optional(),
});
export type CalendarEvent = z.infer<typeof CalendarEvent>;

/** What an import did. */
export const ImportReport = z.object({
  calendar: CalendarInfo,
  added: z.number().int(),
  updated: z.number().int(),
  /** Events that were in the calendar and are not in the file any more (kept, marked cancelled). */
  removed: z.number().int(),
  unchanged: z.number().int(),
  /** Things in the file that were skipped or approximated, in words (at most 20). */
  warnings: z.array(z.string()),
});
export type ImportReport = z.infer<typeof ImportReport>;

export const FreeSlot = z.object({ start: z.string(), end: z.string() });
export type FreeSlot = z.infer<typeof FreeSlot>;

/** A point in time as the contract takes it: ISO 8601 with or without offset ("2026-11-30T10:00", "2026-11-30T10:00:00+01:00", "2026-11-30"). */
export const DateTimeText = z.string().trim().min(10).max(40);

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
