/**
 * Every logged change to user data, declared once: its name in the action log, its IPC channel, its input
 * and output, which views it makes stale, and how the `tidy` command spells it. The IPC contract
 * (src-shared/ipc.ts), the host's handlers and the CLI's by-hand commands (with their --help) are
 * derived from these objects; the core implements each one (src-main/core/domain/*, via `implement`).
 * The agent's tools and the MCP server import the implementations.
 *
 * Inputs name things the way a person does: `task` is a task id, `project`/`list` an id or a name.
 */
import { z } from 'zod';
import { DATA_TOPICS } from './topics';
import { Id, Name, Named, Ref, Text, spec, type CliOption } from './operation-spec';
import { CalendarEvent, CalendarInfo, DateTimeText, ImportReport } from './calendar';
import { Comment, DueDate, ListItem, Priority, Recurrence, Section, Task } from './domain';
import { Memory } from './memory';

// The contract (ipc.ts) takes these from here, beside the declarations.
export { DATA_TOPICS };
export { Id, mutationOutput, Name, Ref, Text, Topic } from './operation-spec';

const task = { key: 'task', help: 'task id or unambiguous text' } as const;
const list = { key: 'list', help: 'list id or name' } as const;
const item = { key: 'item', help: 'item id' } as const;
const project = { key: 'project', help: 'project id or name' } as const;

/** The fields of a task beyond its text, date and priority (schema 12): add and update take them alike. */
const RICH = {
  /** Markdown; null (or '') clears it. */
  description: Text.nullable().optional(),
  /** YYYY-MM-DD or words as in quick add; null (or '') clears it. */
  deadline: z.string().max(200).nullable().optional(),
  /** Minutes, or "45m", "2h", "1h30m"; null (or '') clears it. */
  durationMin: z.union([z.number().int(), z.string().max(40)]).nullable().optional(),
  /** The task's labels (all of them: replaces the set); an unknown name is created. */
  labels: z.array(z.string().max(200)).max(100).optional(),
  /** The task it is a subtask of; null (or '') makes it a top-level task. */
  parent: Id.or(z.literal('')).nullable().optional(),
  /** A section of its project by id or name; null (or '') takes it out of its section. */
  section: Ref.or(z.literal('')).nullable().optional(),
};

const RICH_CLI: CliOption[] = [
  { flag: '--description <text>', key: 'description', help: 'notes (Markdown), or none to clear' },
  { flag: '--deadline <date>', key: 'deadline', help: 'the date it must be done by (as in quick add), or none to clear' },
  { flag: '--duration <time>', key: 'durationMin', help: 'how long it takes: 45m, 2h, 1h30m, or none to clear' },
  { flag: '--label <names...>', key: 'labels', help: 'its labels (replaces them; created on first use); none clears them' },
  { flag: '--parent <task>', key: 'parent', help: 'the task it is a subtask of, or none' },
  { flag: '--section <name>', key: 'section', help: 'a section of its project (id or name), or none' },
];

export const OPERATIONS = [
  // --- tasks --------------------------------------------------------------------------------------
  spec({
    name: 'add_task',
    verb: 'added',
    kind: 'task',
    channel: 'tasks.add',
    input: z.object({
      content: Text,
      project: Ref.optional(),
      priority: Priority.optional(),
      due: DueDate.nullable().optional(),
      recurrence: Recurrence.nullable().optional(),
      ...RICH,
    }),
    output: Task,
    changes: ['tasks'],
  }),
  spec({
    name: 'update_task',
    verb: 'updated',
    kind: 'task',
    channel: 'tasks.update',
    input: z.object({
      task: Id,
      content: Text.optional(),
      priority: Priority.optional(),
      due: DueDate.or(z.literal('')).nullable().optional(),
      /** An RRULE value, or "every …" words; null (or '') stops the repeating. */
      recurrence: Recurrence.or(z.literal('')).nullable().optional(),
      ...RICH,
    }),
    output: Task,
    changes: ['tasks'],
    cli: {
      command: 'edit',
      help: 'change a task',
      args: [task],
      options: [
        { flag: '--content <text>', key: 'content', help: 'new text' },
        { flag: '--priority <n>', key: 'priority', help: '1 (p1, most urgent) to 4 (p4, normal)' },
        { flag: '--due <date>', key: 'due', help: 'a date as in quick add ("next friday 3pm", "dec 24", 2026-12-24), or none to clear' },
        { flag: '--every <rule>', key: 'recurrence', help: 'repeat: "every monday", "every 2 weeks", … or none to stop' },
        ...RICH_CLI,
      ],
      needsOneOf: ['content', 'priority', 'due', 'recurrence', ...RICH_CLI.map((o) => o.key)],
    },
  }),
  spec({
    name: 'comment_task',
    verb: 'added',
    kind: 'comment',
    channel: 'tasks.comment',
    input: z.object({ task: Id, text: Text }),
    output: Comment,
    changes: ['tasks'],
    cli: { command: 'comment', help: 'add a dated comment to a task', args: [task, { key: 'text', help: 'the comment', rest: true }] },
  }),
  spec({
    name: 'indent_task',
    verb: 'moved',
    kind: 'task',
    channel: 'tasks.indent',
    /** Makes the task a subtask of the task just above it (same parent, same project). */
    input: z.object({ task: Id }),
    output: Task,
    changes: ['tasks'],
    cli: { command: 'indent', help: 'make a task a subtask of the one above it', args: [task] },
  }),
  spec({
    name: 'outdent_task',
    verb: 'moved',
    kind: 'task',
    channel: 'tasks.outdent',
    /** Moves a subtask one level up (beside its parent). */
    input: z.object({ task: Id }),
    output: Task,
    changes: ['tasks'],
    cli: { command: 'outdent', help: 'move a subtask one level up', args: [task] },
  }),

  // --- sections -----------------------------------------------------------------------------------
  spec({
    name: 'create_section',
    verb: 'created',
    kind: 'section',
    channel: 'sections.create',
    input: z.object({ project: Ref, name: Name }),
    output: Section,
    changes: ['tasks', 'projects'],
    cli: { command: 'section add', help: 'create a section in a project', args: [project, { key: 'name', help: 'the name', rest: true }] },
  }),
  spec({
    name: 'rename_section',
    verb: 'renamed',
    kind: 'section',
    channel: 'sections.rename',
    input: z.object({ section: Id, name: Name }),
    output: Section,
    changes: ['tasks', 'projects'],
    cli: { command: 'section rename', help: 'rename a section', args: [{ key: 'section', help: 'section id' }, { key: 'name', help: 'the new name', rest: true }] },
  }),
  spec({
    name: 'reorder_section',
    verb: 'moved',
    kind: 'section',
    channel: 'sections.reorder',
    /** Puts the section just before `before` (a section of the same project), or last when null. */
    input: z.object({ section: Id, before: Id.nullable() }),
    output: Section,
    changes: ['tasks', 'projects'],
  }),
  spec({
    name: 'archive_section',
    verb: 'archived',
    kind: 'section',
    channel: 'sections.archive',
    input: z.object({ section: Id }),
    output: Section,
    changes: ['tasks', 'projects'],
    cli: { command: 'section archive', help: 'archive a section that has no open tasks', args: [{ key: 'section', help: 'section id' }] },
  }),
  spec({
    name: 'reorder_task',
    verb: 'moved',
    kind: 'task',
    channel: 'tasks.reorder',
    /** Puts the task just before `before` (a task of the same project), or last when `before` is null. */
    input: z.object({ task: Id, before: Id.nullable() }),
    output: Task,
    changes: ['tasks'],
  }),
  spec({
    name: 'snooze_task',
    verb: 'snoozed',
    kind: 'task',
    channel: 'tasks.snooze',
    /** Moves the due time `minutes` later, counted from now when it has passed (a reminder's snooze). */
    input: z.object({ task: Id, minutes: z.number().int().min(1).max(60 * 24 * 14) }),
    output: Task,
    changes: ['tasks'],
    cli: {
      command: 'snooze',
      help: 'move a task\'s due time later (default 10 minutes)',
      args: [task],
      options: [{ flag: '--minutes <n>', key: 'minutes', help: 'how many minutes (1 to 20160)' }],
      defaults: { minutes: 10 },
    },
  }),
  spec({
    name: 'move_task',
    verb: 'moved',
    kind: 'task',
    channel: 'tasks.move',
    input: z.object({ task: Id, project: Ref }),
    output: Task,
    changes: ['tasks'],
    cli: { command: 'move', help: 'move a task to a project', args: [task, { ...project, rest: true }] },
  }),
  spec({
    name: 'complete_task',
    verb: 'completed',
    kind: 'task',
    channel: 'tasks.complete',
    input: z.object({ task: Id }),
    output: Task,
    changes: ['tasks'],
    cli: { command: 'done', help: 'complete a task', args: [task] },
  }),
  spec({
    name: 'reopen_task',
    verb: 'reopened',
    kind: 'task',
    channel: 'tasks.reopen',
    input: z.object({ task: Id }),
    output: Task,
    changes: ['tasks'],
    cli: { command: 'reopen', help: 'reopen a completed or archived task', args: [task] },
  }),
  spec({
    name: 'archive_task',
    verb: 'archived',
    kind: 'task',
    channel: 'tasks.archive',
    input: z.object({ task: Id }),
    output: Task,
    changes: ['tasks'],
    cli: { command: 'archive', help: 'archive a task', args: [task] },
  }),

  // --- projects -----------------------------------------------------------------------------------
  spec({
    name: 'create_project',
    verb: 'created',
    kind: 'project',
    channel: 'projects.create',
    input: z.object({ name: Name }),
    output: Named,
    changes: ['projects'],
    cli: { command: 'project add', help: 'create a project', args: [{ key: 'name', help: 'the name', rest: true }] },
  }),
  spec({
    name: 'rename_project',
    verb: 'renamed',
    kind: 'project',
    channel: 'projects.rename',
    input: z.object({ project: Ref, name: Name }),
    output: Named,
    changes: ['projects', 'tasks'],
    cli: { command: 'project rename', help: 'rename a project', args: [project, { key: 'name', help: 'the new name', rest: true }] },
  }),
  spec({
    name: 'archive_project',
    verb: 'archived',
    kind: 'project',
    channel: 'projects.archive',
    input: z.object({ project: Ref }),
    output: Named,
    changes: ['projects'],
    cli: { command: 'project archive', help: 'archive a project that has no open tasks', args: [project] },
  }),
  spec({
    name: 'unarchive_project',
    verb: 'unarchived',
    kind: 'project',
    channel: 'projects.unarchive',
    input: z.object({ project: Ref }),
    output: Named,
    changes: ['projects'],
    cli: { command: 'project unarchive', help: 'bring an archived project back', args: [project] },
  }),

  // --- lists --------------------------------------------------------------------------------------
  spec({
    name: 'make_list',
    verb: 'made',
    kind: 'list',
    channel: 'lists.create',
    input: z.object({ name: Name }),
    output: Named,
    changes: ['lists'],
    cli: { command: 'list add', help: 'make a list', args: [{ key: 'name', help: 'the name', rest: true }] },
  }),
  spec({
    name: 'rename_list',
    verb: 'renamed',
    kind: 'list',
    channel: 'lists.rename',
    input: z.object({ list: Ref, name: Name }),
    output: Named,
    changes: ['lists'],
    cli: { command: 'list rename', help: 'rename a list', args: [list, { key: 'name', help: 'the new name', rest: true }] },
  }),
  spec({
    name: 'archive_list',
    verb: 'archived',
    kind: 'list',
    channel: 'lists.archive',
    input: z.object({ list: Ref }),
    output: Named,
    changes: ['lists'],
    cli: { command: 'list archive', help: 'archive a list', args: [list] },
  }),
  spec({
    name: 'unarchive_list',
    verb: 'unarchived',
    kind: 'list',
    channel: 'lists.unarchive',
    input: z.object({ list: Ref }),
    output: Named,
    changes: ['lists'],
    cli: { command: 'list unarchive', help: 'bring an archived list back', args: [list] },
  }),
  spec({
    name: 'add_list_item',
    verb: 'added',
    kind: 'item',
    channel: 'lists.addItem',
    input: z.object({ list: Ref, text: Text }),
    output: ListItem,
    changes: ['lists'],
    cli: { command: 'list item', help: 'add an item to a list', args: [list, { key: 'text', help: 'what the item says', rest: true }] },
  }),
  spec({
    name: 'edit_list_item',
    verb: 'changed',
    kind: 'item',
    channel: 'lists.editItem',
    input: z.object({ list: Ref, item: Id, text: Text }),
    output: ListItem,
    changes: ['lists'],
    cli: { command: 'list edit', help: "change an item's text", args: [list, item, { key: 'text', help: 'the new text', rest: true }] },
  }),
  spec({
    name: 'check_list_item',
    verb: 'checked',
    kind: 'item',
    channel: 'lists.checkItem',
    input: z.object({ list: Ref, item: Id, checked: z.boolean() }),
    output: ListItem,
    changes: ['lists'],
    cli: {
      command: 'list check',
      help: 'check (or uncheck) an item',
      args: [list, item],
      options: [{ flag: '--uncheck', key: 'checked', help: 'uncheck instead', value: false }],
      defaults: { checked: true },
    },
  }),
  spec({
    name: 'archive_list_item',
    verb: 'archived',
    kind: 'item',
    channel: 'lists.archiveItem',
    input: z.object({ list: Ref, item: Id }),
    output: ListItem,
    changes: ['lists'],
    cli: { command: 'list archive-item', help: 'archive an item (undo brings it back)', args: [list, item] },
  }),

  // --- calendar (src-main/core/domain/calendar.ts; the `tidy cal` commands are in src-main/cli/commands/calendar.ts) ---
  spec({
    name: 'book_event',
    verb: 'booked',
    kind: 'event',
    channel: 'events.book',
    input: z.object({
      title: Text,
      start: DateTimeText,
      end: DateTimeText,
      allDay: z.boolean().optional(),
      attendees: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
      location: Text.optional(),
      notes: Text.optional(),
      /** Time-blocking: the task this event is for. */
      taskId: Id.optional(),
    }),
    output: CalendarEvent,
    changes: ['events'],
  }),
  spec({
    name: 'move_event',
    verb: 'moved',
    kind: 'event',
    channel: 'events.move',
    input: z.object({ event: Id, start: DateTimeText, end: DateTimeText }),
    output: CalendarEvent,
    changes: ['events'],
  }),
  spec({
    name: 'cancel_event',
    verb: 'cancelled',
    kind: 'event',
    channel: 'events.cancel',
    input: z.object({ event: Id }),
    output: CalendarEvent,
    changes: ['events'],
  }),
  spec({
    name: 'import_calendar',
    verb: 'imported',
    kind: 'calendar',
    channel: 'calendars.import',
    /** `text` is the .ics file's content (the renderer reads the file the user picked or dropped). */
    input: z.object({ fileName: z.string().trim().min(1).max(255), text: z.string().max(50_000_000), person: z.string().trim().max(200).optional() }),
    output: ImportReport,
    changes: ['events'],
  }),
  spec({
    name: 'remove_calendar',
    verb: 'removed',
    kind: 'calendar',
    channel: 'calendars.remove',
    input: z.object({ calendar: Ref }),
    output: CalendarInfo,
    changes: ['events'],
  }),
  spec({
    name: 'rename_calendar',
    verb: 'renamed',
    kind: 'calendar',
    channel: 'calendars.rename',
    input: z.object({ calendar: Ref, name: Name }),
    output: Named,
    changes: ['events'],
  }),

  // --- memory (src-main/core/domain/memory.ts; the `tidy memory` commands are in src-main/cli/commands/memory.ts) ---
  spec({
    name: 'remember',
    verb: 'remembered',
    kind: 'memory',
    channel: 'memory.add',
    /** project: the project it applies to (id or name); none, null or '': everywhere. */
    input: z.object({ text: Text, project: Ref.or(z.literal('')).nullable().optional() }),
    output: Memory,
    changes: ['memory'],
  }),
  spec({
    name: 'update_memory',
    verb: 'changed',
    kind: 'memory',
    channel: 'memory.update',
    /** project: a project (id or name), or null/'' for everywhere; left out, the scope stays. */
    input: z.object({ memory: Id, text: Text.optional(), project: Ref.or(z.literal('')).nullable().optional() }),
    output: Memory,
    changes: ['memory'],
  }),
  spec({
    name: 'forget',
    verb: 'forgot',
    kind: 'memory',
    channel: 'memory.forget',
    input: z.object({ memory: Id }),
    output: Memory,
    changes: ['memory'],
  }),

  // --- labels (src-main/core/domain/labels.ts) ---
  spec({
    name: 'set_label_colour',
    verb: 'changed',
    kind: 'label',
    channel: 'labels.colour',
    /** colour: #rrggbb, or null (also '' or 'none') for no colour. */
    input: z.object({ label: Ref, colour: z.string().max(20).nullable() }),
    output: z.object({ id: z.string(), name: z.string(), colour: z.string().nullable(), openTasks: z.number().int() }),
    changes: ['tasks'],
    cli: { command: 'label colour', help: "set a label's colour (#rrggbb, or none)", args: [{ key: 'label', help: 'label name or id' }, { key: 'colour', help: '#rrggbb, or none' }] },
  }),
] as const;

type Operations = typeof OPERATIONS;
export type AnyOperationSpec = Operations[number];
export type OperationChannel = AnyOperationSpec['channel'];
export type SpecOf<C extends OperationChannel> = Extract<AnyOperationSpec, { channel: C }>;
