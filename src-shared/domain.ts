/** The data Tidy keeps: projects, tasks, lists, list items, and the action log. Ids are strings. */
import { z } from 'zod';
import { ActionWhat } from './actions';

export const INBOX_ID = 'inbox';

export const TaskStatus = z.enum(['open', 'done', 'archived']);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** As people say it: 1 = p1 = most urgent … 4 = p4 = normal (the default). */
export const Priority = z.number().int().min(1).max(4);

/** A due date as YYYY-MM-DD, or a date and time (ISO 8601; stored as local YYYY-MM-DDTHH:MM). */
export const DueDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/, 'use YYYY-MM-DD or an ISO date-time')
  .refine(realDate, 'not a real date');

/** The calendar date exists: 2026-02-30 does not (Date.parse would roll it over to March 2nd). */
function realDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return !Number.isNaN(Date.parse(s)) && day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** How a task repeats: an RRULE value (FREQ=WEEKLY;BYDAY=MO) or the quick-add words ("every monday"). */
export const Recurrence = z.string().trim().min(1).max(200);

export const Project = z.object({
  id: z.string(),
  name: z.string(),
  builtin: z.boolean(),
  archivedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Project = z.infer<typeof Project>;

export const Task = z.object({
  id: z.string(),
  content: z.string(),
  projectId: z.string(),
  project: z.string(),
  priority: Priority,
  /** 'YYYY-MM-DD', or 'YYYY-MM-DDTHH:MM' in local time. */
  due: z.string().nullable(),
  /** An RRULE value (FREQ=WEEKLY;BYDAY=MO) when the task repeats: completing it moves `due` on. */
  recurrence: z.string().nullable(),
  status: TaskStatus,
  /** When it was last completed (for the Completed view); null while it never was. */
  completedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  // Schema 12 (always given by the core; optional so that older callers and fixtures still type-check).
  /** Markdown notes. */
  description: z.string().nullable().optional(),
  /** The task this one is a subtask of (any depth). */
  parentId: z.string().nullable().optional(),
  /** The section of its project it is in, by name. */
  section: z.string().nullable().optional(),
  sectionId: z.string().nullable().optional(),
  /** Label names, sorted case-insensitively. */
  labels: z.array(z.string()).optional(),
  /** The date it must be done by (YYYY-MM-DD), beside the planned `due`. */
  deadline: z.string().nullable().optional(),
  /** How long it takes, in minutes. */
  durationMin: z.number().int().nullable().optional(),
});
export type Task = z.infer<typeof Task>;

/** A section inside a project (Todoist sections, Things headings). */
export const Section = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  position: z.number(),
  archivedAt: z.string().nullable(),
});
export type Section = z.infer<typeof Section>;

/** A dated note on a task. */
export const Comment = z.object({ id: z.string(), taskId: z.string(), text: z.string(), createdAt: z.string() });
export type Comment = z.infer<typeof Comment>;

/** A date only: YYYY-MM-DD (deadlines). */
export const DateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'use YYYY-MM-DD');

export const List = z.object({
  id: z.string(),
  name: z.string(),
  archivedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type List = z.infer<typeof List>;

export const ListItem = z.object({
  id: z.string(),
  listId: z.string(),
  text: z.string(),
  checked: z.boolean(),
  archivedAt: z.string().nullable(),
  position: z.number().int(),
});
export type ListItem = z.infer<typeof ListItem>;

/**
 * Who asked for a change: the user by hand (CLI, UI), Tidy's agent during a run, another AI app through
 * Tidy's MCP server, or an import. The log stores any of these; a new kind of source is one more name here.
 */
export const ActionSource = z.enum(['user', 'agent', 'mcp', 'import']);
export type ActionSource = z.infer<typeof ActionSource>;

/** One entry of the action log. */
export const ActionEntry = z.object({
  id: z.string(),
  /** The request it belongs to: an agent run (r…), a user command (u…), an MCP session, an import. */
  requestId: z.string(),
  source: ActionSource,
  tool: z.string(),
  args: z.unknown(),
  /** The change in words as it was logged (display only: `what` says what it did). */
  summary: z.string(),
  what: ActionWhat,
  createdAt: z.string(),
  undoneAt: z.string().nullable(),
  /** For an undo (or a redo, which is the undo of an undo): the action it reversed. */
  undoes: z.string().nullable(),
  /** It ran a tool of an MCP server: it happened outside Tidy and cannot be undone here. */
  external: z.literal(true).optional(),
});
export type ActionEntry = z.infer<typeof ActionEntry>;
